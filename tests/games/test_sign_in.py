"""Sign-in by email against a real Redis: the link emailed to a local SMTP server by
the worker's job, its one-time code, how often a player may ask, and what is stored
and queued (no secret)."""

import re

import pytest

from service.events import digest
from service.games import sign_in
from tests.api.test_games import problem
from tests.api.test_players import bearer, register
from tests.games.test_notifications import work

PUBLIC_URL = "https://claim.example.org"
LINK = re.compile(re.escape(PUBLIC_URL) + r"/sign-in#code=([A-Za-z0-9_-]+)\r?\n")


@pytest.fixture
def signing_in(service, mailbox):
    """The application sending email to `mailbox`, and an API client of it."""
    return service(smtp_url=mailbox.url, public_url=PUBLIC_URL + "/")


def ask(client, email: str) -> None:
    response = client.post("/sign-in", json={"email": email})
    assert (response.status_code, response.json) == (202, {"sent": True})


def codes_sent(mailbox) -> list[tuple[str, str]]:
    """(address, code) of each sign-in email received, in order."""
    return [(to, LINK.search(text(message)).group(1)) for [to], message in mailbox.messages]


def text(message) -> str:
    """The text of an email, as a mail reader shows it (a long link may be sent
    quoted-printable)."""
    return message.get_payload(decode=True).decode()


def test_a_player_gets_a_link_by_email_whose_code_gives_a_new_device_a_key(signing_in, mailbox):
    claim, client = signing_in
    ann = register(client, email="Ann@Example.org")
    ask(client, "ann@example.ORG")  # any case
    work(claim)
    [(to, message)] = mailbox.messages
    assert (to, message["Subject"]) == (["Ann@Example.org"], "Claim: your sign-in link")
    [(_, code)] = codes_sent(mailbox)
    response = client.post("/sign-in/code", json={"code": code})
    assert response.status_code == 201
    body = response.json
    assert set(body) == {"player_id", "name", "key", "device_id"}
    assert (body["player_id"], body["name"]) == (ann["player_id"], "Ann")
    assert client.get("/me", headers=bearer(body["key"])).json["player_id"] == ann["player_id"]
    devices = client.get("/me/devices", headers=bearer(ann["key"])).json["devices"]
    assert [(d["device_id"], d["name"]) for d in devices][1:] == [
        (body["device_id"], "signed in by email")
    ]


def test_a_code_works_once(signing_in, mailbox):
    claim, client = signing_in
    register(client, email="ann@example.org")
    ask(client, "ann@example.org")
    work(claim)
    [(_, code)] = codes_sent(mailbox)
    assert client.post("/sign-in/code", json={"code": code}).status_code == 201
    problem(client.post("/sign-in/code", json={"code": code}), "wrong-code", 401)


def test_a_code_expires_after_a_quarter_of_an_hour(signing_in, mailbox, clock):
    claim, client = signing_in
    register(client, email="ann@example.org")
    ask(client, "ann@example.org")
    work(claim)
    [(_, code)] = codes_sent(mailbox)
    clock.advance(sign_in.CODE_LIFETIME)
    problem(client.post("/sign-in/code", json={"code": code}), "wrong-code", 401)


def test_an_address_nobody_has_is_answered_the_same_and_sends_nothing(signing_in, mailbox):
    claim, client = signing_in
    register(client, email="ann@example.org")
    ask(client, "bo@example.org")
    assert claim.jobs.webhooks.count == 0
    work(claim)
    assert mailbox.messages == []


def test_a_player_gets_at_most_one_link_a_minute(signing_in, mailbox, clock):
    claim, client = signing_in
    register(client, email="ann@example.org")
    ask(client, "ann@example.org")
    clock.advance(sign_in.EVERY - 1)
    ask(client, "ann@example.org")
    work(claim)
    assert len(mailbox.messages) == 1
    clock.advance(1)
    ask(client, "ann@example.org")
    work(claim)
    first, second = codes_sent(mailbox)
    assert first[1] != second[1]


def test_every_player_with_the_address_gets_a_link_to_their_own_player(signing_in, mailbox):
    claim, client = signing_in
    players = {register(client, name=name, email="us@example.org")["player_id"] for name in "AB"}
    ask(client, "us@example.org")
    work(claim)
    signed_in = {
        client.post("/sign-in/code", json={"code": code}).json["player_id"]
        for _, code in codes_sent(mailbox)
    }
    assert signed_in == players


def test_an_address_changed_finds_the_player_at_the_new_one_only(signing_in, mailbox):
    claim, client = signing_in
    ann = register(client, email="ann@example.org")
    client.patch("/me", json={"email": "ann@example.net"}, headers=bearer(ann["key"]))
    ask(client, "ann@example.org")
    ask(client, "ann@example.net")
    work(claim)
    assert [to for to, _ in codes_sent(mailbox)] == ["ann@example.net"]


def test_an_address_cleared_finds_nobody(signing_in, mailbox):
    claim, client = signing_in
    ann = register(client, email="ann@example.org")
    client.patch("/me", json={"email": None}, headers=bearer(ann["key"]))
    ask(client, "ann@example.org")
    work(claim)
    assert mailbox.messages == []


def test_the_job_carries_no_secret_and_only_the_codes_digest_is_stored(
    signing_in, mailbox, redis_client, prefix
):
    claim, client = signing_in
    ann = register(client, email="ann@example.org")
    ask(client, "ann@example.org")
    [job] = claim.jobs.webhooks.get_jobs()
    assert job.func_name == "workers.jobs.sign_in" and job.args[0] == ann["player_id"]
    work(claim)
    [(_, code)] = codes_sent(mailbox)
    assert code not in repr(job.args) and code not in job.id
    stored = [key.decode() for key in redis_client.scan_iter(match=f"{prefix}:sign-in:*")]
    assert stored == [f"{prefix}:sign-in:{digest(code)}"]
    values = [redis_client.dump(key) for key in redis_client.scan_iter(match=f"{prefix}:*")]
    assert not any(code.encode() in value for value in values if value)


def test_a_job_run_again_sends_another_code_and_each_works_once(signing_in, mailbox):
    """The code is drawn by the worker, not derived from the job's arguments (with a
    secret that Redis holds too): the same job twice, two codes."""
    claim, client = signing_in
    ann = register(client, email="ann@example.org")
    for _ in range(2):
        assert sign_in.send_sign_in(claim, ann["player_id"], "the-same-request")
    [(_, first), (_, second)] = codes_sent(mailbox)
    assert first != second
    for code in (first, second):
        assert client.post("/sign-in/code", json={"code": code}).status_code == 201
        assert client.post("/sign-in/code", json={"code": code}).status_code == 401


def test_a_job_sends_nothing_to_a_player_whose_address_is_gone(signing_in, mailbox):
    claim, client = signing_in
    ann = register(client, email="ann@example.org")
    ask(client, "ann@example.org")
    client.patch("/me", json={"email": None}, headers=bearer(ann["key"]))
    work(claim)
    assert mailbox.messages == []
