"""The RQ jobs. Each carries ids only: `(game id, version)`, and for a notification the
kind, the player and the channel. A job does its work through the event store (a
no-op if the game moved on), then schedules what the game waits for next."""

from __future__ import annotations

from rq import get_current_job

from service.events import GameStore

from . import deadlines, notifications, queues, timers, turns
from .changes import after_change

_stores: dict[tuple[int, str], GameStore] = {}


def _store() -> GameStore:
    """The store of the job's connection: one per connection and key prefix, so that
    the jobs a worker runs in its process share the store's fold cache."""
    job = get_current_job()
    if job is None:
        return queues.store()
    key = (id(job.connection), queues.prefix())
    if key not in _stores:
        _stores[key] = queues.store(job.connection)
    return _stores[key]


def ai_turn(game_id: str, version: int) -> int | None:
    """Play the AI turn of `game_id` at `version`."""
    store = _store()
    appended = turns.play_turn(store, game_id, version)
    _schedule_next(store, game_id, version)
    return appended


def timer(kind: str) -> int:
    """Fire every due timer of `kind` (`deadlines` or `reminders`); answer how many."""
    store = _store()
    queue = queues.queue(queues.DEADLINES, store.redis, store.prefix)
    return timers.fire_due(store, queue, kind, FIRES[kind])


def _deadline(store: GameStore, game_id: str, version: int) -> None:
    """Apply the timeout policy of `game_id` if its deadline at `version` has passed,
    and set its timer anew (with the rest of what the game waits for, if it moved on:
    by this, or by a change whose own scheduling was cut off)."""
    expired = deadlines.expire(store, game_id, version)
    game = store.load(game_id, expired)  # at the version it appended: no round trip
    if game.version != version:
        after_change(store, game, timer_fired=True)
    else:  # not due yet: an early or a stale timer
        queue = queues.queue(queues.DEADLINES, store.redis, store.prefix)
        deadlines.schedule(queue, store, game, reset=True)


def _schedule_next(store: GameStore, game_id: str, version: int) -> None:
    """Schedule what the game waits for now, if it moved on from `version` (by this
    job, or by an earlier run of it that failed before scheduling)."""
    game = store.load(game_id)
    if game.version != version:
        after_change(store, game)


FIRES = {deadlines.KIND: _deadline, notifications.REMINDERS: notifications.remind}


def deliver(
    channel: str,
    kind: str,
    game_id: str,
    version: int,
    player_id: str,
    new_game_id: str | None = None,
) -> str | None:
    """Send one notification by `channel` ("webhook" or "email"); answer the outcome.
    Raises when the attempt failed, so that RQ tries again later."""
    job = get_current_job()
    retries_left = job.retries_left if job else None
    attempt = 1 if retries_left is None else notifications.RETRY.max - retries_left + 1
    notice = notifications.Notice(kind, game_id, version, player_id, new_game_id)
    delivery = notifications.deliver(_store(), channel, notice, attempt)
    return None if delivery is None else delivery.outcome
