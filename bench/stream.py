"""Idle watchers by the thousand: what they cost `claim serve`, and how soon a change
reaches every one of them.

    .venv/bin/python bench/stream.py [--watchers 10000] [--changes 10000] [--seconds 10]
                                     [--workers 2] [--fanout 1x1000,1000x10] [--moves 30]
                                     [--slots 20]

Starts `claim serve` as bench/api.py does (REDIS_URL if set, else an embedded Redis;
the rate limit and the per-address cap of live watchers raised, as every client here
comes from 127.0.0.1), then:

1. Idle watchers: `--watchers` connections held open by one asyncio process, half of
   them live streams (`GET /games/{id}/stream`) and half long-polls (`?after=&wait=60`,
   asked again when answered), on 100 games nobody plays. With no watcher, then with
   all of them open: `/healthz` and moves with 8 clients (bench/api.py's measurements,
   in turns), the memory of gunicorn's processes (per idle watcher: the difference over
   the count) and the Redis connections. Then the same (each kind on a `claim serve`
   of its own, beside its own figures without) with `--changes` idle streams
   of changes (`GET /changes`, as a browser's shared worker holds one), each watching
   `CHANGES_GAMES` of those games (`changes`); then as many watching the lobby too
   (`+lobby`), which the moves' new games change: each stream is told at most every
   2 s, so they send `--changes` / 2 events a second while the lobby moves.
2. Fan-out, for each `GxW` of `--fanout`: G games of two people, each watched by W live
   streams; `--moves` moves posted one at a time, each to a game in turn; for each, the
   delay from posting it to each of its game's watchers reading its event: p50, p99,
   and p99 / max of the delay to a move's last watcher.
3. Slots, on the fan-out's server: `--slots` live streams, then as many long-polls,
   whose clients then close them; then as many streams of which one gunicorn worker
   holds some, killed with `kill -9`. For each, when each slot (the address's lease,
   `watch_leases.py`) came back after the client left or the worker died: p50 and max.

Watchers are opened at most `OPENING` at a time, each counted open once the server
answered it, as a crowd of clients arrives: a burst of thousands of connections at
once overflows the server's listen queue (gunicorn's backlog, 2048), and the kernel
resets the connections it could not take in time. A watcher that fails to open stops
the bench, saying why.

Targets (issue "Live connections by the thousand"): 10,000 idle watchers held with
/healthz p99 and move p99 (8 clients) under 50 ms; change-to-every-watcher p99 under
100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import re
import resource
import signal
import sys
import time
from collections.abc import Callable, Coroutine
from functools import partial
from pathlib import Path

import redis
from api import Client, Sample, a_scripted_game, measure, percentile, serving
from common import descendants
from tqdm import tqdm

from service.events import GameStore, WatchLeases, utc_now

IDLE_GAMES = 100
CHANGES_GAMES = 10  # games each idle stream of changes watches
LONG_POLL = 60  # seconds a long-poll waits
EVENT_ID = re.compile(rb"(?:^|\n)id: (\d+)\n")
# The caps of what one address may hold raised: every client here is 127.0.0.1.
SETTINGS = {"CLAIM_WATCH_CAP": "1000000", "CLAIM_SENDING_CAP": "100000"}
OPENING = 500  # watchers being opened at once, at most
ADDRESS = "127.0.0.1"  # every client's address, whose leases part 3 counts
SLOTS_PATIENCE = 120  # seconds part 3 waits for slots to come back before it gives up


def allow_open_files() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def _request(port: int, path: str, headers: dict | None = None):
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    lines = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\n{lines}\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if status != 200:
        raise RuntimeError(f"GET {path}: {head!r}")
    return reader, writer, head


async def _chunks(reader: asyncio.StreamReader):
    """The chunks of a chunked body, as they come."""
    while True:
        size = int((await reader.readline()).split(b";")[0], 16)
        if size == 0:
            return
        yield (await reader.readexactly(size + 2))[:-2]


async def stream(port: int, game_id: str, opened: asyncio.Queue, heard=None) -> None:
    """A live stream of `game_id`: tells `opened` once its first event came, then calls
    `heard(game_id, version, monotonic time)` for each event."""
    reader, writer, _ = await _request(port, f"/games/{game_id}/stream?max_seconds=3600")
    first = True
    try:
        async for chunk in _chunks(reader):
            for match in EVENT_ID.finditer(chunk):
                if first:
                    first = False
                    opened.put_nowait(1)
                elif heard is not None:
                    heard(game_id, int(match[1]), time.monotonic())
    finally:
        writer.close()


async def changes(port: int, game_ids: list[str], lobby: bool, opened: asyncio.Queue) -> None:
    """A stream of changes of `game_ids` (and the lobby): tells `opened` once it is
    ready, then reads what comes."""
    path = f"/changes?games={','.join(game_ids)}&lobby={str(lobby).lower()}&max_seconds=3600"
    reader, writer, _ = await _request(port, path)
    ready = False
    try:
        async for chunk in _chunks(reader):
            if not ready and b"event: ready\n" in chunk:
                ready = True
                opened.put_nowait(1)
    finally:
        writer.close()


async def long_poll(port: int, game_id: str, version: int, opened: asyncio.Queue) -> None:
    """Long-polls of `game_id` one after the other, on one connection, once a first
    look at it (without a wait) was answered on it: the server took the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    look = f"GET /games/{game_id} HTTP/1.1\r\nHost: bench\r\n\r\n".encode()
    path = f"/games/{game_id}?after={version}&wait={LONG_POLL}"
    request = f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode()
    try:
        writer.write(look)
        await _answer(reader)
        opened.put_nowait(1)
        while True:
            writer.write(request)
            await writer.drain()
            await _answer(reader)
    finally:
        writer.close()


