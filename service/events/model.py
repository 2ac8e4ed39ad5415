"""The events of a game: immutable facts, named in the past tense (docs/design.md, Events).

Only what carries information is stored: the creation with the shuffled deck, seats
joined (and registered to a player later), decisions, resignations, timeouts and
aborts. Round winners, prizes, phases
and scores are derived by the fold (`fold.py`).
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import datetime

from service.domain import Card, Decision, Settings

HUMAN = "human"
AI = "ai"
AI_LEVELS = ("random", "greedy", "expert")

# What happens when a seat's move time runs out (issue 8): "forfeit" ends the game and
# the seat's side loses; "ai:<level>" has an AI make that one decision for the seat;
# "takeover:<level>" has an AI make that one decision, and after `timeout_limit`
# timeouts of the seat in a row applies the game's final timeout policy: the AI plays
# the seat until its person comes back ("takeover"), or the seat forfeits ("forfeit").
# A `TurnTimedOut` names the policy that applied (`Game.on_timeout`).
FORFEIT = "forfeit"
AI_DECIDES = "ai"
TAKEOVER = "takeover"
TIMEOUT_POLICIES = (FORFEIT,) + tuple(
    f"{mode}:{level}" for mode in (AI_DECIDES, TAKEOVER) for level in AI_LEVELS
)
DEFAULT_TIMEOUT_POLICY = "ai:greedy"
FINAL_TIMEOUT_POLICIES = (TAKEOVER, FORFEIT)
TIMEOUT_LIMIT = 3  # the timeouts in a row a takeover policy forgives, by default
MAX_TIMEOUT_LIMIT = 10
DEFAULT_JOIN_TIME_LIMIT = 7 * 24 * 3600  # seconds for every human seat to be taken
# The shortest move time of a correspondence game, whose clock a player's break stops.
CORRESPONDENCE = 24 * 3600


def policy_parts(policy: str) -> tuple[str, str | None]:
    """`("ai", "greedy")` for `"ai:greedy"`, `("forfeit", None)` for `"forfeit"`."""
    mode, _, level = policy.partition(":")
    return mode, level or None


def deck_commitment(salt: bytes, deck: tuple[Card, ...]) -> str:
    """`sha256(salt || deck)` in hex, the deck being its card codes joined by spaces.

    Published at creation; the audit reveals salt and deck so that anyone can check:

        >>> from service.domain import parse_cards
        >>> import hashlib
        >>> salt, deck = bytes.fromhex("00ff"), parse_cards(["GO0", "KN2"])
        >>> deck_commitment(salt, deck) == hashlib.sha256(salt + b"GO0 KN2").hexdigest()
        True
    """
    return hashlib.sha256(salt + " ".join(card.code for card in deck).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """A seat as the game was created with it: a person's, or an AI's of some level.

    A person's seat may carry the hash of its invite code (the API's concern).
    """

    kind: str
    level: str | None = None
    invite_hash: str | None = None


@dataclass(frozen=True, slots=True)
class GameCreated:
    """A game was set up: its settings, seats, move time limit and shuffled deck."""

    settings: Settings
    seats: tuple[SeatSpec, ...]
    deck: tuple[Card, ...]
    salt: bytes
    commitment: str
    move_time_limit: int | None = None  # seconds, None for no limit
    timeout_policy: str = DEFAULT_TIMEOUT_POLICY  # what happens when the move time runs out
    join_time_limit: int | None = DEFAULT_JOIN_TIME_LIMIT  # seconds; then the game is aborted
    rated: bool = False  # its result moves the ratings (`ratings.py`)
    # Under a takeover policy: the timeouts of a seat in a row after which the final
    # policy applies (games made before there was a limit: 1, the AI to the end).
    timeout_limit: int = TIMEOUT_LIMIT
    final_timeout_policy: str = TAKEOVER


@dataclass(frozen=True, slots=True)
class SeatJoined:
    """A person took a seat; only the hash of the seat's token is kept."""

    seat: int
    name: str
    token_hash: str
    player: str | None = None  # the registered player the seat belongs to, if any


@dataclass(frozen=True, slots=True)
class SeatRegistered:
    """A seat taken without a player key became a registered player's: the player's
    key opens it from now on, and the game is in their inbox. Its token still works.
    `player_salt` (random, never shown) keys the hash chain's digest of the player
    (chain.py), so that an export's seats cannot be matched to the public player ids;
    None in the events of schema version 1, made before it."""

    seat: int
    player: str
    player_salt: str | None = None


@dataclass(frozen=True, slots=True)
class DecisionMade:
    """A seat played or took a card; `timeout_policy` names the policy that made it
    when the seat's time ran out, None when the seat made it itself."""

    seat: int
    decision: Decision
    timeout_policy: str | None = None


@dataclass(frozen=True, slots=True)
class GameResigned:
    """A seat gave up: the game ends and the seat's side loses."""

    seat: int


@dataclass(frozen=True, slots=True)
class TurnTimedOut:
    """The seat to act let its move time run out; `policy` says what followed: the
    game's policy, or what its takeover policy came to at this timeout (`ai:<level>`
    for one decision, `forfeit` at the limit)."""

    seat: int
    policy: str


@dataclass(frozen=True, slots=True)
class SeatReturned:
    """The person of a seat that an AI took over (timeout policy `takeover`) came back."""

    seat: int


@dataclass(frozen=True, slots=True)
class BreakTaken:
    """The person of a seat took a break: their move time stands still until `until`,
    in a game of a move time of a day or more (`CORRESPONDENCE`). `days_used` of the
    `days_allowed` a year, this one counted, as their opponents are told."""

    seat: int
    until: datetime
    days_used: int
    days_allowed: int


@dataclass(frozen=True, slots=True)
class BreakEnded:
    """The person of a seat came back from their break before its end."""

    seat: int


@dataclass(frozen=True, slots=True)
class GameAborted:
    """The game was called off before its end (for example seats left untaken)."""

    reason: str


Event = (
    GameCreated
    | SeatJoined
    | SeatRegistered
    | DecisionMade
    | GameResigned
    | TurnTimedOut
    | SeatReturned
    | BreakTaken
    | BreakEnded
    | GameAborted
)


@dataclass(frozen=True, slots=True)
class Recorded:
    """An event as stored: its version (its position in the game's stream, from 1),
    its unique id and the time it was appended; `canonical`, its canonical bytes as
    stored (`chain.py`), when it was read or written (None: made from the event)."""

    version: int
    id: uuid.UUID
    at: datetime
    event: Event
    canonical: bytes | None = field(default=None, compare=False, repr=False)
