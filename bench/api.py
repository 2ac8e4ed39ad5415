"""API speed: `POST /games/{id}/moves` beside `GET /healthz`, on a real `claim serve`.

    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/api.py \\
        [--seconds 10] [--slices 3] [--clients 1,8,32] [--workers 2] [--connections 10000]

Starts `claim serve` on a free port, on `REDIS_URL` if set, else on an embedded Redis
started in a temporary directory, with the rate limit raised so that it is checked but
never trips. For each number of clients, each client a process of its own with one
keep-alive connection, three measurements of --seconds each, taken in turns of
--seconds/--slices so that a machine whose speed drifts during the run (a shared one)
slows all three alike:

- `healthz`: every client asks `GET /healthz`;
- `moves`: every client plays its own 2-player games of human seats, posting moves
  only (with `expected_version` and an `Idempotency-Key`). The bench deals each game's
  deck itself, through the store as the tests do, so that the client knows every
  decision in advance (random legal ones, from the engine) and reads nothing;
- `play`: the same games as a client that knows nothing in advance plays them: the
  answer to a move carries the mover's view only, so when the other seat is to act the
  client reads that seat's view (`GET /games/{id}`, or with `--read legal` the lighter
  `GET /games/{id}/legal`) for its legal moves, then posts one.

A finished game is replaced by a new one (created and joined over the API, untimed).
Moves/s and their latencies count the POSTs; `ratio` is moves/s over healthz/s at the
same concurrency, the figure of the issue. For `play`, `loop` gives the requests of
the play loop (moves and reads) per second over healthz/s.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager, nullcontext, suppress
from dataclasses import dataclass, field
from pathlib import Path

import orjson
from common import delete_keys, random_game, redis_url
from tqdm import tqdm

from service.config import Config, child_environment
from service.domain import Settings, random_factions
from service.events import HUMAN, GameStore, SeatSpec, connect, digest
from service.runtime.local_cluster import free_port

ROOT = Path(__file__).resolve().parents[1]
RATE_LIMIT = "1000000 per minute"  # checked on every request, never reached
STARTUP = 60  # seconds `claim serve` may take to answer /healthz
INVITE = "bench-invite"  # of every seat of a game the bench deals itself


@dataclass(frozen=True)
class Server:
    """Where `claim serve` listens, and its Redis and key prefix."""

    port: int
    redis_url: str
    prefix: str
    pid: int  # of claim serve


@dataclass
class Sample:
    """What one client measured: latencies in seconds, by kind of request."""

    moves: list[float] = field(default_factory=list)
    reads: list[float] = field(default_factory=list)
    healthz: list[float] = field(default_factory=list)
    games: int = 0

    def add(self, other: Sample) -> None:
        self.moves += other.moves
        self.reads += other.reads
        self.healthz += other.healthz
        self.games += other.games


class Client:
    """One keep-alive HTTP connection to the server, JSON in and out."""

    def __init__(self, port: int):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method: str, path: str, body=None, headers=None) -> tuple[int, dict, float]:
        """(status, JSON body, seconds taken). A connection the server closed while idle
        (gunicorn keeps one alive for 2 s) is opened again and the request sent again:
        safe for a move too, as it repeats its Idempotency-Key. orjson reads the
        answers: the clients share the server's CPUs, and a view is 5 kB of JSON."""
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
        return response.status, orjson.loads(payload) if payload else {}, elapsed


def expect(status: int, wanted: int, body: dict) -> None:
    if status != wanted:
        raise RuntimeError(f"expected {wanted}, got {status}: {body}")


def join_all(client: Client, game_id: str, invites: dict[int, str]) -> tuple[dict, dict]:
    """Take every seat of the game: the tokens by seat, and the last join's view."""
    tokens = {}
    for seat, invite in invites.items():
        body = {"invite": invite, "name": f"bench {seat}"}
        status, joined, _ = client.call("POST", f"/games/{game_id}/seats/{seat}", body)
        expect(status, 201, joined)
        tokens[seat] = joined["token"]
    return tokens, joined["view"]


