"""Notifications to players against a real Redis: signed webhooks to a receiver on
127.0.0.1, retries, the allowlist, reminders on a moved clock, emails to a local SMTP
server, and the delivery log at `/me/deliveries`."""

import hashlib
import hmac
import json
import re
import socket
import time
from datetime import timedelta

import pytest

from service import games
from service.api import create_app
from service.domain import legal_decisions
from service.events import BLOCKED, DecisionMade, Delivery
from service.games import Claim, notifications, webhooks
from service.games.notifications import GAME_OVER, REMATCH, REMINDER, WEBHOOK, YOUR_TURN, Notice
from tests.api.factories import created
from tests.api.test_players import bearer, join, register
from tests.games.factories import a_game, joined, moved
from tests.games.test_ratings import drawn_with_the_ai_levels
from workers.worker import SimpleWorker

CARD = re.compile(r"\b[A-Z]{2}\d{1,2}\b")
PRIVATE_KEYS = {"hand", "hands", "deck", "salt", "follower_pile", "peek", "legal", "token"}


@pytest.fixture
def claim(service):
    return service()[0]


@pytest.fixture
def client(claim):
    return create_app(claim=claim).test_client()


def work(claim: Claim) -> None:
    """Run the queued notification jobs in this process, as `claim worker` would."""
    SimpleWorker([claim.jobs.webhooks], connection=claim.jobs.connection).work(burst=True)


CONFIRMATION_LINK = re.compile(r"/confirm-email#code=([A-Za-z0-9_-]+)")


def confirm_addresses(claim: Claim, mailbox) -> None:
    """Send the queued mails, then confirm every address a confirmation went to, as its
    owner would by opening the links, and forget those mails."""
    work(claim)
    for _, message in mailbox.messages:
        for code in CONFIRMATION_LINK.findall(message.get_payload(decode=True).decode()):
            games.confirm_email(claim, code)
    mailbox.messages.clear()


def verified(request, secret: str, now: float | None = None) -> dict:
    """The body of a webhook request, once checked as docs/play-by-mail.md tells a receiver to:
    the HMAC of `t.body` with the player's secret, `t` recent, the delivery id."""
    _path, headers, body = request
    fields = dict(part.split("=", 1) for part in headers["Claim-Signature"].split(","))
    mac = hmac.new(secret.encode(), f"{fields['t']}.".encode() + body, hashlib.sha256)
    assert hmac.compare_digest(fields["v1"], mac.hexdigest())
    assert abs((now or time.time()) - int(fields["t"])) < 300
    payload = json.loads(body)
    assert headers["Claim-Delivery"] == payload["delivery_id"]
    return payload


def a_game_over_http(client, ann: dict, bo: dict | None = None) -> tuple[str, dict[int, str]]:
    """A running game of two people: Ann (a registered player) in seat 0, the first
    to lead, and Bo (registered or not) in seat 1; its id and the seat tokens."""
    game = created(client)
    first = join(client, game, 0, key=ann["key"]).json
    second = join(client, game, 1, key=bo and bo["key"], name=None if bo else "Bo").json
    return game["game_id"], {0: first["token"], 1: second["token"]}


def deliveries(client, player: dict) -> list[dict]:
    response = client.get("/me/deliveries", headers=bearer(player["key"]))
    assert response.status_code == 200, response.json
    return response.json["deliveries"]


def test_a_players_turn_is_posted_to_their_webhook_signed_with_their_secret(
    claim, client, receiver
):
    ann = register(client, webhook_url=receiver.url)
    game_id, _ = a_game_over_http(client, ann)
    work(claim)
    [request] = receiver.requests
    body = verified(request, ann["webhook_secret"])
    assert request[0] == "/hook"
    assert (body["kind"], body["game_id"], body["version"]) == (YOUR_TURN, game_id, 3)
    assert body["delivery_id"] == Notice(YOUR_TURN, game_id, 3, ann["player_id"]).delivery_id
    assert body["url"] == f"{claim.config.public_url.rstrip('/')}/play/{game_id}"
    entry = body["entry"]
    assert (entry["seat"], entry["your_turn"], entry["last"]) == (0, True, "Bo took seat 1")
    [logged] = deliveries(client, ann)
    assert logged["delivery_id"] == body["delivery_id"]
    assert (logged["channel"], logged["outcome"], logged["status_code"]) == (
        WEBHOOK,
        "delivered",
        200,
    )
    assert (logged["host"], logged["attempt"], logged["kind"]) == ("127.0.0.1", 1, YOUR_TURN)


