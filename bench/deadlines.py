"""Deadlines falling due together: how soon every game gets its timeout.

    .venv/bin/python bench/deadlines.py [--games 10000] [--workers 1,4] [--move-time S]
                                        [--sweep-every 10] [--stuck-after 30]
                                        [--give-up 900]

Uses REDIS_URL if set, else an embedded Redis in a temporary directory. Every key it
writes starts with a prefix of its own; those keys, and RQ's keys of its queues, jobs
and workers, are deleted at the end, also on Ctrl-C.

For each worker count, on a fresh prefix: create `--games` games of two human seats
with a move time limit and the timeout policy `forfeit` (so each game gets exactly one
`TurnTimedOut`, and then it is over); join both seats of every game (one `SeatJoined`
append each, as fast as one process can: the joins start the clock, so the deadlines
are spread over the time the joins take); schedule every deadline as the API does
(`workers.changes.after_change`). The move time is chosen so that all this ends before
the first deadline. Then start that many `claim worker` processes, and watch the
games' due set (a projection the deadline job empties) until every game has timed
out. Delay of a game = its `TurnTimedOut` event's `at` minus its deadline.
Target: p99 under 2 s with 4 workers.

Prints, per worker count: the time from the first deadline to the last timeout, the
timeouts per second, the delay p50 / p99 / max, and the timer jobs that ran: all of
them, the helpers among them (enqueued by a job that claimed a whole chunk) and the
sweep's.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import datetime

import redis
from common import descendants, redis_url
from tqdm import tqdm

from service.domain import PRESETS, Settings
from service.events import HUMAN, GameStore, SeatJoined, SeatSpec
from workers import deadlines, queues
from workers.changes import after_change

POLICY = "forfeit"
TOKEN_HASH = "ab" * 32
JOINED = 3  # the version after the joins: created 1, joined 2 and 3
TIMED_OUT_AT = JOINED + 1
CHUNK = 1000  # keys per pipeline or DEL
# The move time runs from a game's joins: it leaves room for the joins of the others
# and the scheduling (about 1 ms and 1 to 1.7 ms a game, one process and a local
# Redis, twice that on a busy machine), and for the workers' start after them.
SET_UP_SECONDS_PER_GAME = 0.005
WORKER_START_SECONDS = 5


@dataclass(frozen=True, slots=True)
class Outcome:
    """One run: seconds throughout."""

    workers: int
    spread: float  # last deadline minus first
    cleared: float  # last timeout minus first deadline
    per_second: float  # timeouts per second, first to last timeout
    delays: tuple[float, ...]  # sorted, one per game that timed out
    missing: int  # games without a timeout when the run gave up
    jobs: int  # timer jobs run, or still queued when the run ended
    helpers: int  # of them, enqueued by a job that claimed a whole chunk
    swept: int  # of them, enqueued by the sweep
    load: float  # the machine's load average (1 minute) at the end


def set_up(store: GameStore, games: int, move_time: int) -> dict[str, float]:
    """Create, join and schedule `games` games; answer their deadlines (Unix time)."""
    settings = Settings(2, PRESETS["claim"])
    seats = [SeatSpec(HUMAN)] * 2
    ids = [
        store.create(settings, seats, move_time_limit=move_time, timeout_policy=POLICY).id
        for _ in tqdm(range(games), desc="create", unit="game", file=sys.stderr, leave=False)
    ]
    joins = [SeatJoined(0, "Ann", TOKEN_HASH), SeatJoined(1, "Bo", TOKEN_HASH)]
    for game_id in tqdm(ids, desc="join", unit="game", file=sys.stderr, leave=False):
        store.append(game_id, joins, 1)
    due = {}
    for game_id in tqdm(ids, desc="schedule", unit="game", file=sys.stderr, leave=False):
        game = store.load(game_id)
        after_change(store, game)  # as the API does after the last join
        due[game_id] = game.deadline.timestamp()
    return due


def start_workers(
    url: str, prefix: str, count: int, args: argparse.Namespace
) -> list[subprocess.Popen]:
    """`count` processes of `claim worker`."""
    env = {**os.environ, "REDIS_URL": url, "CLAIM_PREFIX": prefix}
    command = [sys.executable, "-m", "service.cli", "worker"]
    command += ["--sweep-every", str(args.sweep_every), "--stuck-after", str(args.stuck_after)]
    return [
        subprocess.Popen(
            command,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C reaches the bench only, which stops them
        )
        for _ in range(count)
    ]


def stop_workers(processes: list[subprocess.Popen]) -> None:
    """SIGTERM (RQ's warm shutdown), then `kill -9` whatever is left, work horses too."""
    for process in processes:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            for pid in [*descendants(process.pid), process.pid]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            process.wait()


def wait_for_timeouts(
    store: GameStore, processes: list[subprocess.Popen], first_deadline: float, give_up: float
) -> None:
    """Watch the due set (a game leaves it once its timeout is appended) until it is
    empty or `give_up` seconds after the first deadline."""
    queue = queues.queue_name(queues.DEADLINES, store.prefix)
    while store.redis.scard(f"rq:workers:{queue}") < len(processes):
        if any(process.poll() is not None for process in processes):
            raise SystemExit("a worker stopped")
        time.sleep(0.05)
    if time.time() > first_deadline:
        print("warning: the workers started after the first deadline", file=sys.stderr)
    due = deadlines.due_key(store)
    total = store.redis.zcard(due)
    desc = f"{len(processes)} worker{'s' * (len(processes) > 1)}"
    with tqdm(total=total, desc=desc, unit="game", file=sys.stderr) as bar:
        while left := store.redis.zcard(due):
            bar.update(total - left - bar.n)
            if time.time() > first_deadline + give_up:
                print(f"\ngave up with {left} games left", file=sys.stderr)
                return
            if any(process.poll() is not None for process in processes):
                raise SystemExit("a worker stopped")
            time.sleep(0.1)
        bar.update(total - bar.n)


def measure(store: GameStore, workers: int, due: dict[str, float]) -> Outcome:
    """Read each game's timeout, and count the timer jobs."""
    ids = list(due)
    timed_out = {}
    for at in range(0, len(ids), CHUNK):
        chunk = ids[at : at + CHUNK]
        with store.redis.pipeline(transaction=False) as pipe:
            for game_id in chunk:
                version = f"{TIMED_OUT_AT}-0"
                pipe.xrange(store.key(game_id, "events"), version, version)
            replies = pipe.execute()
        for game_id, entries in zip(chunk, replies, strict=True):
            if entries and entries[0][1][b"type"] == b"TurnTimedOut":
                timed_out[game_id] = datetime.fromisoformat(entries[0][1][b"at"].decode())
    delays = sorted(timed_out[g].timestamp() - due[g] for g in timed_out)
    first_deadline = min(due.values())
    stamps = sorted(at.timestamp() for at in timed_out.values()) or [first_deadline]
    queue = queues.queue(queues.DEADLINES, store.redis, store.prefix)
    job_ids = [*queue.finished_job_registry.get_job_ids(), *queue.get_job_ids()]
    return Outcome(
        workers=workers,
        spread=max(due.values()) - first_deadline,
        cleared=stamps[-1] - first_deadline,
        per_second=len(stamps) / (stamps[-1] - stamps[0]) if len(stamps) > 1 else math.nan,
        delays=tuple(delays),
        missing=len(due) - len(timed_out),
        jobs=len(job_ids),
        helpers=sum("-more-" in job_id for job_id in job_ids),
        swept=sum("-sweep-" in job_id for job_id in job_ids),
        load=os.getloadavg()[0],
    )


def percentile(values: tuple[float, ...], fraction: float) -> float:
    """Nearest rank of sorted `values`; NaN if there are none."""
    if not values:
        return math.nan
    return values[max(0, math.ceil(fraction * len(values)) - 1)]


def run(url: str, prefix: str, workers: int, move_time: int, args: argparse.Namespace) -> Outcome:
    """One worker count on a fresh prefix, its keys deleted afterwards."""
    connection = redis.Redis.from_url(url)
    store = GameStore(connection, prefix, cache_size=args.games)
    try:
        due = set_up(store, args.games, move_time)
        first = min(due.values())
        print(
            f"{workers} worker(s): {args.games} games set up; deadlines from"
            f" {first - time.time():+.1f} s to {max(due.values()) - time.time():+.1f} s",
            file=sys.stderr,
        )
        processes = start_workers(url, prefix, workers, args)
        try:
            wait_for_timeouts(store, processes, first, args.give_up)
        finally:
            stop_workers(processes)
        return measure(store, workers, due)
    finally:
        delete_keys(connection, prefix)
        connection.close()


def delete_keys(connection: redis.Redis, prefix: str) -> None:
    """Delete the keys that start with `prefix`, and RQ's keys of its queues (named
    after it), of its games' jobs, and of the workers and schedulers on its queues."""
    mine = list(connection.scan_iter(match=f"{prefix}*", count=CHUNK))
    games = {m[1] for key in mine if (m := re.search(rb":game:\{([0-9a-z]+)\}:", key))}
    job = re.compile(rb"ai-([0-9a-z]+)-")
    members = []  # of the set of all workers
    for key in connection.scan_iter(match="rq:*", count=CHUNK):
        if prefix.encode() in key or ((m := job.search(key)) and m[1] in games):
            mine.append(key)
        elif key.startswith((b"rq:worker:", b"rq:scheduler:")):
            with contextlib.suppress(redis.ResponseError):  # not a hash: not a worker's
                if prefix.encode() in (connection.hget(key, "queues") or b""):
                    mine.append(key)
                    members.append(key)
    for at in range(0, len(mine), CHUNK):
        connection.delete(*mine[at : at + CHUNK])
    if members:
        connection.srem("rq:workers", *members)
    names = [name for name in connection.smembers("rq:queues") if prefix.encode() in name]
    if names:
        connection.srem("rq:queues", *names)


def report(outcomes: list[Outcome], games: int, move_time: int, args: argparse.Namespace) -> None:
    print(
        f"{games} games of 2 human seats, timeout policy {POLICY}, move time {move_time} s;"
        f" claim worker --sweep-every {args.sweep_every} --stuck-after {args.stuck_after}"
        f"; {os.cpu_count()} CPUs"
    )
    print(
        f"{'workers':>7} {'spread s':>8} {'cleared s':>9} {'timeouts/s':>10}"
        f" {'p50 s':>6} {'p99 s':>6} {'max s':>6} {'missing':>7} {'jobs':>5} {'helpers':>7}"
        f" {'swept':>5} {'load':>5}"
    )
    for o in outcomes:
        print(
            f"{o.workers:>7} {o.spread:>8.1f} {o.cleared:>9.1f} {o.per_second:>10,.0f}"
            f" {percentile(o.delays, 0.5):>6.2f} {percentile(o.delays, 0.99):>6.2f}"
            f" {percentile(o.delays, 1.0):>6.2f} {o.missing:>7} {o.jobs:>5} {o.helpers:>7}"
            f" {o.swept:>5} {o.load:>5.1f}"
        )
    print("target: p99 under 2 s with 4 workers")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--workers", default="1,4", help="worker counts, one run each")
    parser.add_argument(
        "--move-time", type=int, help="seconds (default: enough for the set-up to end first)"
    )
    parser.add_argument("--sweep-every", type=float, default=10.0, help="claim worker's")
    parser.add_argument("--stuck-after", type=float, default=30.0, help="claim worker's")
    parser.add_argument(
        "--give-up", type=float, default=900, help="seconds after the first deadline"
    )
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]
    move_time = args.move_time or WORKER_START_SECONDS + math.ceil(
        args.games * SET_UP_SECONDS_PER_GAME
    )
    prefix = f"bench-{uuid.uuid4().hex[:12]}"
    with redis_url() as url:
        try:
            outcomes = [run(url, f"{prefix}-w{n}", n, move_time, args) for n in counts]
        except KeyboardInterrupt:
            raise SystemExit("interrupted; its keys are deleted") from None
        finally:
            delete_keys(redis.Redis.from_url(url), prefix)
    report(outcomes, args.games, move_time, args)


if __name__ == "__main__":
    main()