async def _answer(reader: asyncio.StreamReader) -> None:
    """Read one answer with a Content-Length."""
    head = await reader.readuntil(b"\r\n\r\n")
    await reader.readexactly(int(re.search(rb"Content-Length: (\d+)", head)[1]))


Watcher = Callable[[asyncio.Queue], Coroutine]  # a watcher, given the queue it tells once open


async def open_all(watchers: list[Watcher], progress=None) -> list[asyncio.Task]:
    """Start `watchers`, at most `OPENING` opening at once; their tasks once every one is
    open (`progress(1)` as each is). One that fails to open raises its error."""
    opened, failed, tasks = asyncio.Queue(), [], []

    def note(task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            failed.append(task.exception())

    async def one_opened() -> None:
        while not failed:
            try:
                await asyncio.wait_for(opened.get(), 0.1)
            except TimeoutError:
                continue
            if progress is not None:
                progress(1)
            return
        raise failed[0]

    counted = 0  # the watchers counted open
    for watcher in watchers:
        while len(tasks) - counted >= OPENING:
            await one_opened()
            counted += 1
        tasks.append(asyncio.create_task(watcher(opened)))
        tasks[-1].add_done_callback(note)
    for _ in range(len(tasks) - counted):
        await one_opened()
    return tasks


def held_open(watchers: list[Watcher], ready, stop, progress=None) -> None:
    """Open `watchers` (`open_all`), set `ready`, and hold them open until `stop` is
    set (in a process of its own)."""

    async def main():
        tasks = await open_all(watchers, progress)
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.2)
        for task in tasks:
            task.cancel()

    asyncio.run(main())


def hold_idle(port: int, games: list[tuple[str, int]], kind: str, count: int, ready, stop):
    """A process holding `count` idle watchers of `games` until `stop` is set: half
    live streams and half long-polls (`kind` watchers), or streams of changes (and of
    the lobby: `+lobby`)."""
    allow_open_files()

    def watcher(n: int) -> Watcher:
        game_id, version = games[n % len(games)]
        if kind != "watchers":
            watched = [games[(n + k) % len(games)][0] for k in range(CHANGES_GAMES)]
            return partial(changes, port, watched, kind == "+lobby")
        return (
            partial(long_poll, port, game_id, version) if n % 2 else partial(stream, port, game_id)
        )

    held_open([watcher(n) for n in range(count)], ready, stop)