def test_no_webhook_carries_a_card_the_player_may_not_see(claim, client, receiver):
    ann = register(client, webhook_url=receiver.url)
    bo = register(client, name="Bo", webhook_url=receiver.url)
    game_id, tokens = a_game_over_http(client, ann, bo)
    cards_told = set()
    for _ in range(12):
        seen = len(receiver.requests)
        work(claim)
        public = client.get(f"/games/{game_id}").json  # the same version: people to act
        [request] = receiver.requests[seen:]
        body = json.loads(request[2])
        assert body["version"] == public["version"]
        assert not PRIVATE_KEYS & set(_keys(body))
        cards = set(CARD.findall(request[2].decode()))
        assert cards <= set(CARD.findall(json.dumps(public)))
        cards_told |= cards
        seat = public["table"]["to_act"]
        legal = client.get(f"/games/{game_id}", headers=bearer(tokens[seat])).json["you"]["legal"]
        moved = client.post(
            f"/games/{game_id}/moves",
            json={"move": legal[0], "expected_version": public["version"]},
            headers={**bearer(tokens[seat]), "Idempotency-Key": str(public["version"])},
        )
        assert moved.status_code == 201
    assert cards_told  # the entries did tell of cards played, public ones


def _keys(value) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(key for item in value.values() for key in _keys(item))]
    if isinstance(value, list):
        return [key for item in value for key in _keys(item)]
    return []


def test_an_answer_500_is_tried_again_later_as_the_same_delivery(claim, client, receiver):
    receiver.answers = [500]
    ann = register(client, webhook_url=receiver.url)
    a_game_over_http(client, ann)
    work(claim)
    queue = claim.jobs.webhooks
    registry = queue.scheduled_job_registry
    [job_id] = registry.get_job_ids()
    wait = registry.get_scheduled_time(job_id).timestamp() - time.time()
    assert 10 < wait <= games.jobs.DELIVERY_RETRY.intervals[0]
    [failed] = deliveries(client, ann)
    assert (failed["outcome"], failed["status_code"], failed["attempt"]) == ("failed", 500, 1)
    job = queue.fetch_job(job_id)  # its time has come: what RQ's scheduler does then
    registry.remove(job)
    queue.enqueue_job(job)
    work(claim)
    first, second = receiver.requests
    assert verified(first, ann["webhook_secret"]) == verified(second, ann["webhook_secret"])
    assert first[1]["Claim-Delivery"] == second[1]["Claim-Delivery"]
    assert [(d["outcome"], d["attempt"]) for d in deliveries(client, ann)] == [
        ("delivered", 2),
        ("failed", 1),
    ]


def test_the_same_notification_twice_is_one_delivery_id_and_is_sent_once(claim, client, receiver):
    ann = register(client, webhook_url=receiver.url)
    game_id, _ = a_game_over_http(client, ann)
    game = claim.store.load(game_id)
    twice = [notifications.notify(claim, game, YOUR_TURN, [ann["player_id"]]) for _ in range(2)]
    notice = Notice(YOUR_TURN, game_id, game.version, ann["player_id"])
    assert twice == [[f"webhook-{notice.delivery_id}"]] * 2
    work(claim)
    assert games.deliver(claim, WEBHOOK, notice) is None  # a doubled job
    assert len(receiver.requests) == 1
    others = {
        Notice(REMINDER, game_id, game.version, ann["player_id"]).delivery_id,
        Notice(YOUR_TURN, game_id, game.version + 1, ann["player_id"]).delivery_id,
        Notice(YOUR_TURN, game_id, game.version, "another").delivery_id,
    }
    assert len(others) == 3 and notice.delivery_id not in others


