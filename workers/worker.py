"""`claim worker`: an RQ worker on the queues `ai`, `deadlines` and `webhooks`, with
RQ's scheduler, and a sweeper thread that enqueues again AI turns and deadlines whose
jobs were lost."""

from __future__ import annotations

import logging
import threading

from rq import Worker

from service.events import connect

from . import deadlines, queues, turns

log = logging.getLogger(__name__)
SWEEP_EVERY = 10.0  # seconds between sweeps
STUCK_AFTER = 30.0  # seconds an AI turn or a due deadline may wait before it is enqueued again


def sweeper(stop: threading.Event, every: float = SWEEP_EVERY, stuck_after: float = STUCK_AFTER):
    """Sweep every `every` seconds until `stop` is set; one sweeper of all workers
    sweeps in each period (a Redis lock)."""
    store = queues.store()
    ai = queues.queue(queues.AI, store.redis, store.prefix)
    due = queues.queue(queues.DEADLINES, store.redis, store.prefix)
    lock = f"{store.prefix}:sweep-lock"
    while not stop.wait(every):
        try:
            if store.redis.set(lock, "1", nx=True, px=max(1, int(every * 900))):
                turns.sweep(ai, store, stuck_after)
                deadlines.sweep(due, store, stuck_after)
        except Exception:  # a sweep that fails is tried again next period
            log.exception("the sweep failed")


def run(burst: bool = False, every: float = SWEEP_EVERY, stuck_after: float = STUCK_AFTER) -> int:
    """Work until stopped (or, with `burst`, until the queues are empty)."""
    connection = connect()
    prefix = queues.prefix()
    names = [
        queues.queue_name(name, prefix) for name in (queues.AI, queues.DEADLINES, queues.WEBHOOKS)
    ]
    stop = threading.Event()
    thread = threading.Thread(target=sweeper, args=(stop, every, stuck_after), daemon=True)
    thread.start()
    try:
        Worker(names, connection=connection).work(with_scheduler=True, burst=burst)
    finally:
        stop.set()
    return 0
