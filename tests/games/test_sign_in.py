"""Mail to players' addresses against a real Redis, sent by the worker's jobs to a local
SMTP server: the confirmation of an address before anything else goes to it, sign-in
links by email and shown on another device, each code once, how often an address is
mailed, how many players it serves, and what is stored and queued (no secret)."""

import re
from datetime import timedelta

import pytest

from service import games
from service.events import digest
from service.games import addresses, sign_in
from tests.api.test_games import problem
from tests.api.test_players import bearer, register
from tests.games.test_notifications import CONFIRMATION_LINK, confirm_addresses, work

PUBLIC_URL = "https://claim.example.org"
LINK = re.compile(re.escape(PUBLIC_URL) + r"/sign-in#code=([A-Za-z0-9_-]+)\r?\n")


@pytest.fixture
def signing_in(service, mailbox):
    """The application sending email to `mailbox`, and an API client of it."""
    return service(smtp_url=mailbox.url, public_url=PUBLIC_URL + "/")


@pytest.fixture
def confirmed(signing_in, mailbox, clock):
    """`confirmed(name, email)`: a player registered with an address they confirmed,
    no mail left in the mailbox, and the address free to be mailed again."""
    claim, client = signing_in

    def make(name="Ann", email="ann@example.org") -> dict:
        player = register(client, name=name, email=email)
        confirm_addresses(claim, mailbox)
        clock.advance(addresses.EVERY)
        return player

    return make


def ask(client, email: str) -> None:
    response = client.post("/sign-in", json={"email": email})
    assert (response.status_code, response.json) == (202, {"sent": True})


def text(message) -> str:
    """The text of an email, as a mail reader shows it (a long link may be sent
    quoted-printable)."""
    return message.get_payload(decode=True).decode()


def codes_sent(mailbox) -> list[tuple[str, str]]:
    """(address, code) of each sign-in link received, in order."""
    return [
        (to, code) for [to], message in mailbox.messages for code in LINK.findall(text(message))
    ]


def confirmations(mailbox) -> list[tuple[str, list[str]]]:
    """(address, the codes of its links) of each confirmation email received."""
    return [(to, CONFIRMATION_LINK.findall(text(message))) for [to], message in mailbox.messages]


def me(client, player: dict) -> dict:
    return client.get("/me", headers=bearer(player["key"])).json


# Confirming an address


def test_registering_with_an_address_mails_a_link_that_confirms_it(signing_in, mailbox):
    claim, client = signing_in
    ann = register(client, email="ann@example.org")
    assert (ann["email_confirmed"], me(client, ann)["email_confirmed"]) == (False, False)
    work(claim)
    [(to, message)] = mailbox.messages
    assert (to, message["Subject"]) == (["ann@example.org"], "Claim: confirm your email address")
    [code] = CONFIRMATION_LINK.findall(text(message))
    assert f"Ann: {PUBLIC_URL}/confirm-email#code={code}" in text(message)
    confirmed = client.post("/email-confirmation", json={"code": code})
    assert (confirmed.status_code, confirmed.json) == (
        200,
        {"player_id": ann["player_id"], "name": "Ann", "email": "ann@example.org"},
    )
    assert me(client, ann)["email_confirmed"] is True
    problem(client.post("/email-confirmation", json={"code": code}), "wrong-code", 401)


def test_no_sign_in_link_goes_to_an_address_until_it_is_confirmed(signing_in, mailbox):
    claim, client = signing_in
    register(client, email="ann@example.org")
    ask(client, "ann@example.org")
    assert [job.func_name for job in claim.jobs.webhooks.get_jobs()] == [
        "workers.jobs.confirm_email"
    ]
    work(claim)
    assert codes_sent(mailbox) == []


def test_thirty_players_on_one_address_send_it_one_mail_and_no_sign_in_link(
    signing_in, mailbox, clock
):
    """Issue 47: 30 registrations with somebody's address, then anonymous requests for
    sign-in links every minute, sent 30 mails a minute. Now: the one confirmation,
    naming the newest players, and nothing more while nobody confirms."""
    claim, client = signing_in
    for n in range(30):
        register(client, name=f"Sock {n}", email="victim@example.org")
        clock.advance(1)
    for _ in range(10):
        ask(client, "victim@example.org")
        clock.advance(60)
        work(claim)
    [(to, codes)] = confirmations(mailbox)
    assert (to, len(codes)) == ("victim@example.org", addresses.LISTED)
    assert "Sock 0:" in text(mailbox.messages[0][1])  # who asked first, then the newest
    assert "Sock 29:" in text(mailbox.messages[0][1])
    assert codes_sent(mailbox) == []


