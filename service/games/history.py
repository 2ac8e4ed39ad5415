"""A game's past: any step replayed, the event log, and the audit of an ended game.

Plain functions over the event store, so that a test or a job can call them without
HTTP; the API only renders what they answer. While a game runs, each shows the caller
what the caller may see (RULES.md 8); once it has ended, everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from service.domain import ClaimError, Result, State, apply, is_over, new_game, result
from service.events import (
    OPEN,
    DecisionMade,
    Game,
    GameCreated,
    Recorded,
    SeatJoined,
    deck_commitment,
    fold,
)
from service.events.codec import dump

from .access import seat_or_public
from .account import describe
from .claim import Claim
from .errors import GameNotOver, UnknownStep, use_case


@dataclass(frozen=True, slots=True)
class Step:
    """The game after one step, as `seat` may see it."""

    step: int  # 0: the deal; then each event after it (a decision, a timeout...)
    last_step: int
    game: Game  # at that step
    account: tuple[str, ...]  # what the step did, in words
    seat: int | None  # the reader's seat, None for the public
    reveal: bool  # the game has ended since: everything is shown


@use_case
def replay(claim: Claim, game_id: str, step: int, token: str | None = None) -> Step:
    """The game after step `step`, told from the seat that `token` opens."""
    records = claim.store.read(game_id)
    game = fold(game_id, records)
    seat = seat_or_public(claim, game, token)
    if game.status == OPEN:
        raise UnknownStep(f"game {game_id} is not dealt yet")
    dealt = dealt_at(records)
    last = game.version - dealt
    if not 0 <= step <= last:
        raise UnknownStep(f"game {game_id} has steps 0 to {last}, not {step}")
    ended = game.ending is not None
    version = dealt + step
    at = fold(game_id, records[:version])
    if step:
        before = fold(game_id, records[: version - 1])
        account = describe(before.state, at.state, records[version - 1].event, seat, ended)
    else:
        account = ["the cards are dealt"]
    return Step(step, last, at, tuple(account), seat, ended)


def dealt_at(records: list[Recorded]) -> int:
    """The version of the deal, step 0: seats are all taken before it, so the version
    of the last join (or of the creation)."""
    return max((r.version for r in records if isinstance(r.event, SeatJoined)), default=1)


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """An event as the log shows it: its data without what is secret (`event_log`)."""

    version: int
    id: str
    type: str
    at: datetime
    data: dict


@dataclass(frozen=True, slots=True)
class EventLog:
    game_id: str
    version: int
    events: tuple[LoggedEvent, ...]


@use_case
def event_log(claim: Claim, game_id: str, after: int = 0) -> EventLog:
    """The game's events after version `after`: the deck and salt are left out until
    the game has ended, and the hashes of invites and tokens, and the players a seat
    belongs to (joined or registered), always."""
    records = claim.store.read(game_id)
    game = fold(game_id, records)
    ended = game.ending is not None
    logged = tuple(_public(record, ended) for record in records[after:])
    return EventLog(game_id, game.version, logged)


def _public(record: Recorded, ended: bool) -> LoggedEvent:
    name, data = dump(record.event)
    if isinstance(record.event, GameCreated):
        for seat in data["seats"]:
            seat.pop("invite_hash", None)
        if not ended:
            del data["deck"], data["salt"]
    data.pop("token_hash", None)
    data.pop("player", None)  # a player's games are theirs to list, nobody else's
    data.pop("player_salt", None)  # with it, the chain's digest tells whose seat it is
    return LoggedEvent(record.version, str(record.id), name, record.at, data)


@dataclass(frozen=True, slots=True)
class Audit:
    """Everything about an ended game, checked: the deck against the commitment
    published at its creation, and the stored game against its decisions replayed on
    that deck."""

    game: Game
    commitment_verified: bool  # sha256(salt || deck) is the commitment
    decisions: tuple[Recorded, ...]  # every DecisionMade, in order
    replayed: State  # the deck dealt again and the decisions applied to it
    result_verified: bool  # ... which gave the stored game
    result: Result | None  # the result recomputed, once verified and played to the end


@use_case
def audit(claim: Claim, game_id: str) -> Audit:
    """The audit of the ended game `game_id`; GameNotOver while its deck is secret."""
    return audited(game_id, claim.store.read(game_id))


def audited(game_id: str, records: list[Recorded]) -> Audit:
    """The audit of the ended game of `records` (`audit`; `claim verify-export`)."""
    game = fold(game_id, records)
    if game.ending is None:
        raise GameNotOver(f"game {game_id} has not ended: its deck is secret")
    creation = game.creation
    decisions = tuple(record for record in records if isinstance(record.event, DecisionMade))
    state = new_game(creation.settings, creation.deck)
    try:
        for record in decisions:
            state = apply(state, record.event.decision, seat=record.event.seat)
        verified = state == game.state
    except ClaimError:
        verified = False
    return Audit(
        game=game,
        commitment_verified=deck_commitment(creation.salt, creation.deck) == creation.commitment,
        decisions=decisions,
        replayed=state,
        result_verified=verified,
        result=result(state) if verified and is_over(state) else None,
    )