def test_a_turn_played_before_its_notice_went_out_is_not_told(claim, client, receiver):
    ann = register(client, webhook_url=receiver.url)
    game_id, tokens = a_game_over_http(client, ann)
    legal = client.get(f"/games/{game_id}", headers=bearer(tokens[0])).json["you"]["legal"]
    client.post(
        f"/games/{game_id}/moves",
        json={"move": legal[0], "expected_version": 3},
        headers={**bearer(tokens[0]), "Idempotency-Key": "a"},
    )
    work(claim)
    assert receiver.requests == []


@pytest.mark.parametrize("allow", ["", "10.0.0.0/8, hooks.example.org"])
def test_a_host_the_operator_does_not_allow_is_not_contacted_and_is_logged_blocked(
    service, receiver, allow
):
    claim, client = service(webhook_allow=allow)
    ann = register(client, webhook_url=receiver.url)
    a_game_over_http(client, ann)
    work(claim)
    assert receiver.requests == []
    [logged] = deliveries(client, ann)
    assert (logged["outcome"], logged["host"], logged["status_code"]) == (
        BLOCKED,
        "127.0.0.1",
        None,
    )
    assert "WEBHOOK_ALLOW" in logged["error"]
    assert claim.jobs.webhooks.scheduled_job_registry.count == 0


def test_the_allowlist_takes_names_and_networks_and_checks_every_address(monkeypatch):
    allowlist = webhooks.Allowlist.parse(" Hooks.Example.org. , 10.0.0.0/8,::1 ,")
    assert allowlist.names == {"hooks.example.org"}
    assert [str(network) for network in allowlist.networks] == ["10.0.0.0/8", "::1/128"]
    assert allowlist.addresses("10.1.2.3", 80) == ["10.1.2.3"]
    with pytest.raises(webhooks.Blocked):
        allowlist.addresses("127.0.0.1", 80)
    with pytest.raises(webhooks.Blocked):
        webhooks.Allowlist.parse("").addresses("10.1.2.3", 80)
    answers = {"hooks.example.org": ["10.0.0.7", "192.0.2.1"], "two.test": ["10.0.0.7", "::1"]}
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda host, port, **_: [(None, None, None, "", (a, port)) for a in answers[host]],
    )
    assert allowlist.addresses("hooks.example.org", 443) == ["10.0.0.7", "192.0.2.1"]  # by name
    assert allowlist.addresses("two.test", 443) == ["10.0.0.7", "::1"]
    answers["two.test"].append("192.0.2.1")
    with pytest.raises(webhooks.Blocked):
        allowlist.addresses("two.test", 443)


def test_a_redirect_is_not_followed(claim, client, receiver):
    receiver.answers = [302]
    ann = register(client, webhook_url=receiver.url)
    a_game_over_http(client, ann)
    work(claim)
    assert [path for path, _, _ in receiver.requests] == ["/hook"]
    [logged] = deliveries(client, ann)
    assert (logged["outcome"], logged["status_code"]) == ("failed", 302)


def test_the_delivery_log_is_yours_newest_first_and_keeps_the_last_hundred(claim, client):
    ann = register(client)
    for version in range(1, 106):
        at = claim.clock()
        claim.players.log_delivery(
            ann["player_id"],
            Delivery("d", WEBHOOK, YOUR_TURN, "g", version, "h", "delivered", 200, None, 1, at),
        )
    logged = deliveries(client, ann)
    assert [entry["version"] for entry in logged] == list(range(105, 5, -1))
    assert set(logged[0]) == {
        "delivery_id",
        "channel",
        "kind",
        "game_id",
        "version",
        "host",
        "outcome",
        "status_code",
        "error",
        "attempt",
        "at",
    }
    assert client.get("/me/deliveries").status_code == 401
    assert deliveries(client, register(client, name="Bo")) == []


