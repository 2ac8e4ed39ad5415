"""Event store speed: appends per second beside raw XADD, and folding finished games.

    .venv/bin/python bench/events.py [--clients 16] [--appends 500] [--rounds 3]
                                     [--folds 500] [--seed 1] [--profile] [--fsync]
                                     [--replicas]

Uses REDIS_URL if set, else an embedded Redis in a temporary directory. Every key it
writes starts with a prefix of its own and is deleted at the end.

Appends: 1 and `--clients` client processes, each with its own connection and
`GameStore`. A client plays random games in memory and creates them in the store; then,
timed, it appends their decisions one by one (a `DecisionMade` with its expected
version each), and makes as many raw `XADD`s of the same fields (id, type, schema
version, time, data) to a stream of its own. All clients start each timed run together;
runs alternate, append then XADD, `--rounds` times, and the best round of each counts.
Target: an append costs at most 3 XADDs (docs/design.md, Events: one Lua script per append).

Folds: a finished 2-, 3- and 4-player game, `--folds` times each: `GameStore.load` on a
fresh store (no cached fold: XRANGE, decode, fold), and beside it XRANGE alone, `read`
(XRANGE and decode) and the pure `fold` of records already decoded, and what decoding
costs per event. Targets (issue "A faster engine and event codec"): a load under 1 ms,
decoding at most 10 µs per event. `--profile` shows where the time of
appends and of loads goes instead (cProfile, one process). `--fsync` measures appends
on two embedded Redis servers instead, one of each `CLAIM_FSYNC` policy (`always`:
every acknowledged append is on disk; `everysec`: up to a second of them may not be),
in turns, and prints what `always` costs; `--replicas`, appends on a master without
and with `CLAIM_REPLICAS=1` (one replica), and what waiting for it costs.
"""

from __future__ import annotations

import argparse
import cProfile
import multiprocessing
import pstats
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from queue import Empty

import redis
from common import delete_keys, random_game, redis_url
from tqdm import tqdm

from service.config import FSYNC_POLICIES
from service.domain import (
    Settings,
    random_factions,
)
from service.events import AI, GameStore, SeatSpec, codec, fold
from service.runtime.embedded_redis import EmbeddedRedis
from service.runtime.local_cluster import RedisNode, until

PLAYERS = (2, 3, 4)
KINDS = ("append", "XADD")
PROGRESS_EVERY = 50  # operations between two updates of the shared progress counter


def ai_seats(players: int) -> list[SeatSpec]:
    return [SeatSpec(AI, "random")] * players


def client(url, prefix, number, operations, rounds, seed, start, done, replicas=0) -> list[tuple]:
    """One client process: creates its games, then for each round appends `operations`
    decisions and makes `operations` raw XADDs, each run started with the others at the
    barrier `start`; appends wait for `replicas` replicas (CLAIM_REPLICAS). Answers
    (round, kind, began, ended) per run, on the monotonic clock, which all processes of
    a machine share."""
    connection = redis.Redis.from_url(url)
    store = GameStore(connection, prefix, replicas=replicas)
    rng = random.Random(seed * 1000 + number)
    work = []  # (game id, expected version, event), in the order they are appended
    while len(work) < operations * rounds:
        players = rng.choice(PLAYERS)
        settings = Settings(players, random_factions(players, rng))
        deck, decisions = random_game(settings, rng)
        game_id = store.create(settings, ai_seats(players), deck=deck).id
        work += [(game_id, version, d) for version, d in enumerate(decisions, start=1)]
    at = datetime.now(UTC).isoformat()
    entries = [  # the same fields as the append script writes
        {"id": str(uuid.uuid4()), "type": name, "v": version, "at": at, "data": data}
        for name, version, data in (codec.encode(event) for _, _, event in work)
    ]
    stream = f"{prefix}:xadd:{{{uuid.uuid4().hex}}}"  # its own, whatever ran before
    times = []
    for round_ in range(rounds):
        for kind in KINDS:
            start.wait()
            began = time.monotonic()
            for n in range(round_ * operations, (round_ + 1) * operations):
                if kind == "append":
                    game_id, expected, event = work[n]
                    store.append(game_id, [event], expected)
                else:
                    connection.xadd(stream, entries[n], id=f"{n + 1}-0")
                if n % PROGRESS_EVERY == PROGRESS_EVERY - 1:
                    with done.get_lock():
                        done.value += PROGRESS_EVERY
            times.append((round_, kind, began, time.monotonic()))
    connection.close()
    return times


def _client_process(queue, *args) -> None:
    queue.put(client(*args))


