"""`claim worker`: RQ's own `Worker` on the queues `ai` (the AI levels that search
nothing: random, greedy) and `webhooks`, served in that order, with RQ's own scheduler
(it moves retried jobs back to their queues), a clock thread that fires the timers
falling due and sweeps for lost AI turns, and a heartbeat thread that says every two
seconds that the worker is alive (`/readyz` counts them). It plays from its first
second. Beside it, forked from it before its threads start, the expert lane: it loads
the expert's compiled search (numba compiles it at a first start, about a minute, then
loads it from its cache in a second), and only then serves `ai-expert` with an RQ
`Worker` of its own and says so by a heartbeat of its own (`/readyz`: `expert`
`loading`, then `ready`). Forked from the expert lane once it has loaded, the analysis
lane: another RQ `Worker` on the queues `analysis` and `analysis-others`, at the lowest
CPU priority (`ANALYSIS_NICE`), so that an analysis (seconds of a core) never holds up
an AI turn (a fraction of a second), neither in the queue nor for a core
(`bench/ai_turns.py --analyses 50`). Each lane ends with the process that forked it,
and that one stops when a lane ends by itself (its supervisor starts them all again).
With `--burst`, the expert is loaded first and one `Worker` serves every queue.

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
from collections.abc import Callable

import redis
import rq

from service import ai, games
from service.config import Config
from service.games.jobs import BEAT, EXPERTS, WORKERS
from service.runtime.processes import end_surely_with_parent, forks_end_with_their_parent

from . import jobs

log = logging.getLogger(__name__)
TICK = 0.1  # seconds between two looks at the due timers
UNAVAILABLE_TICK = 1.0  # the same while the store does not answer
# Seconds a worker whose `claim serve` died has to end by itself (RQ's warm stop lets
# the job under way finish) before it is killed.
ORPHAN_GRACE = 10.0
ANALYSIS_NICE = 19  # the analysis lane's: a core it shares with an AI turn goes to the turn
LANE_GRACE = 60.0  # seconds a lane has to finish its job under way once asked to stop


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


def keep_alive(queues: games.Jobs, name: str, stop: threading.Event, role: str = WORKERS) -> None:
    """Until `stop` is set: say every `BEAT` seconds that the worker `name` is alive
    (in `role`: a worker, or its expert lane)."""
    while True:
        try:
            queues.beat(name, role)
        except redis.RedisError:
            pass  # the clock thread tells of the outage; the heartbeat runs out meanwhile
        except Exception:  # tried again at the next beat
            log.exception("the heartbeat failed")
        if stop.wait(BEAT):
            return


def load_the_expert() -> bool:
    """Load the expert's compiled search once, before the work horses fork (numba
    compiles it at the first start, then loads it from its cache), and say so. False,
    said, when numba has nowhere to keep its cache."""
    print(
        "claim worker: loading the expert's compiled search; random and greedy play meanwhile"
        " (a first start compiles it: about a minute)",
        file=sys.stderr,
        flush=True,
    )
    start = time.monotonic()
    try:
        ai.warm()
    except RuntimeError as error:
        if "cannot cache function" not in str(error):
            raise
        print(
            "claim worker: numba has no directory to cache the expert's compiled search"
            f" in ({error}): let this user write in {pathlib.Path(ai.__file__).parent}"
            "/__pycache__, or set NUMBA_CACHE_DIR to a directory it may write",
            file=sys.stderr,
        )
        return False
    print(
        f"claim worker: the expert plays, its search loaded in {time.monotonic() - start:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    return True


class PromptStop:
    """RQ's worker with its thread of commands (RQ's pubsub) looking every second, not
    every minute: with redis-py 8.2, a stop that comes as that thread reads the answer
    to its own unsubscribe waited the rest of the minute (a worker's stop, a burst's
    end), and a lane stopped so was killed at `LANE_GRACE`."""

    def subscribe(self) -> None:
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(
            sleep_time=1, daemon=True, exception_handler=self._pubsub_exception_handler
        )


class Worker(PromptStop, rq.Worker):
    """RQ's `Worker` (a work horse forked per job), stopping promptly."""


