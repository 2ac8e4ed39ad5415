"""End to end: the real `claim serve` in a subprocess, played over HTTP.

The server runs twice: on the test session's Redis (`REDIS_URL`, with a key prefix of
its own that is deleted afterwards), and with `REDIS_URL` unset, on the embedded Redis
it starts itself in a temporary `CLAIM_DATA_DIR`. Every seat is a client of its own,
holding only its token: it long-polls its view and posts a legal move when it is to act.
The result at the end must be the engine's for the same deck and decisions.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
import requests

from service.domain import Settings, apply, is_over, new_game, result
from service.runtime.local_cluster import free_port
from tests.processes import alive, descendants

ROOT = Path(__file__).resolve().parents[2]
STARTUP = 60  # seconds `claim serve` may take to answer /healthz
LONG_POLL = 5  # seconds a waiting seat holds each long-poll
PATIENCE = 300  # seconds before a game that stopped moving fails the test, not hangs it
RACERS = 8


@dataclass
class Server:
    """A running `claim serve`, and what its clients need: its URL."""

    url: str

    def create(self, players: int) -> tuple[str, dict[int, str]]:
        """A new game of human seats, every seat joined: its id and each seat's token."""
        response = requests.post(f"{self.url}/games", json={"players": players}, timeout=10)
        assert response.status_code == 201, response.text
        game = response.json()
        tokens = {}
        for invite in game["invites"]:
            seat = invite["seat"]
            response = requests.post(
                f"{self.url}/games/{game['game_id']}/seats/{seat}",
                json={"invite": invite["invite"], "name": f"player {seat}"},
                timeout=10,
            )
            assert response.status_code == 201, response.text
            tokens[seat] = response.json()["token"]
        return game["game_id"], tokens

    def client(self, token: str) -> requests.Session:
        """A client holding one seat's token."""
        session = requests.Session()
        session.headers["Authorization"] = f"Bearer {token}"
        return session


def start(env: dict[str, str], log: Path, port: int | None = None) -> tuple[subprocess.Popen, int]:
    """`claim serve` on `port` (default: a free one), its output to `log`."""
    port = port or free_port()
    command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port)]
    with log.open("wb") as output:
        return subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so that a kill reaches all
        ), port


def stop(process: subprocess.Popen) -> None:
    """SIGTERM (serve stops gunicorn, its worker and the embedded Redis), then SIGKILL
    to whatever is left of what it started."""
    started = descendants(process.pid)
    if process.poll() is None:
        process.terminate()
    with suppress(subprocess.TimeoutExpired):
        process.wait(timeout=30)
    for pid in [process.pid, *started]:
        if alive(pid):
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    process.wait()


def wait_for_health(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"claim serve exited with {process.returncode}:\n{log.read_text()}")
        try:
            response = requests.get(f"{url}/healthz", timeout=1)
            if response.status_code == 200 and response.json() == {"status": "ok"}:
                return
        except requests.RequestException:  # not listening yet, or still starting
            pass
        time.sleep(0.1)
    pytest.fail(f"claim serve did not answer /healthz in {STARTUP} s:\n{log.read_text()}")


@pytest.fixture(scope="module", params=["redis-url", "embedded-redis"])
def server(request, redis_url, tmp_path_factory) -> Server:
    """`claim serve` on a free port, on the test Redis or on its own embedded one."""
    unset = ("REDIS_URL", "CLAIM_PREFIX", "CLAIM_DATA_DIR", "CLAIM_RATE_LIMIT")
    env = {name: value for name, value in os.environ.items() if name not in unset}
    prefix = None
    if request.param == "redis-url":
        prefix = f"test-serve-{uuid.uuid4().hex[:12]}"
        env.update(REDIS_URL=redis_url, CLAIM_PREFIX=prefix)
    else:
        env["CLAIM_DATA_DIR"] = str(tmp_path_factory.mktemp("claim-data"))
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    process, port = start(env, log)
    request.addfinalizer(lambda: stop(process))
    if prefix is not None:
        request.addfinalizer(lambda: delete_keys(redis_url, prefix))
    url = f"http://127.0.0.1:{port}"
    wait_for_health(url, process, log)
    return Server(url)


def delete_keys(redis_url: str, prefix: str) -> None:
    client = redis.Redis.from_url(redis_url)
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