def throughput(
    url: str, prefix: str, clients: int, operations: int, rounds: int, seed: int, replicas=0
):
    """{kind: the best operations per second of `clients` processes at once}."""
    context = multiprocessing.get_context("spawn")
    start, done, queue = context.Barrier(clients), context.Value("q", 0), context.Queue()
    processes = [
        context.Process(
            target=_client_process,
            args=(queue, url, prefix, number, operations, rounds, seed, start, done, replicas),
        )
        for number in range(clients)
    ]
    for process in processes:
        process.start()
    total = clients * operations * rounds * len(KINDS)
    answers = []
    with tqdm(total=total, desc=f"{clients} clients", unit="op", file=sys.stderr) as bar:
        while len(answers) < clients:
            try:
                answers.append(queue.get(timeout=0.1))
            except Empty:
                if any(process.exitcode not in (None, 0) for process in processes):
                    for process in processes:
                        process.terminate()  # before the keys are deleted
                    raise SystemExit("a client failed") from None
            bar.update(done.value - bar.n)
        bar.update(total - bar.n)
    for process in processes:
        process.join()
    best = {}
    for round_ in range(rounds):
        for kind in KINDS:
            runs = [t for times in answers for t in times if t[:2] == (round_, kind)]
            seconds = max(t[3] for t in runs) - min(t[2] for t in runs)
            best[kind] = max(best.get(kind, 0), clients * operations / seconds)
    return best


def finished_game(store: GameStore, players: int, rng: random.Random) -> str:
    """A random game played to its end in the store; its id."""
    settings = Settings(players, random_factions(players, rng))
    deck, decisions = random_game(settings, rng)
    game = store.create(settings, ai_seats(players), deck=deck)
    store.append(game.id, decisions, game.version)
    return game.id


def timings(call, repeat: int, desc: str) -> tuple[float, float]:
    """(median, p95) of `repeat` calls, in milliseconds."""
    seconds = []
    for _ in tqdm(range(repeat), desc=desc, unit="fold", file=sys.stderr, leave=False):
        began = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - began)
    seconds.sort()
    return statistics.median(seconds) * 1000, seconds[int(0.95 * (len(seconds) - 1))] * 1000


def fold_timings(connection: redis.Redis, prefix: str, players: int, rng, folds: int):
    """(events, then median and p95 in ms of: XRANGE alone, `read` (XRANGE and decode),
    `fold` of decoded records, `load` on a fresh store) for one finished game."""
    store = GameStore(connection, prefix)
    game_id = finished_game(store, players, rng)
    key = f"{prefix}:game:{{{game_id}}}:events"  # the stream (docs/design.md, Events)
    records = store.read(game_id)

    def cold(call):
        """`call` in a process that has read no decision yet (codec's cache empty)."""

        def run():
            codec.decision_made_read.cache_clear()
            call()

        return run

    return (
        len(records),
        timings(lambda: connection.xrange(key), folds, f"{players}p XRANGE"),
        timings(lambda: store.read(game_id), folds, f"{players}p read"),
        timings(cold(lambda: store.read(game_id)), folds, f"{players}p read, cold"),
        timings(lambda: fold(game_id, records), folds, f"{players}p fold"),
        timings(lambda: GameStore(connection, prefix).load(game_id), folds, f"{players}p load"),
        timings(cold(lambda: GameStore(connection, prefix).load(game_id)), folds, "cold load"),
    )


def profile(connection: redis.Redis, prefix: str, seed: int) -> None:
    """Where the time of one client's appends, and of loads on fresh stores, goes."""
    rng = random.Random(seed)
    store = GameStore(connection, prefix)
    games = []
    for players in PLAYERS * 10:
        settings = Settings(players, random_factions(players, rng))
        deck, decisions = random_game(settings, rng)
        games.append((store.create(settings, ai_seats(players), deck=deck), decisions))

    def appends() -> None:
        for game, decisions in games:
            for expected, decision in enumerate(decisions, start=1):
                store.append(game.id, [decision], expected)

    def loads() -> None:
        for game, _ in games * 10:
            GameStore(connection, prefix).load(game.id)

    for work in (appends, loads):
        profiler = cProfile.Profile()
        profiler.runcall(work)
        print(f"\n{work.__name__}")
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)


def fsync_costs(client_counts: list[int], args: argparse.Namespace) -> None:
    """Appends per second on an embedded Redis of each fsync policy, in turns, the
    best of `--rounds` each: what `CLAIM_FSYNC=always` costs beside `everysec`."""
    best = {}
    with tempfile.TemporaryDirectory(prefix="claim-bench-") as directory:
        servers = {
            policy: EmbeddedRedis(Path(directory) / policy, fsync=policy)
            for policy in FSYNC_POLICIES
        }
        try:
            for server in servers.values():
                server.start()
            for round_ in range(args.rounds):
                for policy, server in servers.items():
                    for clients in client_counts:
                        prefix = f"bench-{uuid.uuid4().hex[:12]}"
                        speed = throughput(server.url, prefix, clients, args.appends, 1, round_)
                        key = (policy, clients)
                        best[key] = max(best.get(key, 0), speed["append"])
                        connection = redis.Redis.from_url(server.url)
                        delete_keys(connection, prefix)
                        connection.close()
        finally:
            for server in servers.values():
                server.stop()
    print(f"appends/s on the embedded Redis, best of {args.rounds} runs of {args.appends}")
    print(f"{'clients':>7} " + " ".join(f"{policy:>10}" for policy in FSYNC_POLICIES) + "  cost")
    for clients in client_counts:
        speeds = [best[(policy, clients)] for policy in FSYNC_POLICIES]
        cost = 1 - speeds[0] / speeds[1]
        print(f"{clients:>7} " + " ".join(f"{s:>10,.0f}" for s in speeds) + f"  {cost:5.0%}")
    print("cost: the share of appends per second that fsync=always gives up")


