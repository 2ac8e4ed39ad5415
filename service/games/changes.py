"""What follows a change of a game, declared once: every use case that appends ends
with `changed(claim, Change(...))`, a job's directly, a request's through `follow_up`.

`FOLLOWS` lists what a change may call for, in order: the seal of a game that ended,
the projections (the lobby,
each player's games, the ratings), the AI turn, the deadline, the notifications, and
an ended game's move to the archive. Each looks at the
change and does what it calls for, often nothing: a move between people without move
time and without registered players costs no round trip here.

`claim rebuild` writes every projection again from the streams through the same
table (`rebuild`), with no notification sent.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from service.events import (
    PLAYER_COUNTS,
    DecisionMade,
    Event,
    Game,
    SeatJoined,
    SeatRegistered,
    fold,
)

from . import archiving, deadlines, notifications, turns
from .claim import Claim
from .export import seal
from .ratings import rated_result

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Change:
    """`game` as a change left it, and the events the change appended (all of them
    when the projections are written again; None when they are not known: a job
    finishing what an earlier run of it appended)."""

    game: Game
    events: tuple[Event, ...] | None
    timer_fired: bool = False  # the game's deadline timer fired: set it anew
    rebuilt: bool = False  # written again from the streams: tell nobody anything

    @property
    def reset_timers(self) -> bool:
        """Whether the timers may hold anything, and are set from the game as it is."""
        return self.timer_fired or self.rebuilt


def _lobby(claim: Claim, change: Change) -> None:
    """The lobby lists a game by status and seats: a change of either shows."""
    game, events = change.game, change.events
    if events is None or game.ending is not None or not all(_is_decision(e) for e in events):
        claim.lobby.project(game, again=change.rebuilt)  # rebuilt: its filters' listings too


def _is_decision(event: Event) -> bool:
    return isinstance(event, DecisionMade)


def _player_games(claim: Claim, change: Change) -> None:
    """A registered player who takes a seat, or has a seat registered to them, has the
    game in their inbox, and their streams are told."""
    events = change.events
    if events is None or any(_gives_a_player_a_seat(e) for e in events):
        for seat in change.game.seats:
            if seat.player is not None:
                claim.player_games.add(seat.player, change.game.id, seat.joined_at)
                if not change.rebuilt:  # their streams watch it from now on
                    claim.store.announce_player(seat.player)


def _gives_a_player_a_seat(event: Event) -> bool:
    return isinstance(event, SeatRegistered) or (
        isinstance(event, SeatJoined) and event.player is not None
    )


def _ratings(claim: Claim, change: Change) -> None:
    """A rated game that ends moves the ratings (rebuilt: folded once at the end), and
    the watchers of each game whose rating changes were written look at it again."""
    result = rated_result(claim, change.game)
    if result is not None:
        claim.ratings.record(result)
        if not change.rebuilt:
            for game_id in claim.ratings.catch_up(result.players):
                claim.store.announce(game_id)


FOLLOWS: tuple[Callable[[Claim, Change], object], ...] = (
    lambda claim, change: seal(claim, change.game),  # an ended game's, made once
    _lobby,
    _player_games,
    _ratings,
    lambda claim, change: turns.follow(claim, change.game),
    lambda claim, change: deadlines.follow(claim, change.game, change.reset_timers),
    lambda claim, change: notifications.follow(claim, change.game, change.rebuilt),
    lambda claim, change: archiving.follow(claim, change.game),  # last: all else is done
)


def changed(claim: Claim, change: Change) -> None:
    """Do what `change` calls for; if something fails, do the rest, then raise the
    first failure (a job is then retried, and does it again)."""
    failure = None
    for follow in FOLLOWS:
        try:
            follow(claim, change)
        except Exception as error:
            failure = failure or error
            game = change.game
            log.exception("game %s: what follows version %s failed", game.id, game.version)
    if failure is not None:
        raise failure


def follow_up(claim: Claim, change: Change) -> None:
    """`changed`, a failure logged and not raised: for a change made for a request,
    whose answer must go out (it may hold a secret shown once). The change is stored
    already; what was missed is done by the next change of the game (each follow looks
    at the game as it is, not at what changed), by the sweep for a lost AI turn, by a
    repeat of the request, or at the latest by `claim rebuild`."""
    with contextlib.suppress(Exception):  # logged by `changed`
        changed(claim, change)


def rebuild(claim: Claim, game_ids: Iterable[str], archived: Iterable[str] = ()) -> int:
    """Write again, from the streams, every projection of the games `game_ids` (the
    lobby, each player's games, the games waiting on an AI, the deadline and reminder
    timers, the move to the archive of those that ended; the ratings folded again from
    the first rated result) and enqueue what they call for; record again the rated
    results of the archived games `archived` (the archive lists them itself); answer
    the number of games.

    Safe while the service runs: each projection keeps the newest version it was
    given, and what is enqueued twice is done once."""
    count = 0
    for game_id in game_ids:
        records = claim.store.read(game_id)
        game = fold(game_id, records)
        events = tuple(record.event for record in records)
        changed(claim, Change(game, events, rebuilt=True))
        count += 1
    for game_id in archived:
        result = rated_result(claim, claim.store.load(game_id))
        if result is not None:
            claim.ratings.record(result)
        count += 1
    for players in PLAYER_COUNTS:
        claim.ratings.catch_up(players, again=True)
    return count