def gunicorn_memory(serve_pid: int) -> int:
    """The resident memory of gunicorn's processes, in bytes."""
    total = 0
    for pid in descendants(serve_pid):
        try:
            if b"gunicorn" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += int(re.search(r"VmRSS:\s+(\d+) kB", status)[1]) * 1024
    return total


def load(server, seconds: float, slices: int) -> dict[str, Sample]:
    """/healthz and moves with 8 clients, in turns."""
    samples = {"healthz": Sample(), "moves": Sample()}
    for turn in range(slices):
        for kind, sample in samples.items():
            sample.add(measure(kind, server, 8, seconds / slices, "view", turn))
    return samples


def idle(server, args, kind: str, count: int) -> list[tuple]:
    """Part 1 on a server of its own: the figures with no watcher, then with `count`
    idle ones of `kind`; a row of each."""
    client, rng = Client(server.port), random.Random(1)
    store = GameStore(redis.Redis.from_url(server.redis_url), server.prefix)
    games = [
        (game_id, version)
        for game_id, _, version, _ in (
            a_scripted_game(client, store, rng)
            for _ in tqdm(range(IDLE_GAMES), desc="idle games", leave=False)
        )
    ]
    connections = redis.Redis.from_url(server.redis_url)
    before_memory = gunicorn_memory(server.pid)
    before_clients = connections.info("clients")["connected_clients"]
    rows = [("none", "", load(server, args.seconds, args.slices), before_memory, before_clients)]
    context = multiprocessing.get_context("spawn")
    ready, stop = context.Event(), context.Event()
    holder = context.Process(target=hold_idle, args=(server.port, games, kind, count, ready, stop))
    holder.start()
    give_up = time.monotonic() + 300
    with tqdm(desc=f"opening {count} {kind}", leave=False) as bar:
        while not ready.wait(0.5):
            bar.update()
            if not holder.is_alive() or time.monotonic() > give_up:
                raise SystemExit(f"the {kind} could not all be opened")
    time.sleep(2)  # settled
    samples = load(server, args.seconds, args.slices)
    memory = gunicorn_memory(server.pid)
    clients = connections.info("clients")["connected_clients"]
    rows.append((f"{count:,}", kind, samples, memory, clients, (memory - before_memory) / count))
    stop.set()
    holder.join(30)
    connections.close()
    return rows


def idle_lines(rows: list[tuple], args) -> list[str]:
    lines = [
        f"idle watchers on {IDLE_GAMES} games: `watchers` half streams, half long-polls;"
        f" `changes` streams of changes of {CHANGES_GAMES} games each, `+lobby` and the lobby;"
        f" /healthz and moves with 8 clients, {args.seconds:g} s each in {args.slices} turns;"
        " each kind on a server of its own, beside its own `none`",
        f"{'watchers':>8} {'kind':>8} {'healthz/s':>9} {'p50 ms':>7} {'p99 ms':>7}"
        f" {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'gunicorn MB':>11} {'redis clients':>13}"
        f" {'kB each':>7}",
    ]
    for name, kind, samples, memory, clients, *each in rows:
        health, moves = samples["healthz"].healthz, samples["moves"].moves
        lines.append(
            f"{name:>8} {kind:>8} {len(health) / args.seconds:>9,.0f}"
            f" {percentile(health, 0.5):>7.1f} {percentile(health, 0.99):>7.1f}"
            f" {len(moves) / args.seconds:>8,.0f} {percentile(moves, 0.5):>7.1f}"
            f" {percentile(moves, 0.99):>7.1f} {memory / 1e6:>11.0f} {clients:>13}"
            f" {each[0] / 1024 if each else 0:>7.1f}"
        )
    lines.append("kB each: the memory of gunicorn's processes per idle one, over `none`")
    return lines