def play_seat(server: Server, game_id: str, seat: int, token: str, gave_up: threading.Event):
    """One seat's client: wait for its turn, post a random legal move, until the end (or
    until another seat's client gave up). Answers the moves it made, as (version, seat,
    move), and its last view."""
    client = server.client(token)
    rng = random.Random(seat)
    url = f"{server.url}/games/{game_id}"
    made = []
    deadline = time.monotonic() + PATIENCE
    try:
        view = client.get(url, timeout=10).json()
        while view["status"] == "running" and not gave_up.is_set():
            assert time.monotonic() < deadline, f"seat {seat}: the game stopped moving"
            if view["table"]["to_act"] != seat:
                params = {"after": view["version"], "wait": LONG_POLL}
                response = client.get(url, params=params, timeout=LONG_POLL + 10)
                assert response.status_code == 200, response.text
                view = response.json()
                continue
            move = rng.choice(view["you"]["legal"])
            response = client.post(
                f"{url}/moves",
                json={"move": move, "expected_version": view["version"]},
                headers={"Idempotency-Key": str(uuid.uuid4())},
                timeout=10,
            )
            assert response.status_code == 201, response.text
            made.append((response.json()["version"], seat, move))
            view = response.json()["view"]
    except BaseException:
        gave_up.set()
        raise
    return made, view


def result_body(state) -> dict:
    """The engine's result of a finished state, in the API's form."""
    outcome = result(state)
    return {
        "faction_winners": {faction.code: side for faction, side in outcome.faction_winners},
        "side_keys": [list(key) for key in outcome.side_keys],
        "winner": outcome.winner,
    }


@pytest.mark.parametrize("players", [2, 3, 4])
def test_seats_play_a_whole_game_over_http_to_the_engines_result(server, players):
    game_id, tokens = server.create(players)
    gave_up = threading.Event()
    with ThreadPoolExecutor(players) as pool:
        seats = [
            pool.submit(play_seat, server, game_id, seat, token, gave_up)
            for seat, token in tokens.items()
        ]
        played = [future.result() for future in seats]

    made = sorted(move for moves, _ in played for move in moves)
    final_views = [view for _, view in played]
    assert {view["status"] for view in final_views} == {"finished"}
    assert {view["ending"]["reason"] for view in final_views} == {"completed"}
    audit = requests.get(f"{server.url}/games/{game_id}/audit", timeout=10).json()
    assert audit["commitment_verified"] and audit["result_verified"]
    assert [(d["version"], d["seat"], d["move"]) for d in audit["decisions"]] == made

    settings = Settings(audit["players"], audit["factions"], audit["first_leader"])
    state = new_game(settings, audit["deck"])
    for _, seat, move in made:
        state = apply(state, move, seat=seat)
    assert is_over(state)
    for view in final_views:
        assert view["result"] == result_body(state)
    assert audit["result"] == result_body(state)


def race(server: Server, game_id: str, token: str, move: str, version: int, keys: list[str]):
    """Every key's client posts `move` at `version` at the same moment; their answers."""
    start = threading.Barrier(len(keys))

    def post(key: str) -> requests.Response:
        client = server.client(token)
        start.wait()
        return client.post(
            f"{server.url}/games/{game_id}/moves",
            json={"move": move, "expected_version": version},
            headers={"Idempotency-Key": key},
            timeout=10,
        )

    with ThreadPoolExecutor(len(keys)) as pool:
        return list(pool.map(post, keys))


def acting(server: Server, game_id: str, tokens: dict[int, str]) -> tuple[int, str, int]:
    """The acting seat, its first legal move and the game's version."""
    seat = requests.get(f"{server.url}/games/{game_id}", timeout=10).json()["table"]["to_act"]
    view = server.client(tokens[seat]).get(f"{server.url}/games/{game_id}", timeout=10).json()
    return seat, view["you"]["legal"][0], view["version"]


def test_racing_clients_at_one_version_land_exactly_one_move(server):
    game_id, tokens = server.create(2)
    for _ in range(5):
        seat, move, version = acting(server, game_id, tokens)
        keys = [f"racer {n} at {version}" for n in range(RACERS)]
        responses = race(server, game_id, tokens[seat], move, version, keys)

        statuses = sorted(response.status_code for response in responses)
        assert statuses == [201] + [409] * (RACERS - 1), [r.text for r in responses]
        for response in responses:
            if response.status_code == 201:
                assert response.json()["version"] == version + 1
            else:
                assert response.json()["type"] == "/problems/stale-version"
                assert response.json()["current_version"] == version + 1


