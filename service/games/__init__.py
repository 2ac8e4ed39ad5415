"""The application layer: one function per use case, the errors they raise, and what
follows a change, declared once (`changes.py`).

Flask views (`service/api`) and RQ jobs (`workers`) parse, call one of these, and
render; neither imports the other. Every use case takes a `Claim` first: the
settings, the event store, the projections, the job queues and the clock.

    claim = Claim.connect(Config.from_env())
    created = games.create(claim, players=2, factions="claim")
    joined = games.join(claim, created.game.id, 0, created.invites[0], "Ann")
    moved = games.move(claim, joined.game.id, joined.token, "play GO3", 3, "key-1")
"""

from service.events import (
    AI,
    AI_LEVELS,
    DEFAULT_JOIN_TIME_LIMIT,
    DEFAULT_TIMEOUT_POLICY,
    HUMAN,
    OPEN,
    RUNNING,
    STATUSES,
    TIMEOUT_POLICIES,
    Delivery,
    Game,
    GameSummary,
    LobbyPage,
    Player,
)

from .background import deliver, fire_due_timers, play_ai_turn, sweep
from .changes import Change, changed, rebuild
from .claim import DEADLINES, REMINDERS, Claim
from .errors import (
    CorruptGame,
    Failed,
    GameError,
    GameNotOver,
    GameNotStarted,
    GameOver,
    IdempotencyKeyReused,
    IllegalMove,
    InvalidRequest,
    NotYourTurn,
    Refused,
    SeatUnavailable,
    StaleVersion,
    StoreUnavailable,
    TooManyWatches,
    Unauthorized,
    UnknownGame,
    UnknownStep,
    WrongInvite,
)
from .history import Audit, EventLog, LoggedEvent, Step, audit, event_log, replay
from .jobs import Jobs
from .live import MAX_RESUME, SNAPSHOT, VIEW, Seen, Update, look, seated, watch
from .notifications import Notice
from .play import (
    PRESET_NAMES,
    RANDOM,
    Created,
    Joined,
    Moved,
    Rematch,
    come_back,
    create,
    join,
    move,
    rematch,
    resign,
)
from .players import Inbox, deliveries, inbox, profile, register, rotate_key, update
from .server import count_request, health, lobby

__all__ = [
    "AI",
    "AI_LEVELS",
    "DEADLINES",
    "DEFAULT_JOIN_TIME_LIMIT",
    "DEFAULT_TIMEOUT_POLICY",
    "HUMAN",
    "MAX_RESUME",
    "OPEN",
    "PRESET_NAMES",
    "RANDOM",
    "REMINDERS",
    "RUNNING",
    "SNAPSHOT",
    "STATUSES",
    "TIMEOUT_POLICIES",
    "VIEW",
    "Audit",
    "Change",
    "Claim",
    "CorruptGame",
    "Created",
    "Delivery",
    "EventLog",
    "Failed",
    "Game",
    "GameError",
    "GameNotOver",
    "GameNotStarted",
    "GameOver",
    "GameSummary",
    "IdempotencyKeyReused",
    "IllegalMove",
    "Inbox",
    "InvalidRequest",
    "Jobs",
    "Joined",
    "LobbyPage",
    "LoggedEvent",
    "Moved",
    "NotYourTurn",
    "Notice",
    "Player",
    "Refused",
    "Rematch",
    "SeatUnavailable",
    "Seen",
    "StaleVersion",
    "Step",
    "StoreUnavailable",
    "TooManyWatches",
    "Unauthorized",
    "UnknownGame",
    "UnknownStep",
    "Update",
    "WrongInvite",
    "audit",
    "changed",
    "come_back",
    "count_request",
    "create",
    "deliver",
    "deliveries",
    "event_log",
    "fire_due_timers",
    "health",
    "inbox",
    "join",
    "lobby",
    "look",
    "move",
    "play_ai_turn",
    "profile",
    "rebuild",
    "register",
    "rematch",
    "replay",
    "resign",
    "rotate_key",
    "seated",
    "sweep",
    "update",
    "watch",
]
