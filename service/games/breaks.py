"""Breaks: a player stops their correspondence clocks for a few days, up to
`Config.break_days` a year (`CLAIM_BREAK_DAYS`, 30 by default), as long play-by-mail
sites allow.

A break is the player's, counted in their record (`PlayerStore.take_break`), and told
to each game it stops: every running game of theirs with a move time of a day or more
(`CORRESPONDENCE`) gets a `BreakTaken`, which says until when and how many of the
year's days are used, for the opponents to see; the fold moves the seat's deadline on
by the break. A game joined during a break runs its clock (its player chose to play
it). Ending a break early gives back the whole days not begun and appends `BreakEnded`
to the games it stops.

Each game's event has an id derived from the break (`ids.py`), so a request repeated
after a failure appends it once; a game whose seat's time ran out already, or that
ended meanwhile, is left as it is.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

from service.events import (
    CORRESPONDENCE,
    HUMAN,
    RUNNING,
    BreakEnded,
    BreakTaken,
    Event,
    Game,
    PlayerBreak,
    RejectedEvent,
    StaleVersion,
)

from . import ids
from .access import me
from .changes import Change, follow_up
from .claim import Claim
from .errors import BreakRefused, use_case

BREAK = uuid.UUID("5d0b7e3a-91c4-4f26-b8e1-3a6c2f9d7e48")


@dataclass(frozen=True, slots=True)
class Break:
    """A player's breaks, and the games a break just taken or ended stopped."""

    breaks: PlayerBreak
    game_ids: tuple[str, ...] = ()


@use_case
def breaks(claim: Claim, key: str | None) -> PlayerBreak:
    """The breaks of the player whose key this is, this year."""
    return claim.players.breaks(me(claim, key).id, claim.config.break_days)


@use_case
def take_break(claim: Claim, key: str | None, days: int) -> Break:
    """A break of `days` from now for the player whose key this is: their clock stops
    in each of their running correspondence games."""
    player = me(claim, key)
    if claim.config.break_days == 0:
        raise BreakRefused("this server allows no breaks")
    taken = claim.players.take_break(player.id, days, claim.config.break_days)

    def event(seat: int) -> BreakTaken:
        return BreakTaken(seat, taken.until, taken.days_used, taken.days_allowed)

    game_ids = _tell(claim, player.id, event, f"taken/{taken.until.isoformat()}")
    return Break(taken, game_ids)


@use_case
def end_break(claim: Claim, key: str | None) -> Break:
    """End the break of the player whose key this is: their clocks run again."""
    player = me(claim, key)
    ended = claim.players.end_break(player.id, claim.config.break_days)
    if ended is None:
        raise BreakRefused("no break of yours runs")
    game_ids = _tell(claim, player.id, BreakEnded, f"ended/{ended.until.isoformat()}")
    return Break(ended, game_ids)


def _tell(claim: Claim, player_id: str, event: Callable[[int], Event], key: str) -> tuple[str, ...]:
    """Append `event(seat)` to each running correspondence game where the player holds
    a seat whose clock it changes; the ids of the games told."""
    told = []
    for game_id in claim.player_games.of(player_id):
        game = claim.store.load(game_id)
        ending = event is BreakEnded
        while (seat := _changed_seat(claim, game, player_id, ending)) is not None:
            made = event(seat)
            event_id = ids.derived_id(game_id, BREAK, f"{player_id}/{key}")
            try:
                claim.store.append_once(game_id, [made], game.version, [event_id])
            except StaleVersion:
                game = claim.store.load(game_id)
                continue
            except RejectedEvent:  # its time ran out meanwhile: the timeout policy rules
                break
            follow_up(claim, Change(claim.store.load(game_id), (made,)))
            told.append(game_id)
            break
    return tuple(told)


def _changed_seat(claim: Claim, game: Game, player_id: str, ending: bool) -> int | None:
    """The player's seat in `game` whose clock a break (`ending` it) changes, if any."""
    limit = game.creation.move_time_limit
    if game.status != RUNNING or limit is None or limit < CORRESPONDENCE:
        return None
    now = claim.clock()
    for n, seat in enumerate(game.seats):
        if seat.player != player_id or seat.kind != HUMAN:
            continue
        if ending:
            return n if seat.on_break(now) else None
        late = game.state.to_act == n and game.deadline is not None and game.deadline <= now
        return None if late or seat.on_break(now) else n
    return None