def replica_costs(client_counts: list[int], args: argparse.Namespace) -> None:
    """Appends per second on a master with one replica (redis-servers on free loopback
    ports, nothing on disk), without and with `CLAIM_REPLICAS=1`, in turns, the best
    of `--rounds` each: what waiting for the replica costs."""
    best = {}
    with tempfile.TemporaryDirectory(prefix="claim-bench-") as directory:
        master = RedisNode(Path(directory) / "master").start()
        replica = RedisNode(
            Path(directory) / "replica", "--replicaof", "127.0.0.1", str(master.port)
        ).start()
        try:
            until(
                lambda: replica.client.info("replication").get("master_link_status") == "up",
                "the replica did not link up",
            )
            url = f"redis://127.0.0.1:{master.port}"
            for round_ in range(args.rounds):
                for replicas in (0, 1):
                    for clients in client_counts:
                        prefix = f"bench-{uuid.uuid4().hex[:12]}"
                        speed = throughput(url, prefix, clients, args.appends, 1, round_, replicas)
                        best[replicas, clients] = max(
                            best.get((replicas, clients), 0), speed["append"]
                        )
        finally:
            replica.stop()
            master.stop()
    print(f"appends/s, master and one replica, best of {args.rounds} runs of {args.appends}")
    print(f"{'clients':>7} {'replicas 0':>10} {'replicas 1':>10}  cost")
    for clients in client_counts:
        without, with_ = best[0, clients], best[1, clients]
        print(f"{clients:>7} {without:>10,.0f} {with_:>10,.0f}  {1 - with_ / without:5.0%}")
    print("cost: the share of appends per second that CLAIM_REPLICAS=1 gives up")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients")
    parser.add_argument("--appends", type=int, default=500, help="per client and run")
    parser.add_argument("--rounds", type=int, default=3, help="timed runs of each kind")
    parser.add_argument("--folds", type=int, default=500, help="folds of each game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="cProfile instead")
    parser.add_argument(
        "--replicas",
        action="store_true",
        help="measure appends on a master without and with CLAIM_REPLICAS=1 instead",
    )
    parser.add_argument(
        "--fsync",
        action="store_true",
        help="appends on an embedded Redis with each CLAIM_FSYNC policy instead",
    )
    args = parser.parse_args()
    client_counts = sorted({1, args.clients})
    if args.fsync:
        fsync_costs(client_counts, args)
        return
    if args.replicas:
        replica_costs(client_counts, args)
        return
    with redis_url() as url:
        connection = redis.Redis.from_url(url)
        prefix = f"bench-{uuid.uuid4().hex[:12]}"
        try:
            if args.profile:
                profile(connection, prefix, args.seed)
                return
            appends = {
                clients: throughput(url, prefix, clients, args.appends, args.rounds, args.seed)
                for clients in client_counts
            }
            rng = random.Random(args.seed)
            folds = {p: fold_timings(connection, prefix, p, rng, args.folds) for p in PLAYERS}
        finally:
            delete_keys(connection, prefix)
            connection.close()

    print(f"appends, best of {args.rounds} runs of {args.appends} per client")
    print(f"{'clients':>7} {'appends/s':>10} {'XADDs/s':>9} {'append cost in XADDs':>21}")
    for clients in client_counts:
        append, xadd = appends[clients]["append"], appends[clients]["XADD"]
        print(f"{clients:>7} {append:>10,.0f} {xadd:>9,.0f} {xadd / append:>21.2f}")
    print("target: an append costs at most 3 XADDs")
    print(f"\nfolding a finished game: ms, median / p95 of {args.folds}")
    columns = ("XRANGE", "read", "read (cold)", "fold", "load (fresh)", "load (cold)")
    print(
        f"{'players':>7} {'events':>6} "
        + " ".join(f"{c:>13}" for c in columns)
        + f" {'decode µs/event':>15} {'(cold)':>6}"
    )
    for players, (events, *figures) in folds.items():
        cells = " ".join(f"{median:>6.2f} /{p95:>5.2f}" for median, p95 in figures)
        (xrange, _), (read, _), (cold, _) = figures[:3]
        per_event = [(read - xrange) * 1000 / events, (cold - xrange) * 1000 / events]
        print(f"{players:>7} {events:>6} {cells} {per_event[0]:>15.1f} {per_event[1]:>6.1f}")
    print("decode: (read - XRANGE) / events, medians. load: GameStore.load on a new store")
    print("(XRANGE, decode, fold); cold: in a process that has read no decision yet (the")
    print("codec reads each distinct decision's data once, service/events/codec.py)")
    print("targets: a fold from the store (load) under 1 ms; decoding at most 10 µs per event")


if __name__ == "__main__":
    main()
