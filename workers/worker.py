"""`claim worker`: an RQ worker on the queues `ai`, `deadlines` and `webhooks`, with
a scheduler, and a sweeper thread that enqueues again AI turns and timers (deadlines,
reminders) whose jobs were lost.

The worker runs its jobs in its own process (RQ's `SimpleWorker`): our jobs are short
and share no state but the store's fold cache, so a fork per job would only cost
time (it was most of a deadline job's). Its scheduler is RQ's, made prompt: it moves
due jobs to their queues every 0.1 s instead of every second, all of them instead of
1,000 per queue and run.
"""

from __future__ import annotations

import logging
import threading
import time

from rq import SimpleWorker
from rq.scheduler import RQScheduler

from service.events import connect

from . import deadlines, notifications, queues, timers, turns

log = logging.getLogger(__name__)
SWEEP_EVERY = 10.0  # seconds between sweeps
STUCK_AFTER = 30.0  # seconds an AI turn or a due timer may wait before it is enqueued again
SCHEDULE_EVERY = 0.1  # seconds between two runs of the scheduler


class PromptScheduler(RQScheduler):
    """RQ's scheduler, but every `SCHEDULE_EVERY` seconds, and until no job is due."""

    def work(self) -> None:
        """RQ's loop with a shorter sleep (its `interval`, whole seconds, is also the
        lifetime of its locks: that stays)."""
        self._install_signal_handlers()
        self.register_birth()
        while not self._stop_requested:
            if self.should_reacquire_locks:
                self.acquire_locks()
            self.heartbeat()
            self.enqueue_scheduled_jobs()
            time.sleep(SCHEDULE_EVERY)
        self.stop()

    def enqueue_scheduled_jobs(self) -> None:
        """RQ moves at most 1,000 due jobs of each queue a run: run until none is due."""
        while True:
            super().enqueue_scheduled_jobs()
            second = int(time.time())
            if not any(
                registry.get_jobs_to_schedule(second, chunk_size=1)
                for registry in self._scheduled_job_registries
            ):
                return


class Worker(SimpleWorker):
    """RQ's `SimpleWorker` (no fork per job) with `PromptScheduler`."""

    def _start_scheduler(
        self, burst: bool = False, logging_level: str | None = "INFO", *formats: str
    ) -> None:
        """RQ's own, with `PromptScheduler` in place of `RQScheduler`."""
        self.scheduler = PromptScheduler(
            self.queues,
            self.connection,
            1,
            logging_level or self.log.level,
            *formats,
            serializer=self.serializer,
        )
        self.scheduler.acquire_locks()
        if not self.scheduler.acquired_locks:
            return
        if not burst:
            self.scheduler.start()
            return
        try:
            self.scheduler.register_birth()
            self.scheduler.enqueue_scheduled_jobs()
        finally:
            self.scheduler.release_locks()
            self.scheduler.register_death()


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
                for kind in (deadlines.KIND, notifications.REMINDERS):
                    timers.sweep(store, due, kind, stuck_after)
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
