"""Web Push end to end against a push service on 127.0.0.1: the worker's request is
signed by the server's VAPID key (checked against `GET /push/key`), its body decrypts
with the browser's own key to the game and the kind, a 410 removes the subscription;
and the subscriptions' API, the operator's allowlist and the player's channels."""

import base64
import json
import os

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

from service import games
from service.events import DELIVERED, FAILED
from service.games import notifications
from service.games.notifications import PUSH, REMINDER, YOUR_TURN, Notice
from tests.games.factories import a_game, joined
from tests.games.test_notifications import work


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Browser:
    """What a browser keeps of a push subscription: its key pair and auth secret."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.json = {
            "endpoint": endpoint,
            "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)},
        }

    def read(self, body: bytes) -> dict:
        data = http_ece.decrypt(
            body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(data)


@pytest.fixture
def pushing(service):
    """The application with pushes allowed to 127.0.0.1 only, and its API client."""
    return service(push_allow="127.0.0.0/8")


def subscribed(client, key: str, browser: Browser):
    return client.post(
        "/me/push-subscriptions", json=browser.json, headers={"Authorization": f"Bearer {key}"}
    )


def my_turn(claim, key: str):
    """A game where the player of `key` is to act, their your-turn notice queued."""
    game = a_game(claim, kinds=("human", "random"), move_time_limit=3600)
    joined(claim, game, keys={0: key})
    return claim.store.load(game.id)


def test_a_turn_is_pushed_encrypted_to_the_browser_and_signed_by_the_servers_key(pushing, receiver):
    claim, client = pushing
    ann, key = games.register(claim, "Ann")
    browser = Browser(f"{receiver.url}/ann")
    assert subscribed(client, key, browser).status_code == 201
    game = my_turn(claim, key)
    work(claim)
    (path, sent, body), *_ = receiver.requests
    headers = {name.lower(): value for name, value in sent.items()}
    assert path == "/hook/ann"
    message = browser.read(body)
    assert (message["kind"], message["game_id"]) == (YOUR_TURN, game.id)
    assert message["url"].endswith(f"/play/{game.id}")
    assert message["title"] == f"Claim: your turn in game {game.id}"
    assert set(message) == {"kind", "game_id", "url", "title", "body", "tag"}  # no hand
    assert message["body"] == "Last: p0 took seat 0. 1 h 0 min left."
    assert (headers["ttl"], headers["topic"], headers["urgency"]) == (
        "43200",
        f"turn-{game.id}",
        "high",
    )
    assert headers["content-encoding"] == "aes128gcm"
    # The VAPID JWT verifies, with the key the server publishes.
    authorization = headers["authorization"]
    published = client.get("/push/key").get_json()["public_key"]
    assert authorization.endswith(f",k={published}")
    assert Vapid02.verify(authorization)
    token = authorization.split("t=", 1)[1].split(",", 1)[0]
    claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    assert claims["aud"] == f"http://127.0.0.1:{receiver.server_port}"
    assert claims["sub"].startswith("mailto:")
    logged = claim.players.deliveries(ann.id)
    assert [(d.channel, d.kind, d.outcome) for d in logged] == [(PUSH, YOUR_TURN, DELIVERED)]


def test_a_subscription_the_push_service_says_has_ended_is_removed(pushing, receiver):
    claim, client = pushing
    ann, key = games.register(claim, "Ann")
    gone, kept = Browser(f"{receiver.url}/gone"), Browser(f"{receiver.url}/kept")
    for browser in (gone, kept):
        subscribed(client, key, browser)
    tried = [push.endpoint for push in claim.players.get(ann.id).push_subscriptions]
    receiver.answers = [410 if endpoint == gone.endpoint else 201 for endpoint in tried]
    game = my_turn(claim, key)
    work(claim)
    left = client.get("/me/push-subscriptions", headers={"Authorization": f"Bearer {key}"})
    assert [s["endpoint"] for s in left.get_json()["subscriptions"]] == [kept.endpoint]
    receiver.answers = [410]  # and the last one ends too
    notice = Notice(REMINDER, game.id, game.version, ann.id)
    delivery = notifications.deliver(claim, PUSH, notice)
    assert delivery.outcome == FAILED and "ended" in delivery.error
    assert claim.players.get(ann.id).push_subscriptions == ()


def test_subscriptions_are_listed_removed_and_go_with_their_device(pushing):
    claim, client = pushing
    _, key = games.register(claim, "Ann")
    me = {"Authorization": f"Bearer {key}"}
    phone = client.post("/me/devices", json={"name": "phone"}, headers=me).get_json()
    browser = Browser("http://127.0.0.1:9/phone")
    made = subscribed(client, phone["key"], browser)
    assert made.status_code == 201
    assert subscribed(client, phone["key"], browser).status_code == 200  # the same again
    listed = client.get("/me/push-subscriptions", headers=me).get_json()["subscriptions"]
    assert [(s["subscription_id"], s["device_id"]) for s in listed] == [
        (made.get_json()["subscription_id"], phone["device_id"])
    ]
    client.delete(f"/me/devices/{phone['device_id']}", headers=me)
    assert client.get("/me/push-subscriptions", headers=me).get_json()["subscriptions"] == []
    subscribed(client, key, browser)
    gone = client.delete(f"/me/push-subscriptions/{made.get_json()['subscription_id']}", headers=me)
    assert gone.status_code == 204
    again = client.delete(
        f"/me/push-subscriptions/{made.get_json()['subscription_id']}", headers=me
    )
    assert again.get_json()["type"].endswith("/unknown-push-subscription")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"endpoint": "https://push.example.org/x"}, "endpoint"),  # not allowed
        ({"endpoint": "ftp://127.0.0.1/x"}, "endpoint"),
        ({"keys": {"p256dh": "AAAA", "auth": b64url(bytes(16))}}, "keys.p256dh"),
        ({"keys": {"p256dh": "B" + "A" * 86, "auth": "short"}}, "keys.auth"),
    ],
)
def test_a_subscription_a_push_service_would_not_take_is_refused(pushing, change, field):
    claim, client = pushing
    _, key = games.register(claim, "Ann")
    body = Browser("http://127.0.0.1:9/x").json | change
    refused = client.post(
        "/me/push-subscriptions", json=body, headers={"Authorization": f"Bearer {key}"}
    )
    assert refused.status_code in (400, 422)
    assert field in json.dumps(refused.get_json())
    assert claim.players.get(games.profile(claim, key).id).push_subscriptions == ()


def test_the_default_allowlist_takes_the_browsers_push_services_and_no_private_address(service):
    claim, _ = service()
    allow = claim.push_allowlist
    assert allow.by_name("fcm.googleapis.com") and allow.by_name("wns2-par02p.notify.windows.com")
    assert not allow.by_name("push.example.org")
    with pytest.raises(games.webhooks.Blocked, match="private"):
        type(allow)(names=frozenset({"localhost"}), public_names=True).addresses("localhost", 443)


def test_the_player_chooses_the_channels_of_each_kind(pushing, receiver):
    claim, client = pushing
    ann, key = games.register(claim, "Ann", webhook_url=receiver.url)
    me = {"Authorization": f"Bearer {key}"}
    subscribed(client, key, Browser(f"{receiver.url}/ann"))
    profile = client.get("/me", headers=me).get_json()
    assert profile["notifications"][YOUR_TURN] == ["webhook", "email", "push"]
    changed = client.patch("/me", json={"notifications": {YOUR_TURN: ["push"]}}, headers=me)
    assert changed.get_json()["notifications"][YOUR_TURN] == ["push"]
    player = claim.players.get(ann.id)
    assert notifications.channels(claim, player, YOUR_TURN) == [PUSH]
    assert notifications.channels(claim, player, REMINDER) == ["webhook", PUSH]
    wrong = client.patch("/me", json={"notifications": {YOUR_TURN: ["pigeon"]}}, headers=me)
    assert wrong.status_code == 400


def test_a_challenge_is_pushed_to_the_challenged_player_with_the_way_to_the_inbox(
    pushing, receiver
):
    claim, client = pushing
    _, ann_key = games.register(claim, "Ann")
    bo, bo_key = games.register(claim, "Bo")
    browser = Browser(f"{receiver.url}/bo")
    subscribed(client, bo_key, browser)
    settings = games.ChallengeSettings(move_time_limit=86400, timeout_policy="forfeit", rated=True)
    made = games.challenge(claim, ann_key, bo.id, settings).challenge
    work(claim)
    ((_, _, body),) = receiver.requests
    message = browser.read(body)
    assert (message["kind"], message["challenge_id"]) == ("challenge", made.id)
    assert (message["title"], message["url"]) == (
        "Claim: Ann challenges you",
        f"{claim.config.public_url}/inbox",
    )
    assert message["body"].startswith("A game of 2 players, rated, 1 day a move; answer by")
    games.cancel(claim, ann_key, made.id)  # a challenge no longer open is told no more
    notice = Notice("challenge", made.id, 1, bo.id)
    assert notifications.deliver(claim, PUSH, notice) is None
