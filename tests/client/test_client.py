"""The client against a real `claim serve`: every operation of the contract once, a
whole game, retries that land a move once, and live streams that resume."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import httpx
import pytest
import yaml
from claim_client import Client, ProblemError, Unreachable

from service.runtime.local_cluster import free_port
from tests.client.conftest import ROOT
from tests.client.test_contract import contract_operations


class Recording(httpx.HTTPTransport):
    """A transport that remembers each request's method and path."""

    def __init__(self):
        super().__init__()
        self.requests: list[tuple[str, str]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append((request.method, request.url.path))
        return super().handle_request(request)

    def operations(self) -> set[tuple[str, str]]:
        """The operations of openapi.yaml the requests were of."""
        paths = yaml.safe_load((ROOT / "openapi.yaml").read_text())["paths"]
        patterns = [(path, re.compile(re.sub(r"\{\w+\}", "[^/]+", path) + "$")) for path in paths]
        found = set()
        for method, sent in self.requests:
            found |= {(method, path) for path, pattern in patterns if pattern.match(sent)}
        return found


class Faulty(httpx.HTTPTransport):
    """A transport that answers one request of `method` whose path ends with `suffix`
    with `status` (and `Retry-After: 0`), or loses its answer (`status=None`): after the
    server has answered it (`forward=True`), or instead of sending it."""

    def __init__(self, method: str, suffix: str, status: int | None, forward: bool):
        super().__init__()
        self.fault = (method, suffix, status, forward)
        self.sent: list[httpx.Request] = []  # the requests it was asked to send

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        method, suffix, status, forward = self.fault
        if request.method != method or not request.url.path.endswith(suffix):
            return super().handle_request(request)
        self.fault = ("", "", 0, False)  # once
        if forward:
            answered = super().handle_request(request)
            answered.read()
            answered.close()
        if status is None:
            raise httpx.RemoteProtocolError("the connection was cut", request=request)
        body = json.dumps({"type": "/problems/store-unavailable", "title": "x", "status": status})
        headers = {"Retry-After": "0", "Content-Type": "application/problem+json"}
        return httpx.Response(status, headers=headers, content=body.encode())


def a_game_of_two(url: str, transport: httpx.BaseTransport | None = None):
    """Two registered players seated in a new 2-player game: their clients, its id."""
    ann, bob = Client(url, transport=transport), Client(url, transport=transport)
    ann.register("Ann")
    bob.register("Bob")
    created = ann.create_game(2, factions="claim")
    for client, invite in zip((ann, bob), created["invites"], strict=True):
        client.join(created["game_id"], invite["seat"], invite["invite"])
    return ann, bob, created["game_id"]


def acting(clients: list[Client], game_id: str) -> Client:
    """The client whose seat is to act."""
    to_act = clients[0].game(game_id)["table"]["to_act"]
    return next(client for client in clients if client.seats[game_id].seat == to_act)


def test_every_operation_of_the_contract_answers_through_the_client(server_url):
    seen = Recording()
    client = Client(server_url, transport=seen)
    assert client.health() == {"status": "ok"}
    assert client.ready()["store"] == "ok"
    assert client.openapi().startswith("components:")
    assert "claim" in client.decks()["presets"]
    assert client.signing_keys()["keys"][0]["algorithm"] == "Ed25519"
    assert client.sign_in_options() == {"by_email": False}
    with pytest.raises(ProblemError) as refused:
        client.send_sign_in_link("ann@example.org")
    assert refused.value.kind == "email-not-configured"
    with pytest.raises(ProblemError) as refused:
        client.sign_in("no such code")
    assert refused.value.kind == "wrong-code" and client.key is None

    ann = client.register("Ann")
    assert client.me()["name"] == "Ann"
    assert client.update_me(name="Ann B")["name"] == "Ann B"
    phone = client.add_device("phone")
    assert [device["name"] for device in client.devices()["devices"]][-1] == "phone"
    client.remove_device(phone["device_id"])
    with pytest.raises(ProblemError) as refused:
        client.confirm_again()
    assert refused.value.kind == "email-not-configured"
    with pytest.raises(ProblemError) as refused:
        client.confirm_email("no such code")
    assert refused.value.kind == "wrong-code"
    laptop = Client(server_url, transport=seen)
    assert laptop.sign_in(client.device_code()["code"])["player_id"] == ann["player_id"]
    old_key = client.key
    assert client.rotate_key()["key"] == client.key != old_key
    assert client.me()["player_id"] == ann["player_id"]
    assert client.deliveries() == {"deliveries": []}
    assert client.take_break(3)["days_used"] == 3
    assert client.breaks()["running"] is True
    assert client.end_break()["days_used"] == 1  # the day begun
    assert len(client.push_key()["public_key"]) == 87  # base64url of a 65-byte point
    with pytest.raises(ProblemError) as refused:  # the server sends to its operator's
        client.subscribe_push({"endpoint": "https://push.example.org/1", "keys": {}})
    assert refused.value.kind == "validation-error"
    assert client.push_subscriptions() == {"subscriptions": []}
    with pytest.raises(ProblemError) as refused:
        client.unsubscribe_push("nonesuch")
    assert refused.value.kind == "unknown-push-subscription"

    created = client.create_game(2, factions="claim")
    game_id = created["game_id"]
    client.join(game_id, 0, created["invites"][0]["invite"])
    guest = Client(server_url, transport=seen)  # no key: a guest's seat, claimed later
    guest.join(game_id, 1, created["invites"][1]["invite"], name="Guest")
    bob = Client(server_url, transport=seen)
    bob.register("Bob")
    bob.hold_seat(game_id, 1, guest.seats[game_id].token)
    assert bob.claim_seat(game_id) == {"game_id": game_id, "seat": 1}
    assert bob.my_games()["games"][0]["game_id"] == game_id
    assert game_id in [game["game_id"] for game in client.lobby("running")["games"]]

    first = next(iter(client.changes(games=[game_id], max_seconds=5)))
    assert (first.type, first.data) == (
        "game",
        {"game_id": game_id, "version": client.game(game_id)["version"]},
    )
    view = next(iter(client.watch(game_id))).data
    assert view["you"]["seat"] == 0
    mover = acting([client, bob], game_id)
    legal = mover.legal(game_id)["legal"]
    moved = mover.move(game_id, legal[0])
    assert moved["version"] == view["version"] + 1
    assert client.game(game_id, after=view["version"], wait=1)["version"] == moved["version"]
    assert client.replay(game_id, 1)["account"]
    assert client.event_log(game_id)["version"] == moved["version"]
    with pytest.raises(ProblemError) as refused:
        client.return_to_seat(game_id, 0)  # no AI plays it
    assert refused.value.status == 409

    assert client.resign(game_id)["view"]["status"] == "finished"
    assert client.audit(game_id)["commitment_verified"] is True
    assert client.export(game_id).count("\n") >= moved["version"]
    asked = client.ask_analysis(game_id)
    assert asked["game_id"] == game_id and asked["status"] in ("queued", "running", "done")
    assert client.analysis(game_id)["total"] == asked["total"]
    assert client.rematch(game_id)["game_id"] != game_id
    assert client.ratings(players=2, bots="exclude")["players"] == 2
    assert client.profile("ai:greedy")["kind"] == "ai"

    bot = Client(server_url, transport=seen)
    bot_id = bot.register("Highcard", bot=True)["player_id"]
    events = bot.my_events()
    assert next(events).type == "state"
    declined = client.challenge(bot_id)
    told = next(events)
    assert (told.type, told.data["challenge"]["id"]) == ("challenge", declined["id"])
    assert [c["id"] for c in bot.my_challenges()["challenges"]] == [declined["id"]]
    assert bot.decline(declined["id"])["status"] == "declined"
    assert client.challenge_of(declined["id"])["status"] == "declined"
    assert client.cancel(client.challenge(bot_id)["id"])["status"] == "cancelled"
    accepted = bot.accept(client.challenge(bot_id)["id"])
    assert accepted["status"] == "accepted"
    assert bot.game(accepted["game_id"])["you"]["seat"] == 1  # its key opens its seat
    events.close()

    assert sorted(contract_operations() - seen.operations()) == []


def test_a_whole_game_against_an_ai_is_played_from_the_game_stream(server_url):
    with Client(server_url) as client:
        client.register("Ann")
        seats = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}]
        created = client.create_game(2, seats=seats)
        game_id = created["game_id"]
        client.join(game_id, 0, created["invites"][0]["invite"])
        moves = 0
        for event in client.watch(game_id):
            legal = (event.data["you"] or {}).get("legal")
            if legal:
                client.move(game_id, legal[-1])  # at the version the stream showed
                moves += 1
        assert event.data["status"] == "finished"
        decisions = [e for e in client.event_log(game_id)["events"] if e["type"] == "DecisionMade"]
        assert sum(decision["data"]["seat"] == 0 for decision in decisions) == moves > 0


