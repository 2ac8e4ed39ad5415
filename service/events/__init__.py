"""Games as streams of immutable events in Redis, and the fold that gives their state.

>>> from service.domain import Settings, legal_decisions
>>> from service.events import SeatSpec, DecisionMade
>>> # store = GameStore(connect())  # on REDIS_URL, else the embedded Redis
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

from .connection import connect
from .errors import (
    CorruptEvent,
    InvalidEvent,
    RejectedEvent,
    SeatUnavailable,
    StaleVersion,
    StoreError,
    StoreUnavailable,
    UnknownGame,
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
from .lobby import GameSummary, LobbyPage
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
    SeatReturned,
    SeatSpec,
    TurnTimedOut,
    deck_commitment,
    policy_parts,
)
from .store import GameStore

__all__ = [
    "ABORTED",
    "AI",
    "AI_DECIDES",
    "AI_LEVELS",
    "COMPLETED",
    "DEFAULT_JOIN_TIME_LIMIT",
    "DEFAULT_TIMEOUT_POLICY",
    "FINISHED",
    "FORFEIT",
    "FORFEITED",
    "HUMAN",
    "OPEN",
    "RESIGNED",
    "RUNNING",
    "STATUSES",
    "TAKEOVER",
    "TIMEOUT_POLICIES",
    "CorruptEvent",
    "DecisionMade",
    "Ending",
    "Event",
    "Game",
    "GameAborted",
    "GameCreated",
    "GameResigned",
    "GameStore",
    "GameSummary",
    "InvalidEvent",
    "LobbyPage",
    "Recorded",
    "RejectedEvent",
    "Seat",
    "SeatJoined",
    "SeatReturned",
    "SeatSpec",
    "SeatUnavailable",
    "StaleVersion",
    "StoreError",
    "StoreUnavailable",
    "TurnTimedOut",
    "UnknownGame",
    "UnknownVersion",
    "apply_event",
    "connect",
    "deck_commitment",
    "fold",
    "policy_parts",
]
