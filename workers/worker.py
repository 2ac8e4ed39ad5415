"""`claim worker`: RQ's own `Worker` on the queues `ai` and `webhooks` (served in that
order), with RQ's own scheduler (it moves retried jobs back to their queues), a clock
thread that fires the timers falling due and sweeps for lost AI turns, and a heartbeat
thread that says every two seconds that the worker is alive (`/readyz` counts them).
Beside it, forked from it, the analysis lane: another RQ `Worker` on the queues
`analysis` and `analysis-others`, at the lowest CPU priority (`ANALYSIS_NICE`), so that
an analysis (seconds of a core) never holds up an AI turn (a fraction of a second),
neither in the queue nor for a core (`bench/ai_turns.py --analyses 50`). With
`--burst`, one `Worker` serves every queue.

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

import contextlib
import logging
import os
import pathlib
import signal
import sys
import threading
import time

import redis
from rq import Worker

from service import ai, games
from service.config import Config
from service.games.jobs import BEAT
from service.runtime.processes import (
    end_surely_with_parent,
    end_with_parent,
    ending_with_this_process,
)

from . import jobs

log = logging.getLogger(__name__)
TICK = 0.1  # seconds between two looks at the due timers
UNAVAILABLE_TICK = 1.0  # the same while the store does not answer
# Seconds a worker whose `claim serve` died has to end by itself (RQ's warm stop lets
# the job under way finish) before it is killed.
ORPHAN_GRACE = 10.0
ANALYSIS_NICE = 19  # the analysis lane's: a core it shares with an AI turn goes to the turn
LANE_GRACE = 60.0  # seconds the analysis lane has to finish its part once asked to stop


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


def keep_alive(queues: games.Jobs, name: str, stop: threading.Event) -> None:
    """Until `stop` is set: say every `BEAT` seconds that the worker `name` is alive."""
    while True:
        try:
            queues.beat(name)
        except redis.RedisError:
            pass  # the clock thread tells of the outage; the heartbeat runs out meanwhile
        except Exception:  # tried again at the next beat
            log.exception("the heartbeat failed")
        if stop.wait(BEAT):
            return


def load_the_expert() -> bool:
    """Load the expert's compiled rollouts once, before the work horses fork (numba
    compiles them at the first start, then loads them from its cache), and say so:
    the first start waits about a minute here. False, said, when numba has nowhere
    to keep its cache."""
    print("claim worker: loading the expert's compiled rollouts", file=sys.stderr, flush=True)
    start = time.monotonic()
    try:
        ai.warm()
    except RuntimeError as error:
        if "cannot cache function" not in str(error):
            raise
        print(
            "claim worker: numba has no directory to cache the expert's compiled rollouts"
            f" in ({error}): let this user write in {pathlib.Path(ai.__file__).parent}"
            "/__pycache__, or set NUMBA_CACHE_DIR to a directory it may write",
            file=sys.stderr,
        )
        return False
    print(
        f"claim worker: the expert's rollouts ready in {time.monotonic() - start:.1f} s"
        " (a first start compiles them: about a minute)",
        file=sys.stderr,
        flush=True,
    )
    return True


def start_analysis_lane(claim: games.Claim) -> int:
    """Fork the analysis lane: an RQ `Worker` of its own on the analysis queues, at
    the lowest CPU priority, ending with this process; answer its pid. (Before this
    process's threads start: no lock of theirs is held at the fork.)"""
    worker = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    status = 1
    try:
        end_with_parent(worker)
        end_surely_with_parent(ORPHAN_GRACE)
        os.register_at_fork(after_in_child=ending_with_this_process())  # its horses
        os.nice(ANALYSIS_NICE)
        lane = Worker(claim.jobs.analysis_queues, connection=claim.jobs.connection)
        lane.work(with_scheduler=True)
        status = 0
    except BaseException:
        log.exception("the analysis lane failed")
    finally:
        os._exit(status)


def watch_lane(pid: int, stop: threading.Event, ended: threading.Event) -> None:
    """Wait for the analysis lane to end: if the worker has not been asked to stop,
    stop it too (its supervisor starts both again)."""
    os.waitpid(pid, 0)
    ended.set()
    if not stop.is_set():
        log.error("the analysis lane ended: the worker stops")
        os.kill(os.getpid(), signal.SIGTERM)


def stop_lane(pid: int, ended: threading.Event) -> None:
    """Ask the analysis lane to stop after its part under way; kill it if it has not
    within `LANE_GRACE`."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
        if not ended.wait(LANE_GRACE):
            os.kill(pid, signal.SIGKILL)


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
    if not load_the_expert():  # ... and the expert's compiled rollouts
        return 1
    # The analysis lane, RQ's schedulers and work horses are forked from here: each
    # ends when the process that forked it does (the lane registers its own, first).
    lane = None if burst else start_analysis_lane(claim)
    os.register_at_fork(after_in_child=ending_with_this_process())
    if burst:  # RQ's scheduler moves the due retries once, then the queues are emptied
        games.fire_due_timers(claim)
        Worker(claim.jobs.queues, connection=claim.jobs.connection).work(
            burst=True, with_scheduler=True
        )
        return 0
    stop, lane_ended = threading.Event(), threading.Event()
    threading.Thread(target=watch_lane, args=(lane, stop, lane_ended), daemon=True).start()
    worker = Worker(claim.jobs.turn_queues, connection=claim.jobs.connection)
    # A Claim of the threads' own, so that a horse forked while one of them uses Redis
    # inherits no connection or lock in the middle of a command.
    background = games.Claim.connect(config)
    threading.Thread(target=keep_time, args=(background, stop), daemon=True).start()
    heartbeat = threading.Thread(
        target=keep_alive, args=(background.jobs, worker.name, stop), daemon=True
    )
    heartbeat.start()
    try:
        worker.work(with_scheduler=True)
    finally:
        stop.set()
        stop_lane(lane, lane_ended)
        heartbeat.join()  # its last beat before it is taken back
        with contextlib.suppress(redis.RedisError):  # else the heartbeat runs out
            background.jobs.stopped(worker.name)
    return 0