def test_a_confirmation_again_goes_once_per_interval_and_names_every_player_waiting(
    signing_in, mailbox, clock
):
    claim, client = signing_in
    ann = register(client, name="Ann", email="us@example.org")
    work(claim)
    [(_, [first])] = confirmations(mailbox)
    bo = register(client, name="Bo", email="us@example.org")  # within the interval
    again = client.post("/me/email-confirmation", headers=bearer(bo["key"]))
    assert (again.status_code, again.json) == (202, {"sent": True})
    work(claim)
    assert len(mailbox.messages) == 1  # the address was mailed a confirmation just now
    clock.advance(addresses.EVERY)
    client.post("/me/email-confirmation", headers=bearer(bo["key"]))
    work(claim)
    [_, (_, codes)] = confirmations(mailbox)
    assert "Bo:" in text(mailbox.messages[1][1]).split("Ann:")[0]  # who asked first
    confirmed = {client.post("/email-confirmation", json={"code": c}).json["name"] for c in codes}
    assert confirmed == {"Ann", "Bo"}
    assert client.post("/email-confirmation", json={"code": first}).json["name"] == "Ann"
    assert me(client, ann)["email_confirmed"] and me(client, bo)["email_confirmed"]


def test_asking_again_for_an_address_confirmed_or_none_sends_nothing(signing_in, mailbox):
    claim, client = signing_in
    ann = register(client, email="ann@example.org")
    confirm_addresses(claim, mailbox)
    bo = register(client, name="Bo")
    for player in (ann, bo):
        again = client.post("/me/email-confirmation", headers=bearer(player["key"]))
        assert (again.status_code, again.json) == (202, {"sent": False})
    work(claim)
    assert mailbox.messages == []


def test_asking_again_needs_a_key_and_a_server_that_sends_email(signing_in, service):
    _, emailing = signing_in
    problem(emailing.post("/me/email-confirmation"), "unauthorized", 401)
    _, plain = service()
    ann = register(plain, email="ann@example.org")
    response = plain.post("/me/email-confirmation", headers=bearer(ann["key"]))
    problem(response, "email-not-configured", 409)


def test_a_changed_address_is_unconfirmed_and_mailed_a_confirmation(confirmed, signing_in, mailbox):
    claim, client = signing_in
    ann = confirmed()
    changed = client.patch("/me", json={"email": "ann@example.net"}, headers=bearer(ann["key"]))
    assert (changed.json["email"], changed.json["email_confirmed"]) == ("ann@example.net", False)
    work(claim)
    [(to, [code])] = confirmations(mailbox)
    assert to == "ann@example.net"
    client.post("/email-confirmation", json={"code": code})
    assert me(client, ann)["email_confirmed"] is True


def test_a_change_of_case_only_keeps_the_address_confirmed_and_mails_nothing(
    confirmed, signing_in, mailbox
):
    claim, client = signing_in
    ann = confirmed()
    changed = client.patch("/me", json={"email": "Ann@Example.org"}, headers=bearer(ann["key"]))
    assert changed.json["email_confirmed"] is True
    work(claim)
    assert mailbox.messages == []


def test_a_confirmation_of_an_address_changed_since_confirms_nothing(signing_in, mailbox):
    claim, client = signing_in
    ann = register(client, email="ann@example.org")
    work(claim)
    [(_, [code])] = confirmations(mailbox)
    client.patch("/me", json={"email": "ann@example.net"}, headers=bearer(ann["key"]))
    problem(client.post("/email-confirmation", json={"code": code}), "wrong-code", 401)
    assert me(client, ann)["email_confirmed"] is False


def test_a_confirmation_link_expires_after_a_day(signing_in, mailbox, clock):
    claim, client = signing_in
    register(client, email="ann@example.org")
    work(claim)
    [(_, [code])] = confirmations(mailbox)
    clock.advance(addresses.CONFIRMATION_LIFETIME)
    problem(client.post("/email-confirmation", json={"code": code}), "wrong-code", 401)


