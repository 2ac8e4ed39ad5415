"""API speed: `POST /games/{id}/moves` beside `GET /healthz`, on a real `claim serve`.

    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/api.py \\
        [--seconds 10] [--clients 1,8,32] [--workers 2] [--threads 8]

Starts `claim serve` on a free port (on `REDIS_URL` if set, else on the embedded Redis
it starts in a temporary directory), with the rate limit raised so that it is checked
but never trips. For each number of clients, each client a process of its own with one
keep-alive connection:

- `healthz`: every client asks `GET /healthz` for --seconds;
- `moves`: every client plays its own 2-player game of human seats: it posts the acting
  seat's legal move (with `expected_version` and an `Idempotency-Key`); the answer
  carries the mover's view only, so when the other seat is to act the client reads that
  seat's view (`GET /games/{id}`, or with `--read legal` the lighter
  `GET /games/{id}/legal`) for its legal moves. A finished game is replaced.

Moves/s and the latencies count the POSTs only; the reads are shown beside them, and
`games` counts the games finished. The figure is moves/s over healthz/s at the same
concurrency (`ratio`). As a client reads before nearly every move, `loop` gives the
requests of the play loop (moves and reads) per second over healthz/s too.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import redis
from common import delete_keys
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
RATE_LIMIT = "1000000 per minute"  # checked on every request, never reached
STARTUP = 60  # seconds `claim serve` may take to answer /healthz


@dataclass
class Sample:
    """What one client measured: latencies in seconds, by kind of request."""

    moves: list[float] = field(default_factory=list)
    reads: list[float] = field(default_factory=list)
    healthz: list[float] = field(default_factory=list)
    games: int = 0


class Client:
    """One keep-alive HTTP connection to the server, JSON in and out."""

    def __init__(self, port: int):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method: str, path: str, body=None, headers=None) -> tuple[int, dict, float]:
        """(status, JSON body, seconds taken). A connection the server closed while idle
        (gunicorn keeps one alive for 2 s) is opened again and the request sent again:
        safe for a move too, as it repeats its Idempotency-Key."""
        headers = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            start = time.perf_counter()
            try:
                self.connection.request(method, path, data, headers)
                response = self.connection.getresponse()
                payload = response.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                if attempt == 2:
                    raise
        elapsed = time.perf_counter() - start
        return response.status, json.loads(payload) if payload else {}, elapsed


def expect(status: int, wanted: int, body: dict) -> None:
    if status != wanted:
        raise RuntimeError(f"expected {wanted}, got {status}: {body}")


def new_game(client: Client) -> tuple[str, dict[int, str], dict]:
    """A running 2-player game of human seats: its id, the tokens, the last join's view."""
    status, game, _ = client.call("POST", "/games", {"players": 2})
    expect(status, 201, game)
    tokens = {}
    for invite in game["invites"]:
        seat = invite["seat"]
        body = {"invite": invite["invite"], "name": f"bench {seat}"}
        status, joined, _ = client.call("POST", f"/games/{game['game_id']}/seats/{seat}", body)
        expect(status, 201, joined)
        tokens[seat] = joined["token"]
    return game["game_id"], tokens, joined["view"]