class SimpleWorker(PromptStop, rq.SimpleWorker):
    """RQ's `SimpleWorker` (jobs run in this process: the tests'), stopping promptly."""


class Lane:
    """A process forked from the worker (or from a lane) to serve queues of its own,
    ending with the process that forked it; that one watches it (`watch`) and stops it
    (`stop`)."""

    def __init__(self, name: str, pid: int):
        self.name = name
        self.pid = pid
        self.ended = threading.Event()
        self.failed = False  # it ended without being asked to

    @classmethod
    def start(cls, name: str, serve: Callable[[], int]) -> Lane:
        """Fork the lane `name`, which runs `serve()` and exits with what it answers,
        ending with this process (`forks_end_with_their_parent`). (Before this process's
        threads start: no lock of theirs is held at the fork.)"""
        pid = os.fork()
        if pid:
            return cls(name, pid)
        status = 1
        try:
            end_surely_with_parent(ORPHAN_GRACE)
            status = serve()
        except BaseException:
            log.exception("the %s failed", name)
        finally:
            os._exit(status)

    def watch(self, stop: threading.Event) -> None:
        """Wait for the lane to end (on a thread of its own): if this process has not
        been asked to stop, it stops too."""
        os.waitpid(self.pid, 0)
        self.ended.set()
        if not stop.is_set():
            self.failed = True
            log.error("the %s ended: the worker stops", self.name)
            os.kill(os.getpid(), signal.SIGTERM)

    def stop(self) -> None:
        """Ask the lane to stop after its job under way; kill it if it has not within
        `LANE_GRACE`."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)
            if not self.ended.wait(LANE_GRACE):
                os.kill(self.pid, signal.SIGKILL)


def serve(
    claim: games.Claim,
    queues: list,
    lane: Lane | None = None,
    role: str | None = None,
    clock: bool = False,
) -> int:
    """Serve `queues` with RQ's `Worker` until stopped, watching `lane` (forked from
    here before); with `role`, beat in it; with `clock`, fire the timers too. Answer
    1 if the lane ended by itself, else 0."""
    stop = threading.Event()
    if lane is not None:
        threading.Thread(target=lane.watch, args=(stop,), daemon=True).start()
    worker = Worker(queues, connection=claim.jobs.connection)
    # A Claim of the threads' own, so that a horse forked while one of them uses Redis
    # inherits no connection or lock in the middle of a command.
    background = games.Claim.connect(claim.config)
    if clock:
        threading.Thread(target=keep_time, args=(background, stop), daemon=True).start()
    beat = (background.jobs, worker.name, stop, role)
    heartbeat = threading.Thread(target=keep_alive, args=beat, daemon=True)
    if role is not None:
        heartbeat.start()
    try:
        worker.work(with_scheduler=True)
    finally:
        stop.set()
        if lane is not None:
            lane.stop()
        if role is not None:
            heartbeat.join()  # its last beat before it is taken back
            with contextlib.suppress(redis.RedisError):  # else the heartbeat runs out
                background.jobs.stopped(worker.name, role)
    return 1 if lane is not None and lane.failed else 0


def expert_lane(claim: games.Claim) -> int:
    """The expert lane: load the expert's search, fork the analysis lane (which needs
    it too), then serve the expert's turns."""
    if not load_the_expert():
        return 1

    def analyse() -> int:
        os.nice(ANALYSIS_NICE)
        return serve(claim, claim.jobs.analysis_queues)

    analysis = Lane.start("analysis lane", analyse)
    return serve(claim, [claim.jobs.expert_ai], analysis, role=EXPERTS)


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
    jobs.use(claim)  # the work horses, forked from this process or a lane, use it
    # The lanes, RQ's schedulers and work horses: each ends when what forked it does.
    forks_end_with_their_parent()
    if burst:  # RQ's scheduler moves the due retries once, then the queues are emptied
        if not load_the_expert():
            return 1
        games.fire_due_timers(claim)
        Worker(claim.jobs.queues, connection=claim.jobs.connection).work(
            burst=True, with_scheduler=True
        )
        return 0
    lane = Lane.start("expert lane", lambda: expert_lane(claim))
    return serve(claim, claim.jobs.turn_queues, lane, role=WORKERS, clock=True)