def test_a_game_the_key_opens_no_seat_of_is_read_as_the_public(server_url):
    ann, bob, game_id = a_game_of_two(server_url)
    seen = Recording()
    carl = Client(server_url, transport=seen)
    carl.register("Carl")
    assert carl.game(game_id)["you"] is None
    assert next(iter(carl.watch(game_id))).data["you"] is None
    assert ann.game(game_id)["you"]["seat"] == 0
    with pytest.raises(ProblemError) as refused:
        carl.legal(game_id)
    assert refused.value.status == 401

    # The game has started: its seats are taken, and the key is not sent again.
    player = acting([ann, bob], game_id)
    player.move(game_id, player.legal(game_id)["legal"][0])
    sent = len(seen.requests)
    assert carl.game(game_id)["version"] == player.game(game_id)["version"]
    assert len(seen.requests) == sent + 1


def test_a_seat_taken_with_the_key_elsewhere_is_read_as_the_seat(server_url):
    ann = Client(server_url)
    ann.register("Ann")
    created = ann.create_game(2, factions="claim")
    game_id, invites = created["game_id"], created["invites"]
    ann.join(game_id, 0, invites[0]["invite"])
    carl = Client(server_url)
    carl.register("Carl")
    assert carl.game(game_id)["you"] is None  # open, and not Carl's yet

    Client(server_url, key=carl.key).join(game_id, 1, invites[1]["invite"])  # a browser, say
    assert carl.game(game_id)["you"]["seat"] == 1
    assert next(iter(carl.watch(game_id))).data["you"]["seat"] == 1