def fanout(server, games: int, watchers: int, moves: int) -> str:
    """Part 2: `games` games, `watchers` streams each; `moves` moves, one at a time."""
    client, rng = Client(server.port), random.Random(2)
    store = GameStore(redis.Redis.from_url(server.redis_url), server.prefix)
    tables = [
        a_scripted_game(client, store, rng)
        for _ in tqdm(range(games), desc=f"{games} games", leave=False)
    ]
    posted: dict[tuple[str, int], float] = {}
    heard: dict[tuple[str, int], list[float]] = {}

    def note(game_id: str, version: int, at: float) -> None:
        heard.setdefault((game_id, version), []).append(at)

    async def main():
        every = [
            partial(stream, server.port, tables[n % games][0], heard=note)
            for n in range(games * watchers)
        ]
        with tqdm(total=len(every), desc="opening", leave=False) as bar:
            tasks = await open_all(every, bar.update)
        for n in tqdm(range(moves), desc="moves", leave=False):
            game_id, tokens, version, script = tables[n % games]
            seat, move = script.pop(0)
            key = (game_id, version + 1)
            posted[key] = time.monotonic()
            await asyncio.to_thread(_post, server.port, game_id, tokens[seat], move, version)
            tables[n % games] = (game_id, tokens, version + 1, script)
            give_up = time.monotonic() + 10
            while len(heard.get(key, ())) < watchers and time.monotonic() < give_up:
                await asyncio.sleep(0.001)
            await asyncio.sleep(0.05)  # the next move after a pause
        for task in tasks:
            task.cancel()

    asyncio.run(main())
    delays, to_last, missing = [], [], 0
    for key, at in posted.items():
        times = heard.get(key, [])
        missing += watchers - len(times)
        delays += [t - at for t in times]
        if times:
            to_last.append(max(times) - at)
    return (
        f"{games:>5} x {watchers:<5} {moves:>5} {percentile(delays, 0.5):>7.1f}"
        f" {percentile(delays, 0.99):>7.1f} {percentile(to_last, 0.99):>11.1f}"
        f" {percentile(to_last, 1.0):>11.1f} {missing:>7}"
    )


def slots(server, count: int) -> list[str]:
    """Part 3: when each slot came back after its client left (`count` streams, then
    `count` long-polls), and after a worker holding some of `count` streams was killed."""
    connection = redis.Redis.from_url(server.redis_url)
    leases = WatchLeases(connection, server.prefix, utc_now)
    store = GameStore(connection, server.prefix)
    game_id, _, version, _ = a_scripted_game(Client(server.port), store, random.Random(3))
    asyncio.run(_until_held(leases, 0))  # the fan-out's watchers are gone
    streams = [partial(stream, server.port, game_id)] * count
    long_polls = [partial(long_poll, server.port, game_id, version)] * count
    rows = [
        ("client closed", "stream", asyncio.run(_after_leaving(leases, streams))),
        ("client closed", "long-poll", asyncio.run(_after_leaving(leases, long_polls))),
        ("worker killed", "stream", asyncio.run(_after_killing(server, leases, streams))),
    ]
    connection.close()
    lines = [f"{'after':<14} {'kind':<10} {'slots':>5} {'p50 ms':>8} {'max ms':>8}"]
    for event, kind, seconds in rows:
        p50, most = percentile(seconds, 0.5), percentile(seconds, 1.0)
        lines.append(f"{event:<14} {kind:<10} {len(seconds):>5} {p50:>8.0f} {most:>8.0f}")
    return lines


async def _after_leaving(leases: WatchLeases, watchers: list[Watcher]) -> list[float]:
    """Open `watchers`, then close them all: the seconds until each slot came back."""
    tasks = await open_all(watchers)
    await _until_held(leases, len(tasks))  # each holds its slot
    left = time.monotonic()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)  # their connections closed
    return await _returned(leases, len(tasks), len(tasks), left)


async def _after_killing(server, leases: WatchLeases, watchers: list[Watcher]) -> list[float]:
    """Open `watchers`, then `kill -9` the gunicorn worker with the most connections:
    the seconds until each slot of its watchers came back."""
    tasks = await open_all(watchers)
    await _until_held(leases, len(tasks))
    worker = max(gunicorn_workers(server.pid), key=_sockets)
    os.kill(worker, signal.SIGKILL)
    killed = time.monotonic()
    await asyncio.sleep(1)  # its clients see their connections end
    ended = sum(task.done() for task in tasks)
    try:
        return await _returned(leases, len(tasks), ended, killed)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _until_held(leases: WatchLeases, count: int) -> None:
    """Wait until the address holds `count` leases."""
    give_up = time.monotonic() + SLOTS_PATIENCE
    while (held := leases.held(ADDRESS)) != count:
        if time.monotonic() > give_up:
            raise SystemExit(f"{held} slots held, not {count}")
        await asyncio.sleep(0.002)


