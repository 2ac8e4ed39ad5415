"""Games as streams of immutable events in Redis, the fold that gives their state, and
the projections of the streams, each a module that owns its Redis keys. Nothing above
this package builds a Redis key.

>>> from service.domain import Settings, legal_decisions
>>> from service.events import SeatSpec, DecisionMade
>>> # store = GameStore(connect(config))  # on REDIS_URL, else the embedded Redis
>>> game = store.create(
...     Settings(players=2, factions=("GO", "KN", "UN", "DO", "DW")),
...     seats=[SeatSpec("ai", "random"), SeatSpec("ai", "greedy")],
... )
>>> game.version, game.status
(1, 'running')
>>> move = legal_decisions(game.state)[0]
>>> store.append(game.id, [DecisionMade(seat=0, decision=move)], expected_version=1)
2
>>> store.load(game.id).state.to_act
1
"""

from .ai_turns import AiTurns
from .analyses import Analyses
from .archive import Archive, ArchivedGame
from .challenges import (
    ACCEPTED,
    CANCELLED,
    CHALLENGE_STATUSES,
    DECLINED,
    EXPIRED,
    PAIR,
    SENT_FULL,
    Challenge,
    Challenges,
    PlacesHeld,
)
from .connection import connect, redis_errors
from .errors import (
    CorruptEvent,
    GameNotStarted,
    InvalidEvent,
    RejectedEvent,
    SeatRefusal,
    SeatUnavailable,
    StaleVersion,
    StoreError,
    StoreUnavailable,
    UnknownDevice,
    UnknownGame,
    UnknownPlayer,
    UnknownVersion,
)
from .fold import (
    ABORTED,
    COMPLETED,
    FINISHED,
    FORFEITED,
    OPEN,
    RESIGNED,
    RUNNING,
    STATUSES,
    Ending,
    Game,
    Seat,
    apply_event,
    fold,
)
from .keys import PublicKey, SigningKey
from .lobby import GameSummary, Lobby, LobbyFilter, LobbyPage
from .model import (
    AI,
    AI_DECIDES,
    AI_LEVELS,
    DEFAULT_JOIN_TIME_LIMIT,
    DEFAULT_TIMEOUT_POLICY,
    FORFEIT,
    HUMAN,
    TAKEOVER,
    TIMEOUT_POLICIES,
    DecisionMade,
    Event,
    GameAborted,
    GameCreated,
    GameResigned,
    Recorded,
    SeatJoined,
    SeatRegistered,
    SeatReturned,
    SeatSpec,
    TurnTimedOut,
    deck_commitment,
    policy_parts,
)
from .player_games import PlayerGames
from .players import (
    BLOCKED,
    DELIVERED,
    FAILED,
    FIRST_DEVICE,
    Delivery,
    Device,
    KeyHolder,
    Player,
    PlayerStore,
    digest,
    new_secret,
)
from .ratings import (
    FULL_MEETINGS,
    LAST_MEETING,
    MIN_DECISIONS_PER_SEAT,
    MIN_OPPONENTS,
    PLAYER_COUNTS,
    Played,
    RatedResult,
    Rating,
    RatingChange,
    Ratings,
    ai_entity,
    is_ai,
    is_ranked,
)
from .rematches import Rematches
from .request_counts import RequestCounts
from .seals import Seal, Seals
from .sign_ins import SignIns
from .store import GAME_ID, Appended, GameStore, utc_now
from .timers import Timers
from .watch_leases import WatchLease, WatchLeases
from .watchers import Heard, NewsWaiter, Waiter, Watchers

__all__ = [
    "ABORTED",
    "ACCEPTED",
    "AI",
    "AI_DECIDES",
    "AI_LEVELS",
    "BLOCKED",
    "CANCELLED",
    "CHALLENGE_STATUSES",
    "COMPLETED",
    "DECLINED",
    "DEFAULT_JOIN_TIME_LIMIT",
    "DEFAULT_TIMEOUT_POLICY",
    "DELIVERED",
    "EXPIRED",
    "FAILED",
    "FINISHED",
    "FIRST_DEVICE",
    "FORFEIT",
    "FORFEITED",
    "FULL_MEETINGS",
    "GAME_ID",
    "HUMAN",
    "LAST_MEETING",
    "MIN_DECISIONS_PER_SEAT",
    "MIN_OPPONENTS",
    "OPEN",
    "PAIR",
    "PLAYER_COUNTS",
    "RESIGNED",
    "RUNNING",
    "SENT_FULL",
    "STATUSES",
    "TAKEOVER",
    "TIMEOUT_POLICIES",
    "AiTurns",
    "Analyses",
    "Appended",
    "Archive",
    "ArchivedGame",
    "Challenge",
    "Challenges",
    "CorruptEvent",
    "DecisionMade",
    "Delivery",
    "Device",
    "Ending",
    "Event",
    "Game",
    "GameAborted",
    "GameCreated",
    "GameNotStarted",
    "GameResigned",
    "GameStore",
    "GameSummary",
    "Heard",
    "InvalidEvent",
    "KeyHolder",
    "Lobby",
    "LobbyFilter",
    "LobbyPage",
    "NewsWaiter",
    "PlacesHeld",
    "Played",
    "Player",
    "PlayerGames",
    "PlayerStore",
    "PublicKey",
    "RatedResult",
    "Rating",
    "RatingChange",
    "Ratings",
    "Recorded",
    "RejectedEvent",
    "Rematches",
    "RequestCounts",
    "Seal",
    "Seals",
    "Seat",
    "SeatJoined",
    "SeatRefusal",
    "SeatRegistered",
    "SeatReturned",
    "SeatSpec",
    "SeatUnavailable",
    "SignIns",
    "SigningKey",
    "StaleVersion",
    "StoreError",
    "StoreUnavailable",
    "Timers",
    "TurnTimedOut",
    "UnknownDevice",
    "UnknownGame",
    "UnknownPlayer",
    "UnknownVersion",
    "Waiter",
    "WatchLease",
    "WatchLeases",
    "Watchers",
    "ai_entity",
    "apply_event",
    "connect",
    "deck_commitment",
    "digest",
    "fold",
    "is_ai",
    "is_ranked",
    "new_secret",
    "policy_parts",
    "redis_errors",
    "utc_now",
]