def test_a_move_answered_503_after_it_landed_is_sent_again_with_its_key_and_lands_once(
    server_url,
):
    faulty = Faulty("POST", "/moves", 503, forward=True)
    ann, bob, game_id = a_game_of_two(server_url, transport=faulty)
    mover = acting([ann, bob], game_id)
    version = mover.game(game_id)["version"]
    moved = mover.move(game_id, mover.legal(game_id)["legal"][0])

    assert moved["version"] == version + 1
    posts = [request for request in faulty.sent if request.url.path.endswith("/moves")]
    assert len(posts) == 2
    assert posts[0].headers["Idempotency-Key"] == posts[1].headers["Idempotency-Key"]
    events = ann.event_log(game_id)["events"]
    assert [event["version"] for event in events if event["type"] == "DecisionMade"] == [
        version + 1
    ]


def test_a_move_whose_answer_was_lost_is_sent_again_and_lands_once(server_url):
    faulty = Faulty("POST", "/moves", None, forward=True)
    ann, bob, game_id = a_game_of_two(server_url, transport=faulty)
    mover = acting([ann, bob], game_id)
    moved = mover.move(game_id, mover.legal(game_id)["legal"][0])
    assert moved["view"]["version"] == moved["version"]
    assert [e["type"] for e in ann.event_log(game_id)["events"]].count("DecisionMade") == 1
    assert sum(request.url.path.endswith("/moves") for request in faulty.sent) == 2


def test_a_move_refused_429_is_sent_again_and_lands_once(server_url):
    faulty = Faulty("POST", "/moves", 429, forward=False)
    ann, bob, game_id = a_game_of_two(server_url, transport=faulty)
    mover = acting([ann, bob], game_id)
    moved = mover.move(game_id, mover.legal(game_id)["legal"][0])
    assert moved["view"]["version"] == moved["version"]
    assert [e["type"] for e in ann.event_log(game_id)["events"]].count("DecisionMade") == 1
    assert sum(request.url.path.endswith("/moves") for request in faulty.sent) == 2


def test_a_challenge_beyond_the_caps_is_refused_at_once_not_sent_again(server_url):
    seen = Faulty("", "", 0, forward=False)  # faults nothing: counts the requests
    ann, bob = Client(server_url, transport=seen), Client(server_url)
    ann.register("Ann")
    bob_id = bob.register("Bob")["player_id"]
    ann.challenge(bob_id)
    with pytest.raises(ProblemError) as refused:
        ann.challenge(bob_id)  # one open challenge per challenger and player
    assert (refused.value.status, refused.value.kind) == (429, "too-many-challenges")
    assert [request.url.path for request in seen.sent].count("/challenges") == 2


def test_a_read_answered_503_is_sent_again(server_url):
    faulty = Faulty("GET", "/readyz", 503, forward=False)
    assert Client(server_url, transport=faulty).ready()["store"] == "ok"
    assert [request.url.path for request in faulty.sent] == ["/readyz", "/readyz"]


def test_a_request_that_may_have_changed_something_is_not_sent_again_after_a_503(server_url):
    faulty = Faulty("POST", "/games", 503, forward=True)
    client = Client(server_url, transport=faulty)
    with pytest.raises(ProblemError) as refused:
        client.create_game(2)
    assert refused.value.status == 503
    assert [request.method for request in faulty.sent] == ["POST"]


class Unconnected(httpx.HTTPTransport):
    """A transport whose requests to `path` cannot connect, the first `times` of them."""

    def __init__(self, path: str, times: int):
        super().__init__()
        self.path, self.times = path, times
        self.sent: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request.url.path)
        if request.url.path == self.path and self.times:
            self.times -= 1
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        return super().handle_request(request)