def test_an_address_is_confirmed_for_a_few_players_at_most(service, mailbox, clock):
    """The cap is told to the owner of the address only, who holds the link: the
    registration itself is taken, whoever has the address already."""
    claim, client = service(smtp_url=mailbox.url, accounts_per_email=2)
    players = []
    for name in ("Ann", "Bo", "Cy"):
        players.append(register(client, name=name, email="us@example.org"))
        work(claim)
        clock.advance(addresses.EVERY)
    [ann, bo, cy] = [codes[0] for _, codes in confirmations(mailbox)]
    for code in (ann, bo):
        assert client.post("/email-confirmation", json={"code": code}).status_code == 200
    refused = problem(
        client.post("/email-confirmation", json={"code": cy}), "too-many-accounts", 409
    )
    assert "us@example.org is confirmed for 2 other players" in refused["detail"]
    assert me(client, players[2])["email_confirmed"] is False
    client.patch("/me", json={"email": None}, headers=bearer(players[0]["key"]))
    assert client.post("/email-confirmation", json={"code": cy}).status_code == 200  # unused


def test_bots_and_players_without_an_address_are_mailed_nothing(signing_in, mailbox):
    claim, client = signing_in
    register(client, name="Highcard", bot=True)
    register(client, name="Bo")
    assert claim.jobs.webhooks.count == 0
    work(claim)
    assert mailbox.messages == []


# Sign-in links by email


def test_a_player_gets_a_link_by_email_whose_code_gives_a_new_device_a_key(
    confirmed, signing_in, mailbox
):
    claim, client = signing_in
    ann = confirmed(email="Ann@Example.org")
    ask(client, "ann@example.ORG")  # any case
    work(claim)
    [(to, message)] = mailbox.messages
    assert (to, message["Subject"]) == (["Ann@Example.org"], "Claim: your sign-in link")
    [(_, code)] = codes_sent(mailbox)
    assert f"Ann: {PUBLIC_URL}/sign-in#code={code}" in text(message)
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


def test_a_code_works_once(confirmed, signing_in, mailbox):
    claim, client = signing_in
    confirmed()
    ask(client, "ann@example.org")
    work(claim)
    [(_, code)] = codes_sent(mailbox)
    assert client.post("/sign-in/code", json={"code": code}).status_code == 201
    problem(client.post("/sign-in/code", json={"code": code}), "wrong-code", 401)


def test_a_code_expires_after_a_quarter_of_an_hour(confirmed, signing_in, mailbox, clock):
    claim, client = signing_in
    confirmed()
    ask(client, "ann@example.org")
    work(claim)
    [(_, code)] = codes_sent(mailbox)
    clock.advance(sign_in.CODE_LIFETIME)
    problem(client.post("/sign-in/code", json={"code": code}), "wrong-code", 401)


def test_an_address_nobody_has_is_answered_the_same_and_sends_nothing(confirmed, signing_in):
    claim, client = signing_in
    confirmed()
    ask(client, "bo@example.org")
    assert claim.jobs.webhooks.count == 0


def test_an_address_gets_at_most_one_mail_of_links_per_interval(
    confirmed, signing_in, mailbox, clock
):
    claim, client = signing_in
    confirmed()
    ask(client, "ann@example.org")
    clock.advance(addresses.EVERY - 1)
    ask(client, "ANN@example.org")
    work(claim)
    assert len(mailbox.messages) == 1
    clock.advance(1)
    ask(client, "ann@example.org")
    work(claim)
    first, second = codes_sent(mailbox)
    assert first[1] != second[1]


def test_one_mail_names_every_player_the_address_is_confirmed_for(confirmed, signing_in, mailbox):
    claim, client = signing_in
    players = {confirmed(name, "us@example.org")["player_id"] for name in ("Ann", "Bo")}
    confirmed("Cy", "cy@example.org")
    register(client, name="Sock", email="us@example.org")  # not confirmed: not named
    ask(client, "us@example.org")
    work(claim)
    [(to, message)] = [m for m in mailbox.messages if "sign-in" in m[1]["Subject"]]
    assert to == ["us@example.org"] and "Sock" not in text(message)
    signed_in = {
        client.post("/sign-in/code", json={"code": code}).json["player_id"]
        for _, code in codes_sent(mailbox)
    }
    assert signed_in == players