def a_game(client: Client) -> tuple[str, dict[int, str], dict]:
    """A running 2-player game of human seats: its id, the tokens, the last join's view."""
    status, game, _ = client.call("POST", "/games", {"players": 2})
    expect(status, 201, game)
    invites = {invite["seat"]: invite["invite"] for invite in game["invites"]}
    tokens, view = join_all(client, game["game_id"], invites)
    return game["game_id"], tokens, view


def a_scripted_game(client: Client, store: GameStore, rng: random.Random):
    """A running 2-player game of human seats over a deck the bench dealt, and its
    decisions to the end: its id, the tokens, the version after the joins and the
    decisions as (seat, move)."""
    settings = Settings(2, random_factions(2, rng))
    deck, decisions = random_game(settings, rng)
    game = store.create(settings, [SeatSpec(HUMAN, invite_hash=digest(INVITE))] * 2, deck=deck)
    tokens, view = join_all(client, game.id, {0: INVITE, 1: INVITE})
    return game.id, tokens, view["version"], [(made.seat, str(made.decision)) for made in decisions]


def post_move(client: Client, game_id: str, token: str, move: str, version: int, sample):
    """Post one move, timed; answer the mover's view."""
    body = {"move": move, "expected_version": version}
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex}
    status, moved, elapsed = client.call("POST", f"/games/{game_id}/moves", body, headers)
    expect(status, 201, moved)
    sample.moves.append(elapsed)
    return moved["view"]


def post_moves(server: Server, start_at: float, seconds: float, seed: int, read: str) -> Sample:
    """Play scripted games from `start_at` for `seconds`, posting moves only."""
    client, rng, sample = Client(server.port), random.Random(seed), Sample()
    store = GameStore(connect(Config(), server.redis_url), server.prefix)
    game_id, tokens, version, script = a_scripted_game(client, store, rng)
    time.sleep(max(0.0, start_at - time.time()))
    end = start_at + seconds
    while time.time() < end:
        if not script:
            game_id, tokens, version, script = a_scripted_game(client, store, rng)
            sample.games += 1
            continue
        seat, move = script.pop(0)
        post_move(client, game_id, tokens[seat], move, version, sample)
        version += 1
    return sample


