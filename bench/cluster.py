"""Scale-out: the games on a Redis Cluster beside the same on one Redis.

    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/cluster.py \\
        [--games 600] [--seconds 10] [--clients 8] [--processes 1,2,4] [--workers 1,2,4]

Starts a local Redis Cluster of 3 masters and 3 replicas (`service.runtime.local_cluster`, on
free loopback ports). The single Redis is `REDIS_URL` if set, else an embedded one in
a temporary directory; on the cluster, RQ's queues are on it (`CLAIM_QUEUE_URL`).

1. Distribution: `--games` games created through the store on the cluster; how many
   each master holds (a game's keys share its hash tag, so its slot).
2. Moves/s: `claim serve --workers N` for each N of `--processes` (gunicorn worker
   processes), on one Redis, on the cluster, and on the cluster with every move
   acknowledged once on a replica (`cluster+1`: `CLAIM_REPLICAS=1`); `--clients`
   client processes post moves of games they dealt themselves, as `bench/api.py`'s
   `moves` does. Beside each figure, the CPU the API's processes and the Redis servers
   (the masters, on the cluster) used, in cores: what is busy is the bottleneck.
3. AI turns/s: for each M of `--workers`, M `claim worker` processes beside a
   `claim serve`, `--ai-games` games of `--level` AIs only created at once; AI turns
   made over the time until the last game ended.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager, suppress
from pathlib import Path

import redis
from api import ROOT, Client, Sample, Server, expect, measure, percentile, serving
from common import delete_keys, descendants, redis_url
from tqdm import tqdm

from service.config import Config, child_environment
from service.domain import Settings, random_factions
from service.events import HUMAN, GameStore, SeatSpec, connect
from service.runtime.local_cluster import LocalCluster

TICKS = os.sysconf("SC_CLK_TCK")


def distribution(cluster: LocalCluster, games: int) -> Counter:
    """How many of `games` new games each master holds, by its port."""
    client = redis.RedisCluster.from_url(cluster.url)
    store, prefix = GameStore(client, "bench-spread"), "bench-spread"
    held: Counter = Counter()
    try:
        for n in tqdm(range(games), desc="spreading games", unit="game", file=sys.stderr):
            settings = Settings(2, random_factions(2, random.Random(n)))
            game = store.create(settings, [SeatSpec(HUMAN)] * 2)
            held[cluster.master_of(f"{prefix}:game:{{{game.id}}}:events").port] += 1
    finally:
        delete_keys(client, prefix)
        client.close()
    return held


def process_cpu(pid: int) -> float:
    """CPU seconds used so far by `pid` and everything below it."""
    total = 0
    for each in [pid, *descendants(pid)]:
        with suppress(OSError):
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


def redis_cpu(clients: list[redis.Redis]) -> float:
    """CPU seconds the Redis servers have used since they started."""
    infos = [client.info("cpu") for client in clients]
    return sum(info["used_cpu_user"] + info["used_cpu_sys"] for info in infos)


def clients_cpu() -> float:
    """CPU seconds used by this process's children that have ended: the clients."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def moves_per_second(server: Server, redis_servers, clients: int, seconds: float):
    """(moves/s, p50 ms, p99 ms, and the cores busy in the API's processes, in the
    Redis servers and in the clients) of `clients` posting moves."""
    before = process_cpu(server.pid), redis_cpu(redis_servers), clients_cpu()
    start = time.monotonic()
    sample: Sample = measure("moves", server, clients, seconds, "view")
    elapsed = time.monotonic() - start  # the clients' set-up included, alike for all
    after = process_cpu(server.pid), redis_cpu(redis_servers), clients_cpu()
    cores = [(a - b) / elapsed for a, b in zip(after, before, strict=True)]
    rate = len(sample.moves) / seconds
    return rate, percentile(sample.moves, 0.5), percentile(sample.moves, 0.99), *cores


