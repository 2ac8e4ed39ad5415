"""What the workers do, as use cases: an AI turn, the timers falling due (deadlines,
reminders, and ended games' moves to the archive), the sweep for lost AI turns, and a
notification's delivery.

Each is safe to run twice: what it appends carries ids derived from the game and the
version it acted at (`ids.py`), and what follows a change (`changes.py`) is done
whenever the game has moved on, by this run or by an earlier one that failed before
it was done.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from service.events import Delivery, Game

from . import archiving, challenges, deadlines, notifications, turns
from .changes import Change, changed
from .claim import DEADLINES, REMINDERS, Claim
from .errors import use_case

log = logging.getLogger(__name__)
CHUNK = 100  # timers claimed at a time
LEASE = 60.0  # seconds a claimed timer is left to whoever claimed it


def _after(claim: Claim, game_id: str, version: int, appended: tuple) -> Game:
    """The game just after what this run appended at `version` (folded already: no
    round trip), or as it is now if it appended nothing."""
    return claim.store.load(game_id, version + len(appended) if appended else None)


@use_case
def play_ai_turn(claim: Claim, game_id: str, version: int) -> int | None:
    """Play the AI turn of `game_id` at `version` and do what follows; answer the new
    version, or None if this run appended nothing."""
    appended = turns.take(claim, game_id, version)
    game = _after(claim, game_id, version, appended)
    if game.version != version:  # by this run, or by an earlier one
        changed(claim, Change(game, appended or None))
    return game.version if appended else None


def _deadline(claim: Claim, game_id: str, version: int) -> None:
    """Apply the timeout policy of `game_id` if its deadline at `version` has passed,
    and set its timer anew (with the rest of what follows, if the game moved on: by
    this, or by a change whose own follow-up was cut off)."""
    appended = deadlines.expire(claim, game_id, version)
    game = _after(claim, game_id, version, appended)
    if game.version != version:
        changed(claim, Change(game, appended or None, timer_fired=True))
    else:  # not due yet: an early or a stale timer
        deadlines.follow(claim, game, reset=True)


FIRES: dict[str, Callable[[Claim, str, int], object]] = {
    DEADLINES: _deadline,
    REMINDERS: notifications.remind,
}


@use_case
def fire_due_timers(claim: Claim) -> int:
    """Fire every due timer, deadlines then reminders, `CHUNK` at a time, then expire
    the challenges whose time is up, then move the ended games whose time in Redis is
    up to the archive; answer how many fired. A
    timer whose firing fails (or a game not ready to move) keeps its lease and falls
    due again when the lease runs out; the others fire all the same."""
    fired = 0
    for kind, fire in FIRES.items():
        timers = claim.timers(kind)
        while chunk := timers.claim(claim.clock(), CHUNK, LEASE):
            try:  # into the store's cache, in one round trip
                claim.store.load_many([game_id for game_id, _ in chunk])
            except Exception:  # then each is loaded, and fails, on its own
                log.exception("the %s timers: loading a chunk of games failed", kind)
            for game_id, version in chunk:
                try:
                    fire(claim, game_id, version)
                except Exception:
                    log.exception("game %s: the %s timer failed", game_id, kind)
                    continue
                fired += 1
    while chunk := claim.challenge_timers.claim(claim.clock(), CHUNK, LEASE):
        for challenge_id, version in chunk:
            try:
                challenges.expire(claim, challenge_id, version)
            except Exception:
                log.exception("challenge %s: its timer failed", challenge_id)
                continue
            fired += 1
    while chunk := claim.archives.claim(claim.clock(), CHUNK, LEASE):
        try:
            moved = len(archiving.archive(claim, [game_id for game_id, _ in chunk]).archived)
        except Exception:
            log.exception("the archive timers: moving a chunk of games failed")
            break
        fired += moved
        if not moved:  # what was left comes back when its lease ends, not in a tight loop
            break
    return fired


@use_case
def sweep(claim: Claim) -> list[str]:
    """Enqueue again every AI turn waiting for longer than `Config.stuck_after` whose
    job is in no queue; answer the games' ids."""
    return turns.sweep(claim, claim.config.stuck_after)


@use_case
def deliver(
    claim: Claim, channel: str, notice: notifications.Notice, attempt: int = 1
) -> Delivery | None:
    """Send `notice` by `channel` (see `notifications.deliver`)."""
    return notifications.deliver(claim, channel, notice, attempt)
