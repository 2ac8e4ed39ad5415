"""AI turns: deciding and appending an AI seat's move, scheduling it, and the sweep
for turns whose job was lost."""

from __future__ import annotations

import logging
import random
import uuid

from rq import Queue

from service import ai
from service.domain import Decision, observe
from service.events import AI, TAKEOVER, DecisionMade, Game, GameStore, StaleVersion

from . import queues

log = logging.getLogger(__name__)
# A turn's event id is derived from the game and the version it is decided at, so the
# same turn decided twice (a retried or doubled job) is appended once.
TURNS = uuid.UUID("0d3e8c53-59c8-4c1a-8a55-7b2a3d4c9f60")


def turn_id(game_id: str, version: int) -> uuid.UUID:
    return uuid.uuid5(TURNS, f"{game_id}/{version}")


def play_turn(store: GameStore, game_id: str, version: int) -> int | None:
    """Decide and append the AI's move of `game_id` at `version`; answer the new
    version, or None if there was nothing to do (the game moved on, or no AI acts)."""
    game = store.load(game_id)
    seat = game.acting_ai
    if game.version != version or seat is None:
        return None
    spec = game.seats[seat]
    decision = decide(game, seat, spec.ai_level)
    policy = None if spec.kind == AI else f"{TAKEOVER}:{spec.takeover}"
    try:
        return store.append(
            game_id,
            [DecisionMade(seat, decision, timeout_policy=policy)],
            version,
            ids=[turn_id(game_id, version)],
        )
    except StaleVersion:
        return None  # someone else acted at this version: nothing left to do


def decide(game: Game, seat: int, level: str) -> Decision:
    """The decision of an AI of `level` for `seat` now, from the seat's observation;
    seeded by the turn, so that a doubled job decides the same move."""
    rng = random.Random(f"{game.id}/{game.version}")
    return ai.player(level)(observe(game.state, seat), rng)


def waiting_key(store: GameStore) -> str:
    """The games waiting on an AI seat, scored by when they began to wait: a
    projection of the streams, for the sweep."""
    return f"{store.prefix}:{{turns}}:ai"


def schedule(
    queue: Queue, store: GameStore, game: Game, queued: frozenset[str] | None = None
) -> str | None:
    """Enqueue the AI turn of `game` if an AI decides now; answer the job id.

    `queued` (the job ids in the queue), for a retry: the turn's first job was lost;
    enqueue another (unless one is in `queued`) and wait as long again before the
    next retry.
    """
    if game.acting_ai is None:
        if game.ai_may_act:  # else it never waited on an AI: a round trip saved a move
            store.redis.zrem(waiting_key(store), game.id)
        return None
    job_id = f"ai-{game.id}-{game.version}"  # RQ job ids hold no ':'
    since = game.updated_at
    if queued is not None:
        if queues.waits(queued, job_id):
            return None
        job_id += queues.AGAIN
        since = store.clock()
    store.redis.zadd(waiting_key(store), {game.id: since.timestamp()})
    queue.enqueue(
        "workers.jobs.ai_turn",
        game.id,
        game.version,
        job_id=job_id,
        retry=queues.RETRY,
        result_ttl=60,
    )
    return job_id


def sweep(queue: Queue, store: GameStore, stuck_after: float) -> list[str]:
    """Enqueue again the turn of every game waiting on an AI for more than
    `stuck_after` seconds (its job was lost); answer their ids."""
    due = store.clock().timestamp() - stuck_after
    again = []
    stuck = store.redis.zrangebyscore(waiting_key(store), "-inf", due)
    queued = queues.queued(queue) if stuck else frozenset()
    for raw in stuck:
        game = store.load(raw.decode())
        if schedule(queue, store, game, queued):
            log.warning("game %s: AI turn at version %s enqueued again", game.id, game.version)
            again.append(game.id)
    return again