@contextmanager
def workers(server: Server, count: int, queue_url: str | None, log_dir: Path):
    """`count` `claim worker` processes on the server's Redis and prefix."""
    env = child_environment(REDIS_URL=server.redis_url, CLAIM_PREFIX=server.prefix)
    if queue_url:
        env["CLAIM_QUEUE_URL"] = queue_url
    processes = []
    for n in range(count):
        with (log_dir / f"worker-{n}.log").open("wb") as log:
            command = [sys.executable, "-m", "service.cli", "worker"]
            processes.append(
                subprocess.Popen(
                    command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )  # fmt: skip
    try:
        yield
    finally:
        for process in processes:
            for pid in [*descendants(process.pid), process.pid]:
                with suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            process.wait()


def ai_turns_per_second(server: Server, games: int, level: str) -> tuple[float, int]:
    """(AI turns per second, turns) of `games` all-AI games created at once and
    played to their end by the workers."""
    client = Client(server.port)
    seats = [{"kind": "ai", "level": level}] * 2
    start = time.monotonic()
    ids = []
    for _ in range(games):
        status, game, _ = client.call("POST", "/games", {"players": 2, "seats": seats})
        expect(status, 201, game)
        ids.append(game["game_id"])
    store = GameStore(connect(Config(), server.redis_url), server.prefix)
    running = set(ids)
    with tqdm(total=games, desc="AI games", unit="game", leave=False, file=sys.stderr) as bar:
        while running:
            time.sleep(0.05)
            ended = {g for g in running if store.load(g).state.to_act is None}
            running -= ended
            bar.update(len(ended))
            if time.monotonic() - start > 600:
                sys.exit("the AI games did not end in 10 minutes: are the workers running?")
    elapsed = time.monotonic() - start
    turns = sum(store.load(g).decisions for g in ids)
    return turns / elapsed, turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600, help="games for the distribution")
    parser.add_argument("--seconds", type=float, default=10, help="per moves/s measurement")
    parser.add_argument("--clients", type=int, default=8, help="client processes posting moves")
    parser.add_argument("--processes", default="1,2,4", help="API processes to measure")
    parser.add_argument("--workers", default="1,2,4", help="RQ workers to measure")
    parser.add_argument("--ai-games", type=int, default=20, help="all-AI games per measurement")
    parser.add_argument("--level", default="greedy", help="the AI seats' level")
    args = parser.parse_args()
    processes = [int(n) for n in args.processes.split(",")]
    worker_counts = [int(n) for n in args.workers.split(",")]

    with (
        redis_url() as single,
        tempfile.TemporaryDirectory(prefix="claim-bench-") as scratch,
        LocalCluster(Path(scratch) / "cluster") as cluster,
    ):
        held = distribution(cluster, args.games)
        masters = [node.client for node in cluster.masters]
        cluster_settings = {"CLAIM_QUEUE_URL": single}
        kinds = {  # the Redis, what claim serve is told of it, the servers whose CPU counts
            "single": (single, {}, [redis.Redis.from_url(single)]),
            "cluster": (cluster.url, cluster_settings, masters),
            "cluster+1": (cluster.url, {**cluster_settings, "CLAIM_REPLICAS": "1"}, masters),
        }
        moves = {}
        for count in processes:
            for kind, (url, settings, servers) in kinds.items():
                with serving(count, 1000, url=url, **settings) as server:
                    moves[kind, count] = moves_per_second(
                        server, servers, args.clients, args.seconds
                    )
        turns = {}
        for count in worker_counts:
            for kind, (url, settings, _) in kinds.items():
                if kind not in ("single", "cluster"):
                    continue
                queue_url = settings.get("CLAIM_QUEUE_URL")
                with (
                    serving(1, 1000, url=url, **settings) as server,
                    workers(server, count, queue_url, Path(scratch)),
                ):
                    turns[kind, count] = ai_turns_per_second(server, args.ai_games, args.level)

    print(f"Redis Cluster: 3 masters, 3 replicas (local); {os.cpu_count()} CPUs for everything")
    print(f"games spread over the masters ({args.games} games):")
    for port, count in sorted(held.items()):
        print(f"  master :{port}  {count:>5} games  {count / args.games:6.1%}")
    print(
        f"moves/s, {args.clients} client processes posting moves for {args.seconds:g} s;"
        " CPU in cores busy over the run (API: gunicorn's processes; Redis: the servers,"
        " masters only; clients: the client processes)"
    )
    print(
        f"{'API procs':>9} {'redis':<9} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7}"
        f" {'API CPU':>8} {'Redis CPU':>10} {'clients CPU':>12}"
    )
    for (kind, count), (rate, p50, p99, api, busy, mine) in moves.items():
        print(
            f"{count:>9} {kind:<9} {rate:>8,.0f} {p50:>7.1f} {p99:>7.1f}"
            f" {api:>8.2f} {busy:>10.2f} {mine:>12.2f}"
        )
    print(f"AI turns/s, {args.ai_games} games of two {args.level} AIs created at once")
    print(f"{'workers':>9} {'redis':<8} {'turns/s':>8} {'turns':>7}")
    for (kind, count), (rate, made) in turns.items():
        print(f"{count:>9} {kind:<8} {rate:>8,.1f} {made:>7}")


if __name__ == "__main__":
    main()
