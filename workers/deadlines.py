"""Move deadlines and join deadlines: RQ jobs scheduled for the moment time runs out.

A deadline job carries `(game id, version)`: if the game moved on, the deadline passed
with it and the job does nothing. Otherwise it appends, at that version and with event
ids derived from it (so a doubled job lands once), what the game's timeout policy says:
`TurnTimedOut` and, for `ai:<level>`, the AI's decision for the seat; a game still
open when its join time runs out is aborted. A sorted set of due deadlines (a
projection of the streams) lets the sweep catch jobs lost with a crashed worker.
"""

from __future__ import annotations

import logging
import math
import uuid
from datetime import UTC, datetime

from rq import Queue

from service.events import (
    AI_DECIDES,
    OPEN,
    DecisionMade,
    Game,
    GameAborted,
    GameStore,
    StaleVersion,
    TurnTimedOut,
    policy_parts,
)

from . import queues, turns

log = logging.getLogger(__name__)
DEADLINES = uuid.UUID("4b7f2d0e-8a41-4f5c-9f0b-2c6e1d8a7b35")
JOIN_EXPIRED = "seats not taken within the join time limit"


def due_key(store: GameStore) -> str:
    """Games by the moment their deadline falls due: a projection, for the sweep."""
    return f"{store.prefix}:{{deadlines}}:due"


def expire(store: GameStore, game_id: str, version: int) -> int | None:
    """Apply the game's timeout policy if its deadline at `version` has passed; answer
    the new version, or None when there was nothing to do."""
    game = store.load(game_id)
    deadline = game.deadline
    if game.version != version or deadline is None or store.clock() < deadline:
        return None
    if game.status == OPEN:
        events = [GameAborted(JOIN_EXPIRED)]
    else:
        seat, policy = game.state.to_act, game.creation.timeout_policy
        events = [TurnTimedOut(seat, policy)]
        mode, level = policy_parts(policy)
        if mode == AI_DECIDES:
            decision = turns.decide(game, seat, level)
            events.append(DecisionMade(seat, decision, timeout_policy=policy))
    ids = [uuid.uuid5(DEADLINES, f"{game_id}/{version}/{n}") for n in range(len(events))]
    try:
        return store.append(game_id, events, version, ids=ids)
    except StaleVersion:
        return None  # the seat moved just in time


def schedule(queue: Queue, store: GameStore, game: Game) -> str | None:
    """Schedule the job for the game's deadline, if it has one; answer the job id."""
    deadline = game.deadline
    if deadline is None:
        store.redis.zrem(due_key(store), game.id)
        return None
    store.redis.zadd(due_key(store), {game.id: deadline.timestamp()})
    job_id = f"deadline-{game.id}-{game.version}"
    # RQ keeps the time of a scheduled job in whole seconds, rounded down: a job at
    # the deadline itself could run too early, do nothing, and wait for the sweep.
    at = datetime.fromtimestamp(math.ceil(deadline.timestamp()), UTC)
    queue.enqueue_at(
        at, "workers.jobs.deadline", game.id, game.version, job_id=job_id, retry=queues.RETRY
    )
    return job_id


def sweep(queue: Queue, store: GameStore, late_after: float) -> list[str]:
    """Enqueue now the deadline of every game more than `late_after` seconds overdue
    (its scheduled job was lost); answer their ids."""
    late = store.clock().timestamp() - late_after
    again = []
    overdue = store.redis.zrangebyscore(due_key(store), "-inf", late)
    queued = queues.queued(queue) if overdue else frozenset()
    for raw in overdue:
        game = store.load(raw.decode())
        if game.deadline is None or game.deadline.timestamp() > late:
            # The game moved on, and what moved it failed before scheduling its next
            # deadline (or its end): do it now.
            schedule(queue, store, game)
            continue
        job_id = f"deadline-{game.id}-{game.version}"
        # Wait as long again before the next retry.
        store.redis.zadd(due_key(store), {game.id: store.clock().timestamp()})
        if queues.waits(queued, job_id):
            continue  # not lost: behind others in the queue
        log.warning("game %s: deadline overdue at version %s, enqueued", game.id, game.version)
        queue.enqueue(
            "workers.jobs.deadline",
            game.id,
            game.version,
            job_id=job_id + queues.AGAIN,
            retry=queues.RETRY,
        )
        again.append(game.id)
    return again