def test_a_server_that_never_answered_is_told_unreachable_at_once():
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    unconnected = Unconnected("/healthz", times=99)
    client = Client(url, "some-key", transport=unconnected)
    with pytest.raises(Unreachable, match=f"no Claim server answers at {url}") as unreachable:
        client.health()
    assert "Connection refused" in str(unreachable.value)
    assert unconnected.sent == ["/healthz"]  # not sent again
    with pytest.raises(Unreachable):
        next(Client(url, "some-key").my_events())
    with pytest.raises(Unreachable):
        Client(url).register("Ann")


def test_a_read_that_cannot_connect_to_a_server_that_answered_is_sent_again(server_url):
    unconnected = Unconnected("/readyz", times=1)
    client = Client(server_url, transport=unconnected)
    assert client.health()["status"] == "ok"
    assert client.ready()["store"] == "ok"
    assert unconnected.sent == ["/healthz", "/readyz", "/readyz"]


def test_a_game_stream_resumes_after_the_last_version_seen(server_url):
    ann, bob, game_id = a_game_of_two(server_url)
    events = ann.watch(game_id)
    first = next(events)
    events.close()  # away, while three moves are made
    for _ in range(3):
        mover = acting([ann, bob], game_id)
        mover.move(game_id, mover.legal(game_id)["legal"][0])
    resumed = ann.watch(game_id, last_event_id=first.id)
    versions = [next(resumed).data["version"] for _ in range(3)]
    assert versions == [first.data["version"] + n for n in (1, 2, 3)]


def test_a_game_stream_cut_by_the_server_is_opened_again_where_it_stopped(server_url):
    ann, bob, game_id = a_game_of_two(server_url)
    seen = []
    for event in ann.watch(game_id, max_seconds=1):  # the server ends it every second
        seen.append(event.data["version"])
        if len(seen) == 4:
            break
        mover = acting([ann, bob], game_id)
        mover.move(game_id, mover.legal(game_id)["legal"][0])
        time.sleep(1.2)  # the stream ends meanwhile
    assert seen == list(range(seen[0], seen[0] + 4))  # each version once, none missed


def test_the_player_stream_states_the_situation_then_tells_what_was_missed(server_url):
    ann, bob = Client(server_url), Client(server_url)
    ann.register("Ann")
    bob_id = bob.register("Bob")["player_id"]
    events = bob.my_events()
    assert next(events).data == {
        "games": [],
        "games_total": 0,
        "challenges": [],
        "challenges_total": 0,
    }
    cancelled = ann.challenge(bob_id)
    told = next(events)
    assert told.type == "challenge"
    events.close()  # away, while one challenge is cancelled and another made
    ann.cancel(cancelled["id"])
    waiting = ann.challenge(bob_id)
    resumed = bob.my_events(last_event_id=told.id)
    state = next(resumed)
    assert state.type == "state"
    assert [challenge["id"] for challenge in state.data["challenges"]] == [waiting["id"]]
    missed = next(resumed)
    assert (missed.type, missed.data["challenge"]["id"]) == ("challenge-cancelled", cancelled["id"])


def test_the_player_stream_ended_by_the_server_is_opened_again_after_its_last_event(
    server_url,
):
    ann, bob = Client(server_url), Client(server_url)
    ann.register("Ann")
    bob_id = bob.register("Bob")["player_id"]
    events = bob.my_events(max_seconds=1)  # the server ends it every second
    assert next(events).type == "state"
    challenge = ann.challenge(bob_id)
    assert next(events).type == "challenge"
    time.sleep(1.5)  # the stream ends meanwhile
    ann.cancel(challenge["id"])
    assert [next(events).type for _ in range(2)] == ["state", "challenge-cancelled"]


class Stalling(BaseHTTPRequestHandler):
    """A game stream that sends version 1, then nothing (no keep-alive) for 30 s; opened
    again, it sends version 2 of a finished game and ends."""

    resumed_after: ClassVar[list[str | None]] = []

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        after = self.headers.get("Last-Event-ID")
        type(self).resumed_after.append(after)
        version, status = (2, "finished") if after else (1, "running")
        view = json.dumps({"game_id": "g", "version": version, "status": status})
        self.wfile.write(f"id: {version}\nevent: view\ndata: {view}\n\n".encode())
        self.wfile.flush()
        if not after:
            time.sleep(30)

    def log_message(self, *args):
        pass


def test_a_stream_that_stalls_is_opened_again_after_the_last_event():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Stalling)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = Client(f"http://127.0.0.1:{server.server_address[1]}", stall_after=0.5)
        versions = [event.data["version"] for event in client.watch("g")]
        assert versions == [1, 2]
        assert Stalling.resumed_after == [None, "1"]
    finally:
        server.shutdown()
        server.server_close()
