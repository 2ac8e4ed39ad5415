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
are spread over the time the joins take); set every deadline timer as the API does
(`service.games.changed`). The move time is chosen so that all this ends before the
first deadline. Then start that many `claim worker` processes, and watch the games'
deadline timers (each game's is cleared once its timeout is appended) until every
game has timed out. Delay of a game = its `TurnTimedOut` event's `at` minus its
deadline. Target: p99 under 2 s with 4 workers.

Prints, per worker count: the time from the first deadline to the last timeout, the
timeouts per second, and the delay p50 / p99 / max.
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

import redis
from common import descendants, redis_url
from tqdm import tqdm

from service import games
from service.config import Config
from service.domain import PRESETS, Settings
from service.events import HUMAN, SeatJoined, SeatSpec, TurnTimedOut
from workers.worker import Worker

POLICY = "forfeit"
TOKEN_HASH = "ab" * 32
JOINED = 3  # the version after the joins: created 1, joined 2 and 3
TIMED_OUT_AT = JOINED + 1
CHUNK = 1000  # keys per DEL
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
    load: float  # the machine's load average (1 minute) at the end


def set_up(claim: games.Claim, count: int, move_time: int) -> dict[str, float]:
    """Create, join and schedule `count` games; answer their deadlines (Unix time)."""
    settings = Settings(2, PRESETS["claim"])
    seats = [SeatSpec(HUMAN)] * 2
    store = claim.store
    ids = [
        store.create(settings, seats, move_time_limit=move_time, timeout_policy=POLICY).id
        for _ in tqdm(range(count), desc="create", unit="game", file=sys.stderr, leave=False)
    ]
    joins = (SeatJoined(0, "Ann", TOKEN_HASH), SeatJoined(1, "Bo", TOKEN_HASH))
    for game_id in tqdm(ids, desc="join", unit="game", file=sys.stderr, leave=False):
        store.append(game_id, list(joins), 1)
    due = {}
    for game_id in tqdm(ids, desc="schedule", unit="game", file=sys.stderr, leave=False):
        game = store.load(game_id)
        games.changed(claim, games.Change(game, joins))  # as the API does after the joins
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
    claim: games.Claim,
    processes: list[subprocess.Popen],
    first_deadline: float,
    give_up: float,
) -> None:
    """Watch the deadline timers (a game's is cleared once its timeout is appended)
    until none is left or `give_up` seconds after the first deadline."""
    queue = claim.jobs.ai
    while Worker.count(queue=queue) < len(processes):
        if any(process.poll() is not None for process in processes):
            raise SystemExit("a worker stopped")
        time.sleep(0.05)
    if time.time() > first_deadline:
        print("warning: the workers started after the first deadline", file=sys.stderr)
    total = claim.deadlines.count()
    desc = f"{len(processes)} worker{'s' * (len(processes) > 1)}"
    with tqdm(total=total, desc=desc, unit="game", file=sys.stderr) as bar:
        while left := claim.deadlines.count():
            bar.update(total - left - bar.n)
            if time.time() > first_deadline + give_up:
                print(f"\ngave up with {left} games left", file=sys.stderr)
                return
            if any(process.poll() is not None for process in processes):
                raise SystemExit("a worker stopped")
            time.sleep(0.1)
        bar.update(total - bar.n)


def measure(claim: games.Claim, workers: int, due: dict[str, float]) -> Outcome:
    """Read each game's timeout."""
    timed_out = {}
    for game_id in tqdm(due, desc="read", unit="game", file=sys.stderr, leave=False):
        [record] = claim.store.read(game_id, after=JOINED, until=TIMED_OUT_AT) or [None]
        if record is not None and isinstance(record.event, TurnTimedOut):
            timed_out[game_id] = record.at
    delays = sorted(timed_out[g].timestamp() - due[g] for g in timed_out)
    first_deadline = min(due.values())
    stamps = sorted(at.timestamp() for at in timed_out.values()) or [first_deadline]
    return Outcome(
        workers=workers,
        spread=max(due.values()) - first_deadline,
        cleared=stamps[-1] - first_deadline,
        per_second=len(stamps) / (stamps[-1] - stamps[0]) if len(stamps) > 1 else math.nan,
        delays=tuple(delays),
        missing=len(due) - len(timed_out),
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
    claim = games.Claim.connect(Config(redis_url=url, prefix=prefix), client=connection)
    try:
        due = set_up(claim, args.games, move_time)
        first = min(due.values())
        print(
            f"{workers} worker(s): {args.games} games set up; deadlines from"
            f" {first - time.time():+.1f} s to {max(due.values()) - time.time():+.1f} s",
            file=sys.stderr,
        )
        processes = start_workers(url, prefix, workers, args)
        try:
            wait_for_timeouts(claim, processes, first, args.give_up)
        finally:
            stop_workers(processes)
        return measure(claim, workers, due)
    finally:
        delete_keys(connection, prefix)
        connection.close()


def delete_keys(connection: redis.Redis, prefix: str) -> None:
    """Delete the keys that start with `prefix`, and RQ's keys of its queues (named
    after it), of its games' jobs, and of the workers and schedulers on its queues."""
    mine = list(connection.scan_iter(match=f"{prefix}*", count=CHUNK))
    game_ids = {m[1] for key in mine if (m := re.search(rb":game:\{([0-9a-z]+)\}:", key))}
    job = re.compile(rb"ai-([0-9a-z]+)-")
    members = []  # of the set of all workers
    for key in connection.scan_iter(match="rq:*", count=CHUNK):
        if prefix.encode() in key or ((m := job.search(key)) and m[1] in game_ids):
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
        f" {'p50 s':>6} {'p99 s':>6} {'max s':>6} {'missing':>7} {'load':>5}"
    )
    for o in outcomes:
        print(
            f"{o.workers:>7} {o.spread:>8.1f} {o.cleared:>9.1f} {o.per_second:>10,.0f}"
            f" {percentile(o.delays, 0.5):>6.2f} {percentile(o.delays, 0.99):>6.2f}"
            f" {percentile(o.delays, 1.0):>6.2f} {o.missing:>7} {o.load:>5.1f}"
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