def test_game_over_goes_to_every_player_and_a_rematch_offer_to_the_others(claim, client, receiver):
    ann = register(client, webhook_url=receiver.url)
    bo = register(client, name="Bo", webhook_url=receiver.url)
    game_id, tokens = a_game_over_http(client, ann, bo)
    client.post(f"/games/{game_id}/resign", headers=bearer(tokens[1]))
    work(claim)  # Ann's your-turn at version 3 is moot now
    secrets = {0: ann["webhook_secret"], 1: bo["webhook_secret"]}
    told = {}
    for request in receiver.requests:
        seat = json.loads(request[2])["entry"]["seat"]
        told[seat] = verified(request, secrets[seat])
    assert {seat: body["kind"] for seat, body in told.items()} == {0: GAME_OVER, 1: GAME_OVER}
    assert told[0]["entry"]["status"] == "finished"
    offer = client.post(f"/games/{game_id}/rematch", headers=bearer(tokens[1])).get_json()
    client.post(f"/games/{game_id}/rematch", headers=bearer(tokens[0]))  # told once only
    work(claim)
    rematches = [json.loads(body) for _, _, body in receiver.requests[2:]]
    assert [(b["kind"], b["new_game_id"], b["entry"]["seat"]) for b in rematches] == [
        (REMATCH, offer["game_id"], 0)  # Ann is told of Bo's offer; Bo made it
    ]


def a_running_game(claim, player_key: str, limit: int = 3600):
    """Ann (the player of `player_key`) in seat 0, to act first, and Bo in seat 1."""
    game = a_game(claim, kinds=("human", "human"), move_time_limit=limit)
    joined(claim, game, keys={0: player_key})
    return claim.store.load(game.id)


@pytest.mark.parametrize(("share", "left"), [(0.25, 900), (0.5, 1800)])
def test_a_reminder_goes_when_its_share_of_the_move_time_is_left(
    service, clock, receiver, share, left
):
    claim, _ = service(reminder_share=share)
    ann, key = games.register(claim, "Ann", webhook_url=receiver.url)
    game = a_running_game(claim, key)
    at = (game.deadline - timedelta(seconds=left)).timestamp()
    assert claim.reminders.due() == {game.id: at}
    clock.advance(3600 - left - 1)
    assert notifications.remind(claim, game.id, game.version) == []
    assert claim.reminders.due() == {game.id: at}  # set again: not yet
    clock.advance(1)
    notice = Notice(REMINDER, game.id, game.version, ann.id)
    assert notifications.remind(claim, game.id, game.version) == [f"webhook-{notice.delivery_id}"]
    assert claim.reminders.due() == {}  # reminded once
    assert games.deliver(claim, WEBHOOK, notice).outcome == "delivered"
    body = verified(receiver.requests[0], ann.webhook_secret, clock().timestamp())
    assert (body["kind"], body["entry"]["seconds_left"]) == (REMINDER, left)


def test_reminders_fire_with_the_other_timers(service, clock, receiver):
    claim, _ = service()
    _, key = games.register(claim, "Ann", webhook_url=receiver.url)
    game = a_running_game(claim, key)
    clock.advance(2700)
    assert games.fire_due_timers(claim) == 1
    work(claim)
    kinds = [json.loads(body)["kind"] for _, _, body in receiver.requests]
    assert kinds == [YOUR_TURN, REMINDER] and claim.store.version(game.id) == game.version


def test_no_reminder_when_reminders_are_off_or_the_game_moved_on(service, clock):
    off, _ = service(reminder_share=None)
    _, key = games.register(off, "Ann", webhook_url="http://127.0.0.1:9/")
    game = a_running_game(off, key)
    assert notifications.reminder_at(off, game) is None
    assert off.reminders.due() == {}
    claim, _ = service()
    game = a_running_game(claim, key)
    claim.store.append(game.id, [DecisionMade(0, legal_decisions(game.state)[0])], game.version)
    clock.advance(3000)
    assert notifications.remind(claim, game.id, game.version) == []


def test_no_turn_is_told_while_an_ai_plays_a_seat_taken_over(claim, clock):
    ann, key = games.register(claim, "Ann", webhook_url="http://127.0.0.1:9/")
    game = a_game(
        claim,
        kinds=("human", "random"),
        move_time_limit=60,
        timeout_policy="takeover:random",
        timeout_limit=1,
    )
    joined(claim, game, keys={0: key})
    game = claim.store.load(game.id)
    assert notifications.player_to_act(game) == ann.id
    clock.advance(60)
    games.fire_due_timers(claim)
    taken_over = claim.store.load(game.id)
    assert taken_over.seats[0].takeover == "random"
    assert notifications.follow(claim, taken_over) == []


