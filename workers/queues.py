"""The queues, named after the key prefix shared with the API (`CLAIM_PREFIX`)."""

from __future__ import annotations

import os

import redis
from rq import Queue, Retry

from service.events import GameStore, connect

AI = "ai"
DEADLINES = "deadlines"
WEBHOOKS = "webhooks"
DEFAULT_PREFIX = "claim"
RETRY = Retry(max=5, interval=[1, 2, 4, 8, 16])  # AI turns and deadlines: seconds


def prefix() -> str:
    return os.environ.get("CLAIM_PREFIX", DEFAULT_PREFIX)


def queue_name(name: str, key_prefix: str) -> str:
    """`ai`, `deadlines`, `webhooks`; prefixed when the keys are (tests use one each)."""
    return name if key_prefix == DEFAULT_PREFIX else f"{key_prefix}.{name}"


def queue(name: str, connection: redis.Redis, key_prefix: str) -> Queue:
    return Queue(queue_name(name, key_prefix), connection=connection)


def store(connection: redis.Redis | None = None) -> GameStore:
    """The game store of this process: `REDIS_URL` (else embedded), `CLAIM_PREFIX`."""
    return GameStore(connection or connect(), prefix())


AGAIN = "-again"  # the end of the id of a job that a sweep enqueued again


def waits(queued: frozenset[str], job_id: str) -> bool:
    """Whether the job, or the copy a sweep enqueued again, is among `queued`."""
    return job_id in queued or job_id + AGAIN in queued


def queued(queue: Queue) -> frozenset[str]:
    """The ids of the jobs in the queue: not lost, only not run yet, so a sweep need
    not add another copy to a backlog. (A job's status alone does not tell: a worker
    killed just after taking a job from the queue leaves it `queued` but nowhere.)"""
    return frozenset(queue.get_job_ids())
