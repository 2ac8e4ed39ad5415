"""End to end, play-by-mail: players who act only when a webhook tells them to, and one
who never answers, play through `claim serve` and a real RQ worker to the end.

The never-answering player's move time (30 s, the shortest allowed) runs out once;
the `takeover` policy then has an AI play the seat to the end of the game.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import queue
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import redis
import requests

from tests.rq_keys import delete_rq_keys
from tests.runtime.test_serve import ROOT, delete_keys, free_port, stop, wait_for_health

PATIENCE = 240  # seconds for both games to end


class Receiver:
    """A local webhook receiver: checks each signature with the player's secret, and
    hands each notification to that player's queue."""

    def __init__(self):
        self.secrets: dict[str, str] = {}
        self.inboxes: dict[str, queue.Queue] = {}
        self.bad_signatures: list[str] = []
        self.deliveries: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                player_id = self.path.rsplit("/", 1)[-1]
                body = self.rfile.read(int(self.headers["Content-Length"]))
                stamp, mac = (
                    part.split("=", 1)[1] for part in self.headers["Claim-Signature"].split(",")
                )
                secret = receiver.secrets[player_id].encode()
                expected = hmac.new(secret, f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
                if not hmac.compare_digest(mac, expected) or abs(time.time() - int(stamp)) > 300:
                    receiver.bad_signatures.append(self.headers["Claim-Delivery"])
                else:
                    receiver.deliveries.append(self.headers["Claim-Delivery"])
                    receiver.inboxes[player_id].put(json.loads(body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def served(redis_url, tmp_path):
    """`claim serve` with its RQ worker, on the test Redis, webhooks allowed to 127.0.0.1."""
    prefix = f"test-mail-{uuid.uuid4().hex[:12]}"
    env = {k: v for k, v in os.environ.items() if k not in ("CLAIM_RATE_LIMIT", "SMTP_URL")}
    env.update(REDIS_URL=redis_url, CLAIM_PREFIX=prefix, WEBHOOK_ALLOW="127.0.0.1")
    log = tmp_path / "serve.log"
    port = free_port()
    command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--rq-worker"]
    with log.open("wb") as output:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(url, process, log)
        yield url
    finally:
        stop(process)
        delete_keys(redis_url, prefix)
        with redis.Redis.from_url(redis_url) as client:
            delete_rq_keys(client, prefix)


def register(url: str, receiver: Receiver, name: str) -> dict:
    player = requests.post(f"{url}/players", json={"name": name}, timeout=10).json()
    receiver.secrets[player["player_id"]] = player["webhook_secret"]
    receiver.inboxes[player["player_id"]] = queue.Queue()
    hook = f"{receiver.url}/{player['player_id']}"
    headers = {"Authorization": f"Bearer {player['key']}"}
    assert requests.patch(f"{url}/me", json={"webhook_url": hook}, headers=headers, timeout=10).ok
    return player


def answer_webhooks(url: str, player: dict, receiver: Receiver, games: set[str], errors: list):
    """A player who acts only when told: on your-turn, read the view and move; stop once
    every game of `games` is over."""
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {player['key']}"
    deadline = time.monotonic() + PATIENCE
    try:
        while games:
            note = receiver.inboxes[player["player_id"]].get(timeout=deadline - time.monotonic())
            if note["kind"] == "game-over":
                games.discard(note["game_id"])
            elif note["kind"] == "your-turn":
                view = session.get(f"{url}/games/{note['game_id']}", timeout=10).json()
                if view["table"]["to_act"] != view["you"]["seat"]:
                    continue  # an old notice: the game moved on since
                response = session.post(
                    f"{url}/games/{note['game_id']}/moves",
                    json={"move": view["you"]["legal"][0], "expected_version": view["version"]},
                    headers={"Idempotency-Key": note["delivery_id"]},
                    timeout=10,
                )
                assert response.status_code in (201, 409), response.text
    except Exception as error:  # reported by the test's thread
        errors.append(error)


def new_game(url: str, players: list[dict], timeout_limit: int) -> str:
    """A game of these players' seats, in order, with 30 s per move and a takeover at
    `timeout_limit` timeouts in a row."""
    body = {
        "players": len(players),
        "move_time_limit": 30,
        "timeout_policy": "takeover:random",
        "timeout_limit": timeout_limit,
    }
    game = requests.post(f"{url}/games", json=body, timeout=10).json()
    for invite, player in zip(game["invites"], players, strict=True):
        response = requests.post(
            f"{url}/games/{game['game_id']}/seats/{invite['seat']}",
            json={"invite": invite["invite"]},
            headers={"Authorization": f"Bearer {player['key']}"},
            timeout=10,
        )
        assert response.status_code == 201, response.text
    return game["game_id"]


def test_players_who_act_on_webhooks_and_one_who_never_answers_finish_their_games(served):
    receiver = Receiver()
    ann, bo, cy = (register(served, receiver, name) for name in ("Ann", "Bo", "Cy"))
    two = new_game(served, [ann, cy], timeout_limit=2)  # an AI decides once, then takes over
    three = new_game(served, [bo, ann, cy], timeout_limit=1)
    errors: list = []
    threads = [
        threading.Thread(
            target=answer_webhooks, args=(served, ann, receiver, {two, three}, errors)
        ),
        threading.Thread(target=answer_webhooks, args=(served, bo, receiver, {three}, errors)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert receiver.bad_signatures == []
    assert len(set(receiver.deliveries)) == len(receiver.deliveries)  # none delivered twice
    for game_id, cy_seat, policies in (
        (two, 1, ["ai:random", "takeover:random"]),
        (three, 2, ["takeover:random"]),
    ):
        view = requests.get(f"{served}/games/{game_id}", timeout=10).json()
        assert (view["status"], view["ending"]["reason"]) == ("finished", "completed")
        assert view["seats"][cy_seat]["takeover"] == "random"
        events = requests.get(f"{served}/games/{game_id}/events", timeout=10).json()["events"]
        timeouts = [event["data"] for event in events if event["type"] == "TurnTimedOut"]
        # Cy's time ran out in a row, then the AI played Cy's seat to the end.
        assert timeouts == [{"seat": cy_seat, "policy": policy} for policy in policies]
    # Cy was told of its turn, and of the ends, though it never answered.
    told = []
    while told.count("game-over") < 2:
        told.append(receiver.inboxes[cy["player_id"]].get(timeout=30)["kind"])
    assert "your-turn" in told