def test_an_address_changed_finds_the_player_at_the_new_one_once_confirmed(
    confirmed, signing_in, mailbox
):
    claim, client = signing_in
    ann = confirmed()
    client.patch("/me", json={"email": "ann@example.net"}, headers=bearer(ann["key"]))
    ask(client, "ann@example.org")
    ask(client, "ann@example.net")
    confirm_addresses(claim, mailbox)
    assert codes_sent(mailbox) == []  # the new one was not confirmed yet
    ask(client, "ann@example.org")
    ask(client, "ann@example.net")
    work(claim)
    assert [to for to, _ in codes_sent(mailbox)] == ["ann@example.net"]


def test_an_address_cleared_finds_nobody(confirmed, signing_in, mailbox):
    claim, client = signing_in
    ann = confirmed()
    client.patch("/me", json={"email": None}, headers=bearer(ann["key"]))
    ask(client, "ann@example.org")
    work(claim)
    assert mailbox.messages == []


def test_the_job_carries_no_secret_and_only_the_codes_digest_is_stored(
    confirmed, signing_in, mailbox, redis_client, prefix
):
    claim, client = signing_in
    ann = confirmed()
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


def test_a_confirmation_job_carries_no_secret_and_only_the_codes_digest_is_stored(
    signing_in, mailbox, redis_client, prefix
):
    claim, client = signing_in
    ann = register(client, email="ann@example.org")
    [job] = claim.jobs.webhooks.get_jobs()
    assert job.func_name == "workers.jobs.confirm_email" and job.args[0] == ann["player_id"]
    work(claim)
    [(_, [code])] = confirmations(mailbox)
    assert code not in repr(job.args) and code not in job.id
    stored = [key.decode() for key in redis_client.scan_iter(match=f"{prefix}:email-conf*")]
    assert stored == [f"{prefix}:email-confirmation:{digest(code)}"]
    values = [redis_client.dump(key) for key in redis_client.scan_iter(match=f"{prefix}:*")]
    assert not any(code.encode() in value for value in values if value)


def test_a_job_run_again_sends_another_code_and_each_works_once(confirmed, signing_in, mailbox):
    """The code is drawn by the worker, not derived from the job's arguments (with a
    secret that Redis holds too): the same job twice, two codes."""
    claim, client = signing_in
    ann = confirmed()
    for _ in range(2):
        assert sign_in.send_sign_in(claim, ann["player_id"], "the-same-request")
    [(_, first), (_, second)] = codes_sent(mailbox)
    assert first != second
    for code in (first, second):
        assert client.post("/sign-in/code", json={"code": code}).status_code == 201
        assert client.post("/sign-in/code", json={"code": code}).status_code == 401


def test_a_job_sends_nothing_to_a_player_whose_address_is_gone(confirmed, signing_in, mailbox):
    claim, client = signing_in
    ann = confirmed()
    ask(client, "ann@example.org")
    client.patch("/me", json={"email": None}, headers=bearer(ann["key"]))
    work(claim)
    assert mailbox.messages == []


# A sign-in link shown on a device signed in already


def test_a_link_for_another_device_works_once_within_minutes(service, clock):
    claim, client = service()
    ann = register(client)
    codes = [client.post("/me/sign-in-code", headers=bearer(ann["key"])).json for _ in (1, 2)]
    expires = clock() + timedelta(seconds=sign_in.DEVICE_CODE_LIFETIME)
    assert codes[0]["expires_at"] == expires.isoformat()
    laptop = client.post("/sign-in/code", json={"code": codes[0]["code"]})
    assert (laptop.status_code, laptop.json["player_id"]) == (201, ann["player_id"])
    problem(client.post("/sign-in/code", json={"code": codes[0]["code"]}), "wrong-code", 401)
    clock.advance(sign_in.DEVICE_CODE_LIFETIME)
    problem(client.post("/sign-in/code", json={"code": codes[1]["code"]}), "wrong-code", 401)
    devices = client.get("/me/devices", headers=bearer(ann["key"])).json["devices"]
    assert [d["name"] for d in devices] == ["first key", "signed in with a link"]
    assert games.profile(claim, laptop.json["key"]).id == ann["player_id"]