def test_racing_repeats_of_one_request_land_it_once_and_all_get_its_answer(server):
    game_id, tokens = server.create(2)
    for _ in range(5):
        seat, move, version = acting(server, game_id, tokens)
        key = f"the one request at {version}"
        responses = race(server, game_id, tokens[seat], move, version, [key] * RACERS)

        assert [response.status_code for response in responses] == [201] * RACERS
        assert {response.json()["version"] for response in responses} == {version + 1}
    events = requests.get(f"{server.url}/games/{game_id}/events", timeout=10).json()
    assert [event["type"] for event in events["events"]].count("DecisionMade") == 5


def _raw(server: Server, request: bytes) -> tuple[int, dict, bytes]:
    """Send `request` as it is; the status, headers and body of the answer."""
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
            head, _, body = answer.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
            if body and len(body) >= int(headers.get("Content-Length", -1)):
                return int(lines[0].split()[1]), headers, body
    raise AssertionError(f"no whole answer: {answer[:500]!r}")


def _chunked(path: str, body: bytes) -> bytes:
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(body[at : at + 8192]), body[at : at + 8192])
        for at in range(0, len(body), 8192)
    )
    return (
        (
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        ).encode()
        + chunks
        + b"0\r\n\r\n"
    )


def test_a_chunked_body_is_read_whole_and_refused_over_the_limit(server):
    status, _, body = _raw(server, _chunked("/games", b'{"players": 2}'))
    assert status == 201, body
    padded = b'{"players": 2, "padding": "' + b"x" * 70_000 + b'"}'
    status, headers, body = _raw(server, _chunked("/games", padded))
    assert (status, headers["Content-Type"]) == (413, "application/problem+json"), body
    assert json.loads(body)["type"] == "/problems/payload-too-large"


@pytest.mark.parametrize(
    ("request_text", "status", "kind"),
    [
        (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri-too-long"),
        (
            b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
            + b"".join(b"X-%d: %s\r\n" % (n, b"y" * 100) for n in range(200))
            + b"\r\n",
            431,
            "headers-too-large",
        ),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", 400, "validation-error"),
    ],
    ids=["long-request-line", "too-many-headers", "malformed-header"],
)
def test_what_the_http_server_refuses_itself_is_a_problem_too(server, request_text, status, kind):
    answered, headers, body = _raw(server, request_text)
    assert (answered, headers["Content-Type"]) == (status, "application/problem+json"), body
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert json.loads(body)["type"] == f"/problems/{kind}"


def test_a_live_stream_on_the_real_server_gets_each_move(server):
    game_id, tokens = server.create(2)
    seat, move, version = acting(server, game_id, tokens)
    with requests.get(
        f"{server.url}/games/{game_id}/stream", stream=True, timeout=30, headers={"Accept": "*/*"}
    ) as stream:
        lines = stream.iter_lines()
        assert next(lines) == f"id: {version}".encode()
        response = server.client(tokens[seat]).post(
            f"{server.url}/games/{game_id}/moves",
            json={"move": move, "expected_version": version},
            headers={"Idempotency-Key": "live"},
            timeout=10,
        )
        assert response.status_code == 201
        ids = (line for line in lines if line.startswith(b"id: "))
        assert next(ids) == f"id: {version + 1}".encode()


@pytest.mark.parametrize("server", ["embedded-redis"], indirect=True)  # its AI worker plays
def test_claim_ladder_plays_rated_ai_games_and_fills_the_leaderboard(server):
    command = [sys.executable, "-m", "service.cli", "ladder", "--url", server.url]
    options = ["--players", "2", "--games", "4", "--levels", "random,greedy", "--parallel", "2"]
    done = subprocess.run(
        [*command, *options], cwd=ROOT, capture_output=True, text=True, timeout=PATIENCE
    )
    assert done.returncode == 0, done.stderr
    assert "4/4" in done.stderr  # the progress bar
    board = requests.get(f"{server.url}/ratings?players=2", timeout=10).json()
    assert {(s["player_id"], s["games"]) for s in board["standings"]} == {
        ("ai:random", 4),
        ("ai:greedy", 4),
    }
    for standing in board["standings"]:
        assert f"{standing['rank']:>4} {standing['player_id']:<24} {standing['rating']:>7.2f}" in (
            done.stdout
        )