def play(server: Server, start_at: float, seconds: float, seed: int, read: str) -> Sample:
    """Play games from `start_at` for `seconds`, reading the view (or `/legal`) of the
    seat to act when the last answer was the other seat's; every request timed."""
    client, rng, sample = Client(server.port), random.Random(seed), Sample()
    game_id, tokens, view = a_game(client)
    time.sleep(max(0.0, start_at - time.time()))
    end = start_at + seconds
    while time.time() < end:
        if view["status"] != "running":
            game_id, tokens, view = a_game(client)
            sample.games += 1
            continue
        seat = view["table"]["to_act"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        if view["you"]["seat"] == seat:
            version, legal = view["version"], view["you"]["legal"]
        else:
            version, legal = read_legal(client, game_id, auth, read, sample)
        view = post_move(client, game_id, tokens[seat], rng.choice(legal), version, sample)
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


def check_health(server: Server, start_at: float, seconds: float, seed: int, read: str) -> Sample:
    """Ask GET /healthz from `start_at` for `seconds`, timing every request (`seed` and
    `read` are the players', unused here)."""
    client, sample = Client(server.port), Sample()
    time.sleep(max(0.0, start_at - time.time()))
    end = start_at + seconds
    while time.time() < end:
        status, body, elapsed = client.call("GET", "/healthz")
        expect(status, 200, body)
        sample.healthz.append(elapsed)
    return sample


KINDS = {"healthz": check_health, "moves": post_moves, "play": play}


def measure(
    kind: str, server: Server, clients: int, seconds: float, read: str, turn: int = 0
) -> Sample:
    """Run `clients` processes of `kind` at once; their samples, added up. `turn`: the
    how-manieth measurement of this kind, for the seeds and the progress bar."""
    start_at = time.time() + 1 + 0.05 * clients  # time for every client to set up
    seeds = range(turn * clients, (turn + 1) * clients)
    arguments = [(server, start_at, seconds, seed, read) for seed in seeds]
    context = multiprocessing.get_context("fork")
    with context.Pool(clients) as pool:
        pending = pool.starmap_async(KINDS[kind], arguments)
        ticks = round(seconds)
        desc = f"{clients:>3} clients {kind} {turn + 1}"
        with tqdm(total=ticks, desc=desc, unit="s", leave=False) as bar:
            while not pending.ready():
                pending.wait(0.2)
                bar.update(min(ticks, max(0, int(time.time() - start_at))) - bar.n)
        samples = pending.get()
    total = Sample()
    for sample in samples:
        total.add(sample)
    return total


def percentile(latencies: list[float], fraction: float) -> float:
    """The latency under which `fraction` of them fall, in milliseconds."""
    if not latencies:
        return float("nan")
    ordered = sorted(latencies)
    return 1000 * ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


@contextmanager
def serving(
    workers: int, connections: int, rq_worker: bool = False, url: str | None = None, **settings
):
    """`claim serve` in a subprocess on a free port, on the Redis at `url` (default:
    `common.redis_url()`), with the environment `settings` on top (and an RQ worker
    beside it with `rq_worker`); stopped (and its keys deleted) after. Answers the
    server and its process."""
    with (
        nullcontext(url) if url else redis_url() as url,
        tempfile.TemporaryDirectory(prefix="claim-bench-") as scratch,
    ):
        prefix = f"bench-{uuid.uuid4().hex[:12]}"
        env = child_environment(
            REDIS_URL=url, CLAIM_PREFIX=prefix, CLAIM_RATE_LIMIT=RATE_LIMIT, **settings
        )
        port = free_port()
        command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port)]
        command += ["--workers", str(workers), "--connections", str(connections)]
        command += ["--rq-worker"] if rq_worker else []
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
            yield Server(port, url, prefix, process.pid)
        finally:
            stop(process)
            with connect(Config(), url) as client:
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
    parser.add_argument("--slices", type=int, default=3, help="turns a measurement is taken in")
    parser.add_argument("--clients", default="1,8,32", help="comma-separated client counts")
    parser.add_argument("--workers", type=int, default=2, help="claim serve --workers")
    parser.add_argument("--connections", type=int, default=10_000, help="claim serve --connections")
    parser.add_argument(
        "--read",
        choices=("view", "legal"),
        default="view",
        help="how a client learns the other seat's legal moves: its view, or /legal",
    )
    args = parser.parse_args()
    counts = [int(count) for count in args.clients.split(",")]
    redis_at = Config.from_env().redis_url or "embedded"
    rows = []
    with serving(args.workers, args.connections) as server:
        for clients in counts:
            samples = {kind: Sample() for kind in KINDS}
            for turn in range(args.slices):
                for kind, sample in samples.items():
                    seconds = args.seconds / args.slices
                    sample.add(measure(kind, server, clients, seconds, args.read, turn))
            rows.append((clients, samples))

    print(
        f"claim serve --workers {args.workers} --connections {args.connections},"
        f" Redis {redis_at},"
        f" play reads: {args.read}, {args.seconds:g} s per measurement in {args.slices} turns,"
        f" {os.cpu_count()} CPUs (clients included)"
    )
    print(
        f"{'clients':>7} {'kind':<8} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'ratio':>6}"
        f" {'reads/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'games':>6} {'loop':>5}"
    )
    for clients, samples in rows:
        healthz_rate = len(samples["healthz"].healthz) / args.seconds
        for kind, sample in samples.items():
            timed = sample.healthz if kind == "healthz" else sample.moves
            rate = len(timed) / args.seconds
            line = f"{clients:>7} {kind:<8} {rate:>7,.0f}"
            line += f" {percentile(timed, 0.5):>7.1f} {percentile(timed, 0.99):>7.1f}"
            if kind != "healthz":
                line += f" {rate / healthz_rate:>6.2f}"
            if kind == "play":
                reads = len(sample.reads) / args.seconds
                line += f" {reads:>8,.0f}"
                line += f" {percentile(sample.reads, 0.5):>7.1f}"
                line += f" {percentile(sample.reads, 0.99):>7.1f}"
                line += f" {sample.games:>6} {(rate + reads) / healthz_rate:>5.2f}"
            elif kind == "moves":
                line += f" {'':>8} {'':>7} {'':>7} {sample.games:>6}"
            print(line)
    print("target: moves/s at least half of healthz/s (ratio >= 0.50); p99 of a move < 50 ms at 8")


if __name__ == "__main__":
    main()