def test_emails_go_to_the_players_address_with_a_link_to_the_game(service, mailbox):
    claim, client = service(smtp_url=mailbox.url, public_url="https://claim.example.org/")
    ann = register(client, email="ann@example.org")
    confirm_addresses(claim, mailbox)
    game_id, _ = a_game_over_http(client, ann)
    work(claim)
    [(to, message)] = mailbox.messages
    assert to == ["ann@example.org"]
    assert message["Subject"] == f"Claim: your turn in game {game_id}"
    notice = Notice(YOUR_TURN, game_id, 3, ann["player_id"])
    assert message["Claim-Delivery"] == notice.delivery_id
    text = message.get_payload()
    assert f"The game: https://claim.example.org/play/{game_id}\r\n" in text
    assert "Last: Bo took seat 1." in text
    assert not CARD.search(text)
    [logged] = deliveries(client, ann)
    assert (logged["channel"], logged["outcome"], logged["host"]) == (
        "email",
        "delivered",
        "example.org",
    )


def test_no_notification_goes_to_an_address_until_its_owner_confirms_it(service, mailbox):
    claim, client = service(smtp_url=mailbox.url)
    ann = register(client, email="ann@example.org")
    a_game_over_http(client, ann)
    work(claim)
    [(to, message)] = mailbox.messages  # the confirmation only
    assert (to, message["Subject"]) == (["ann@example.org"], "Claim: confirm your email address")
    assert deliveries(client, ann) == []


def test_an_email_counts_a_move_time_under_a_minute_in_seconds(service, mailbox):
    claim, _ = service(smtp_url=mailbox.url)
    _, key = games.register(claim, "Ann", email="ann@example.org")
    confirm_addresses(claim, mailbox)
    a_running_game(claim, key, limit=30)
    work(claim)
    [(_, message)] = mailbox.messages
    assert "(30 s left)" in message.get_payload()


def test_the_end_of_a_rated_game_tells_each_player_the_rating_change(service, receiver, mailbox):
    claim, _ = service(smtp_url=mailbox.url)
    ann, ann_key = games.register(claim, "Ann", webhook_url=receiver.url)
    bo, bo_key = games.register(claim, "Bo", email="bo@example.org")
    confirm_addresses(claim, mailbox)
    drawn_with_the_ai_levels(claim, ann.id, bo.id)  # established: their game moves both
    game = a_game(claim, kinds=("human", "human"), rated=True)
    tokens = joined(claim, game, keys={0: ann_key, 1: bo_key})
    moved(claim, game.id, tokens, 8)  # enough to be rated
    games.resign(claim, game.id, tokens[1])
    work(claim)
    [over] = [
        body
        for body in (verified(request, ann.webhook_secret) for request in receiver.requests)
        if body["kind"] == GAME_OVER
    ]
    mine, theirs = over["ratings"]
    assert (mine["player_id"], mine["rating_before"]) == (ann.id, 25.0)
    assert mine["change"] > 0 > theirs["change"]
    [text] = [m.get_payload() for _, m in mailbox.messages if "is over" in m["Subject"]]
    assert f"Your rating (2 players): 25.00 -> {theirs['rating_after']:.2f}" in text
    assert f"({theirs['change']:+.2f})." in text


def test_the_end_of_a_rated_game_resigned_at_once_tells_that_it_was_not_rated(service, mailbox):
    claim, _ = service(smtp_url=mailbox.url)
    _, ann_key = games.register(claim, "Ann")
    _, bo_key = games.register(claim, "Bo", email="bo@example.org")
    confirm_addresses(claim, mailbox)
    game = a_game(claim, kinds=("human", "human"), rated=True)
    tokens = joined(claim, game, keys={0: ann_key, 1: bo_key})
    games.resign(claim, game.id, tokens[1])
    work(claim)
    [text] = [
        m.get_payload(decode=True).decode()
        for _, m in mailbox.messages
        if "is over" in m["Subject"]
    ]
    assert "25.00 -> 25.00 (+0.00); not rated: the game was resigned or forfeited" in text