def play(port: int, start_at: float, seconds: float, seed: int, read: str) -> Sample:
    """Play games from `start_at` for `seconds`, timing every move and read request."""
    client, rng, sample = Client(port), random.Random(seed), Sample()
    game_id, tokens, view = new_game(client)
    time.sleep(max(0.0, start_at - time.time()))
    end = start_at + seconds
    while time.time() < end:
        if view["status"] != "running":
            game_id, tokens, view = new_game(client)
            sample.games += 1
            continue
        seat = view["table"]["to_act"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        if view["you"]["seat"] == seat:
            version, legal = view["version"], view["you"]["legal"]
        else:
            version, legal = read_legal(client, game_id, auth, read, sample)
        move = {"move": rng.choice(legal), "expected_version": version}
        headers = {**auth, "Idempotency-Key": uuid.uuid4().hex}
        status, moved, elapsed = client.call("POST", f"/games/{game_id}/moves", move, headers)
        expect(status, 201, moved)
        sample.moves.append(elapsed)
        view = moved["view"]
    return sample


def read_legal(client: Client, game_id: str, auth: dict, read: str, sample: Sample):
    """The game's version and the legal moves of the seat `auth` opens, from its view
    or from `/legal`; the request is timed."""
    if read == "legal":
        status, answer, elapsed = client.call("GET", f"/games/{game_id}/legal", headers=auth)
        legal = answer.get("legal")
    else:
        status, answer, elapsed = client.call("GET", f"/games/{game_id}", headers=auth)
        legal = answer.get("you", {}).get("legal")
    expect(status, 200, answer)
    sample.reads.append(elapsed)
    return answer["version"], legal


def check_health(port: int, start_at: float, seconds: float, seed: int, read: str) -> Sample:
    """Ask GET /healthz from `start_at` for `seconds`, timing every request (`seed` and
    `read` are play's, unused here)."""
    client, sample = Client(port), Sample()
    time.sleep(max(0.0, start_at - time.time()))
    end = start_at + seconds
    while time.time() < end:
        status, body, elapsed = client.call("GET", "/healthz")
        expect(status, 200, body)
        sample.healthz.append(elapsed)
    return sample


def measure(kind, port: int, clients: int, seconds: float, read: str) -> Sample:
    """Run `clients` processes of `kind` (play or check_health) at once; their samples."""
    start_at = time.time() + 1 + 0.05 * clients  # time for every client to connect
    arguments = [(port, start_at, seconds, seed, read) for seed in range(clients)]
    context = multiprocessing.get_context("fork")
    with context.Pool(clients) as pool:
        pending = pool.starmap_async(kind, arguments)
        name = "moves" if kind is play else "healthz"
        ticks = round(seconds)
        with tqdm(total=ticks, desc=f"{clients:>3} clients {name}", unit="s", leave=False) as bar:
            while not pending.ready():
                pending.wait(0.2)
                bar.update(min(ticks, max(0, int(time.time() - start_at))) - bar.n)
        samples = pending.get()
    total = Sample()
    for sample in samples:
        total.moves += sample.moves
        total.reads += sample.reads
        total.healthz += sample.healthz
        total.games += sample.games
    return total


def percentile(latencies: list[float], fraction: float) -> float:
    """The latency under which `fraction` of them fall, in milliseconds."""
    if not latencies:
        return float("nan")
    ordered = sorted(latencies)
    return 1000 * ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serving(workers: int, threads: int):
    """`claim serve` in a subprocess on a free port, stopped (and its keys deleted) after."""
    with tempfile.TemporaryDirectory(prefix="claim-bench-") as scratch:
        prefix = f"bench-{uuid.uuid4().hex[:12]}"
        env = {**os.environ, "CLAIM_PREFIX": prefix, "CLAIM_RATE_LIMIT": RATE_LIMIT}
        env["CLAIM_DATA_DIR"] = str(Path(scratch) / "data")  # used without REDIS_URL
        port = free_port()
        command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port)]
        command += ["--workers", str(workers), "--threads", str(threads)]
        log = Path(scratch) / "serve.log"
        with log.open("wb") as errors:
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,  # the access log
                stderr=errors,
                start_new_session=True,
            )
        try:
            wait_for_health(port, process, log)
            yield port
        finally:
            stop(process)
            if os.environ.get("REDIS_URL"):
                with redis.Redis.from_url(os.environ["REDIS_URL"]) as client:
                    delete_keys(client, prefix)


def wait_for_health(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.time() + STARTUP
    while time.time() < deadline:
        if process.poll() is not None:
            sys.exit(f"claim serve exited with {process.returncode}:\n{log.read_text()}")
        try:
            if Client(port).call("GET", "/healthz")[0] == 200:
                return
        except OSError:
            pass  # not listening yet
        time.sleep(0.1)
    sys.exit(f"claim serve did not answer /healthz in {STARTUP} s:\n{log.read_text()}")


def stop(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL to whatever of its process group is left."""
    if process.poll() is None:
        process.terminate()
    with suppress(subprocess.TimeoutExpired):
        process.wait(timeout=30)
    with suppress(ProcessLookupError):  # nothing left
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10, help="per measurement")
    parser.add_argument("--clients", default="1,8,32", help="comma-separated client counts")
    parser.add_argument("--workers", type=int, default=2, help="claim serve --workers")
    parser.add_argument("--threads", type=int, default=8, help="claim serve --threads")
    parser.add_argument(
        "--read",
        choices=("view", "legal"),
        default="view",
        help="how a client learns the other seat's legal moves: its view, or /legal",
    )
    args = parser.parse_args()
    counts = [int(count) for count in args.clients.split(",")]
    redis_at = os.environ.get("REDIS_URL") or "embedded"
    rows = []
    with serving(args.workers, args.threads) as port:
        for clients in counts:
            health = measure(check_health, port, clients, args.seconds, args.read)
            moves = measure(play, port, clients, args.seconds, args.read)
            rows.append((clients, health, moves))

    print(
        f"claim serve --workers {args.workers} --threads {args.threads}, Redis {redis_at},"
        f" reads: {args.read}, {args.seconds:g} s per measurement,"
        f" {os.cpu_count()} CPUs (clients included)"
    )
    print(
        f"{'clients':>7} {'healthz/s':>10} {'p50 ms':>7} {'p99 ms':>7}"
        f" {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'ratio':>6}"
        f" {'reads/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'games':>6} {'loop':>5}"
    )
    for clients, health, moves in rows:
        healthz_rate = len(health.healthz) / args.seconds
        move_rate = len(moves.moves) / args.seconds
        read_rate = len(moves.reads) / args.seconds
        print(
            f"{clients:>7} {healthz_rate:>10,.0f}"
            f" {percentile(health.healthz, 0.5):>7.1f} {percentile(health.healthz, 0.99):>7.1f}"
            f" {move_rate:>8,.0f}"
            f" {percentile(moves.moves, 0.5):>7.1f} {percentile(moves.moves, 0.99):>7.1f}"
            f" {move_rate / healthz_rate:>6.2f}"
            f" {read_rate:>8,.0f}"
            f" {percentile(moves.reads, 0.5):>7.1f} {percentile(moves.reads, 0.99):>7.1f}"
            f" {moves.games:>6} {(move_rate + read_rate) / healthz_rate:>5.2f}"
        )
    print("target: moves/s at least half of healthz/s (ratio >= 0.50); p99 of a move < 50 ms at 8")


if __name__ == "__main__":
    main()
