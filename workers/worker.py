"""`claim worker`: RQ's own `Worker` on the queues `ai` and `webhooks`, with RQ's own
scheduler (it moves retried jobs back to their queues), and a clock thread that fires
the timers falling due and sweeps for lost AI turns.

RQ is used through its public API only. Its `Worker` forks a work horse per job, as
RQ's documentation advises for production (a job that crashes or leaks takes only its
horse with it). The timers are not RQ scheduled jobs: RQ's scheduler keeps a job's
time in whole seconds and looks once a second, so a deadline could wait two seconds
for it. Every worker instead polls the due timers every `TICK` and claims them a chunk
at a time (`service.games.fire_due_timers`), so that many falling due at once are
shared among the workers, and a timer whose worker died falls due again when its
lease runs out: no job is there to be lost.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time

from rq import Worker

from service import games
from service.config import Config
from service.runtime.processes import end_surely_with_parent, ending_with_this_process

from . import jobs

log = logging.getLogger(__name__)
TICK = 0.1  # seconds between two looks at the due timers
UNAVAILABLE_TICK = 1.0  # the same while the store does not answer
# Seconds a worker whose `claim serve` died has to end by itself (RQ's warm stop lets
# the job under way finish) before it is killed.
ORPHAN_GRACE = 10.0


def keep_time(claim: games.Claim, stop: threading.Event) -> None:
    """Until `stop` is set: fire the due timers every `TICK`, and sweep for lost AI
    turns every `Config.sweep_every` seconds (one worker of all in each period)."""
    every = claim.config.sweep_every
    next_sweep = time.monotonic() + every
    unavailable = False  # told once an outage, not ten times a second
    while not stop.wait(UNAVAILABLE_TICK if unavailable else TICK):
        try:
            games.fire_due_timers(claim)
            if time.monotonic() >= next_sweep:
                next_sweep = time.monotonic() + every
                if claim.ai_turns.take_sweep(every * 0.9):
                    games.sweep(claim)
            if unavailable:
                log.warning("the store answers again: firing the timers")
            unavailable = False
        except games.StoreUnavailable as error:
            if not unavailable:
                log.warning("the clock thread waits for the store: %s", error)
            unavailable = True
        except Exception:  # tried again at the next tick
            log.exception("the clock thread failed")


def run(config: Config, burst: bool = False) -> int:
    """Work until stopped (or, with `burst`, fire the due timers, then work until the
    queues are empty)."""
    end_surely_with_parent(ORPHAN_GRACE)
    claim = games.Claim.connect(config)
    try:
        games.health(claim)
    except games.StoreUnavailable as error:
        where = "REDIS_URL" if config.redis_url else "the embedded Redis of `claim serve` here"
        print(f"claim worker: no Redis ({where}): {error}", file=sys.stderr)
        return 1
    jobs.use(claim)  # the work horses, forked from this process, use it
    # RQ's scheduler and work horses are forked from here: they end when this does.
    os.register_at_fork(after_in_child=ending_with_this_process())
    if burst:  # RQ's scheduler moves the due retries once, then the queues are emptied
        games.fire_due_timers(claim)
        worker = Worker(claim.jobs.queues, connection=claim.jobs.connection)
        worker.work(burst=True, with_scheduler=True)
        return 0
    stop = threading.Event()
    # A Claim of its own, so that a horse forked while the thread uses Redis inherits
    # no connection or lock in the middle of a command.
    clock = threading.Thread(
        target=keep_time, args=(games.Claim.connect(config), stop), daemon=True
    )
    clock.start()
    try:
        Worker(claim.jobs.queues, connection=claim.jobs.connection).work(with_scheduler=True)
    finally:
        stop.set()
    return 0