async def _returned(leases: WatchLeases, held: int, count: int, since: float) -> list[float]:
    """Wait until the address holds `count` fewer than `held` leases, looking every 2 ms:
    the seconds from `since` at which each came back."""
    back, give_up = [], since + SLOTS_PATIENCE
    while (now_held := leases.held(ADDRESS)) > held - count:
        if time.monotonic() > give_up:
            raise SystemExit(f"{now_held} slots still held, {held - count} expected")
        await asyncio.sleep(0.002)
        back += [time.monotonic() - since] * (held - now_held - len(back))
    return back + [time.monotonic() - since] * (count - len(back))


def gunicorn_workers(serve_pid: int) -> list[int]:
    """The gunicorn workers under `claim serve`: gunicorn processes whose parent is one."""
    parents = {}
    for pid in descendants(serve_pid):
        try:
            if b"gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes():
                parents[pid] = int(
                    Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
                )
        except OSError:
            continue
    return [pid for pid, parent in parents.items() if parent in parents]


def _sockets(pid: int) -> int:
    """How many sockets `pid` has open."""
    fds = Path(f"/proc/{pid}/fd")
    return sum(os.readlink(fd).startswith("socket:") for fd in fds.iterdir())


def _post(port: int, game_id: str, token: str, move: str, version: int) -> None:
    body = {"move": move, "expected_version": version}
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": f"{game_id}-{version}"}
    status, answer, _ = Client(port).call("POST", f"/games/{game_id}/moves", body, headers)
    if status != 201:
        raise RuntimeError(f"a move: {status} {answer}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, default=10_000, help="idle ones held open")
    parser.add_argument(
        "--changes", type=int, default=10_000, help="idle streams of changes held open"
    )
    parser.add_argument("--seconds", type=float, default=10, help="per load measurement")
    parser.add_argument("--slices", type=int, default=3, help="turns of each measurement")
    parser.add_argument("--workers", type=int, default=2, help="claim serve --workers")
    parser.add_argument("--fanout", default="1x1000,1000x10", help="GAMESxWATCHERS, ...")
    parser.add_argument("--moves", type=int, default=30, help="moves of each fan-out")
    parser.add_argument("--slots", type=int, default=20, help="watchers of part 3 (0: none)")
    args = parser.parse_args()
    allow_open_files()
    connections = max(args.watchers, args.changes) + 2048
    idle_rows = []
    kinds = (("watchers", args.watchers), ("changes", args.changes), ("+lobby", args.changes))
    for kind, count in kinds:
        if count:
            with serving(args.workers, connections, **SETTINGS) as server:
                idle_rows += idle(server, args, kind, count)
    lines = idle_lines(idle_rows, args)
    rows = []
    with serving(args.workers, connections, **SETTINGS) as server:
        for shape in args.fanout.split(","):
            games, watchers = (int(n) for n in shape.split("x"))
            rows.append(fanout(server, games, watchers, args.moves))
        slot_lines = slots(server, args.slots) if args.slots else []
    print(
        f"claim serve --workers {args.workers} --connections {connections}, {os.cpu_count()}"
        " CPUs (the clients' included)"
    )
    print("\n".join(lines))
    print("\nfan-out: delay from posting a move to its game's watchers reading it, ms")
    print(
        f"{'games x watchers':>16} {'moves':>5} {'p50':>7} {'p99':>7} {'last p99':>11}"
        f" {'last max':>11} {'missing':>7}"
    )
    print("\n".join(rows))
    if slot_lines:
        print(
            f"\nslots: from a client closing its watcher (or its worker killed with kill -9)"
            f" to its slot coming back, {args.slots} watchers each"
        )
        print("\n".join(slot_lines))
    print(
        "targets: 10,000 idle watchers with /healthz and move p99 < 50 ms (8 clients);"
        " change to every watcher p99 < 100 ms"
    )


if __name__ == "__main__":
    sys.exit(main())
