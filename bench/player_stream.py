"""Players' streams (`GET /me/stream`) by the hundred: what they cost `claim serve` idle,
and how soon a challenge reaches the challenged player's stream.

    .venv/bin/python bench/player_stream.py [--players 1000] [--challenges 200] [--workers 2]

Starts `claim serve` as bench/stream.py does (REDIS_URL if set, else an embedded Redis;
the caps of watches per address raised: every client here is 127.0.0.1), registers
`--players` bots, then:

1. Idle: one stream a player (JSON lines), held open by one asyncio process, each
   counted open once its `state` line came. The memory of gunicorn's processes before
   and with them (per idle stream: the difference over the count), and the Redis
   connections (CLIENT LIST) before and with them, and of them those busy within the
   last second: the others are left idle in the processes' pools by the burst of
   openings; an idle stream holds none, as every stream of a process waits on its one
   subscription.
2. Challenges: `--challenges` challenges, one at a time, each from a player to another
   (at random): the delay from sending `POST /challenges` to the challenged stream
   reading its `challenge` line, p50, p99 and max (ms), while every stream is open.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import sys
import time

import redis
from api import Client, percentile, serving
from stream import SETTINGS, _chunks, allow_open_files, gunicorn_memory, held_open
from tqdm import tqdm


async def player_stream(port: int, key: str, opened: asyncio.Queue, heard=None) -> None:
    """A player's stream as JSON lines: tells `opened` once its `state` came, then calls
    `heard(line)` for each line."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    head = f"Authorization: Bearer {key}\r\nAccept: application/x-ndjson\r\n"
    writer.write(f"GET /me/stream?max_seconds=3600 HTTP/1.1\r\nHost: b\r\n{head}\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if head.split(b" ", 2)[1] != b"200":
        raise RuntimeError(f"a player's stream: {head!r} {await reader.read(500)!r}")
    try:
        async for chunk in _chunks(reader):
            for line in chunk.splitlines():
                event = json.loads(line)
                if event["type"] == "state":
                    opened.put_nowait(1)
                elif heard is not None:
                    heard(event, time.monotonic())
    finally:
        writer.close()


def hold(port: int, keys: list[str], ready, stop, told) -> None:
    """A process holding a stream of each of `keys` until `stop` is set; each challenge
    a stream reads goes on `told` (its id, the monotonic time it came)."""
    allow_open_files()

    def heard(event: dict, at: float) -> None:
        if event["type"] == "challenge":
            told.put((event["challenge"]["id"], at))

    streams = [lambda opened, key=key: player_stream(port, key, opened, heard) for key in keys]
    held_open(streams, ready, stop, tqdm(total=len(keys), desc="streams", unit="").update)


def redis_clients(server) -> tuple[int, int]:
    """The connections to the Redis, and of them those busy within the last second (the
    others wait in the processes' pools, idle: a burst of streams opening at once left
    them there; no idle stream holds one)."""
    with redis.Redis.from_url(server.redis_url) as client:
        clients = client.client_list()
    return len(clients), sum(int(c["idle"]) < 1 for c in clients)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000, help="bots, a stream each")
    parser.add_argument("--challenges", type=int, default=200, help="sent one at a time")
    parser.add_argument("--workers", type=int, default=2, help="claim serve --workers")
    args = parser.parse_args()
    allow_open_files()
    rng = random.Random(7)
    with serving(args.workers, args.players + 2048, **SETTINGS) as server:
        client = Client(server.port)
        players = []
        for n in tqdm(range(args.players), desc="players", unit=""):
            _, body, _ = client.call("POST", "/players", {"name": f"bot {n}", "bot": True})
            players.append((body["player_id"], body["key"]))
        time.sleep(3)
        memory, connections = gunicorn_memory(server.pid), redis_clients(server)
        context = multiprocessing.get_context("spawn")
        ready, stop, told = context.Event(), context.Event(), context.Queue()
        keys = [key for _, key in players]
        holder = context.Process(target=hold, args=(server.port, keys, ready, stop, told))
        holder.start()
        try:
            if not ready.wait(600):
                raise RuntimeError("the streams did not all open")
            time.sleep(3)
            held_memory, held_connections = gunicorn_memory(server.pid), redis_clients(server)
            delays = []
            for _ in tqdm(range(args.challenges), desc="challenges", unit=""):
                (_, key), (to, _) = rng.sample(players, 2)
                sent = time.monotonic()
                status, body, _ = client.call(
                    "POST", "/challenges", {"to": to}, {"Authorization": f"Bearer {key}"}
                )
                if status != 201:
                    raise RuntimeError(f"a challenge: {status} {body}")
                challenge_id, at = told.get(timeout=30)
                if challenge_id != body["id"]:
                    raise RuntimeError("a challenge told out of turn")
                delays.append(at - sent)
        finally:
            stop.set()
            holder.join(30)
    per_stream = (held_memory - memory) / args.players
    print(
        f"claim serve --workers {args.workers}, {os.cpu_count()} CPUs (the clients' included),"
        f" {args.players} players' streams idle"
    )
    print(
        f"gunicorn memory: {memory / 2**20:.1f} MiB without, {held_memory / 2**20:.1f} MiB with"
        f" ({per_stream / 1024:.1f} KiB a stream); Redis connections (busy within 1 s):"
        f" {connections[0]} ({connections[1]}) without, {held_connections[0]}"
        f" ({held_connections[1]}) with"
    )
    print(
        f"challenge to the challenged stream, ms ({len(delays)}): p50"
        f" {percentile(delays, 0.5):.1f}, p99 {percentile(delays, 0.99):.1f},"
        f" max {max(delays) * 1000:.1f}"
    )


if __name__ == "__main__":
    sys.exit(main())
