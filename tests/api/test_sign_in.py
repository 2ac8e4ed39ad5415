"""`/sign-in`, `/me/sign-in-code` and `/email-confirmation`: whether this server signs
in by email, asking for a link, a link for another device, using a code (the emails
themselves: tests/games/test_sign_in.py)."""

import pytest
import yaml

from service.events import digest
from tests.api.factories import an_app
from tests.api.test_games import problem
from tests.api.test_openapi import CONTRACT
from tests.api.test_players import bearer, register


@pytest.fixture
def emailing(redis_client, prefix):
    """A client of the API of a server that sends email (none leaves: no jobs here)."""
    return an_app(redis_client, prefix, smtp_url="smtp://127.0.0.1:9").test_client()


def test_the_options_say_whether_the_server_signs_in_by_email(client, emailing):
    assert client.get("/sign-in/options").json == {"by_email": False}
    assert emailing.get("/sign-in/options").json == {"by_email": True}


def test_asking_for_a_link_is_answered_the_same_whether_anybody_has_the_address(emailing):
    register(emailing, email="ann@example.org")
    answers = [emailing.post("/sign-in", json={"email": e}) for e in ("ann@example.org", "x@y.org")]
    assert [(a.status_code, a.json) for a in answers] == [(202, {"sent": True})] * 2


def test_a_server_without_email_says_so(client):
    register(client, email="ann@example.org")
    response = client.post("/sign-in", json={"email": "ann@example.org"})
    problem(response, "email-not-configured", 409)


@pytest.mark.parametrize("body", [{}, {"email": "not an address"}, {"email": 7}])
def test_asking_without_an_address_is_a_validation_error(emailing, body):
    assert (
        "email" in problem(emailing.post("/sign-in", json=body), "validation-error", 400)["errors"]
    )


@pytest.mark.parametrize("code", ["not-a-code", "x" * 200])
def test_a_wrong_code_is_refused(emailing, code):
    problem(emailing.post("/sign-in/code", json={"code": code}), "wrong-code", 401)


@pytest.mark.parametrize("body", [{}, {"code": ""}, {"code": "x" * 201}, {"code": 7}])
def test_a_missing_or_malformed_code_is_a_validation_error(emailing, body):
    response = emailing.post("/sign-in/code", json=body)
    assert "code" in problem(response, "validation-error", 400)["errors"]


def test_a_confirmation_code_that_is_wrong_or_malformed_is_refused(emailing):
    problem(emailing.post("/email-confirmation", json={"code": "x"}), "wrong-code", 401)
    response = emailing.post("/email-confirmation", json={})
    assert "code" in problem(response, "validation-error", 400)["errors"]


def test_get_sign_in_is_the_page_for_a_browser_and_as_the_contract_says_for_others(client):
    """`/sign-in` is a page of the web client and an operation of the API (POST only)."""
    operations = yaml.safe_load(CONTRACT.read_text(encoding="utf-8"))["paths"]["/sign-in"]
    assert set(operations) == {"post"}
    for accept in ({}, {"Accept": "application/json"}, {"Accept": "*/*"}):
        response = client.get("/sign-in", headers=accept)
        problem(response, "method-not-allowed", 405)
        assert response.headers["Allow"] == "POST"
    page = client.get("/sign-in", headers={"Accept": "text/html,application/xhtml+xml,*/*"})
    assert (page.status_code, page.mimetype) == (200, "text/html")


# A sign-in link for another device


def device_code(client, key: str):
    return client.post("/me/sign-in-code", headers=bearer(key))


def test_a_link_for_another_device_gives_one_device_a_key_of_its_own(client):
    ann = register(client)
    made = device_code(client, ann["key"])
    assert (made.status_code, set(made.json)) == (201, {"code", "expires_at"})
    laptop = client.post("/sign-in/code", json={"code": made.json["code"]})
    assert (laptop.status_code, laptop.json["player_id"]) == (201, ann["player_id"])
    for _ in ("the second browser", "the third"):  # issue 47: three over 35 minutes
        problem(client.post("/sign-in/code", json={"code": made.json["code"]}), "wrong-code", 401)
    assert laptop.json["key"] != ann["key"]
    assert client.get("/me", headers=bearer(laptop.json["key"])).json["name"] == "Ann"


def test_a_link_for_another_device_is_kept_as_its_digest_only(client, redis_client, prefix):
    ann = register(client)
    code = device_code(client, ann["key"]).json["code"]
    values = [redis_client.dump(key) for key in redis_client.scan_iter(match=f"{prefix}:*")]
    assert not any(code.encode() in value for value in values if value)
    assert redis_client.exists(f"{prefix}:sign-in:{digest(code)}")


def test_a_link_for_another_device_needs_a_players_key(client):
    problem(client.post("/me/sign-in-code"), "unauthorized", 401)
    problem(device_code(client, "not-a-key"), "unauthorized", 401)


@pytest.fixture
def capped(redis_client, prefix):
    """A client of a server where a player holds 2 keys at most."""
    return an_app(redis_client, prefix, device_cap=2).test_client()


def test_no_link_is_made_for_a_player_who_holds_as_many_keys_as_they_may(capped):
    ann = register(capped)
    capped.post("/me/devices", json={}, headers=bearer(ann["key"]))
    problem(device_code(capped, ann["key"]), "too-many-devices", 409)


def test_a_link_used_when_the_player_holds_as_many_keys_as_they_may_waits_for_room(capped):
    ann = register(capped)
    code = device_code(capped, ann["key"]).json["code"]
    phone = capped.post("/me/devices", json={}, headers=bearer(ann["key"])).json
    refused = problem(capped.post("/sign-in/code", json={"code": code}), "too-many-devices", 409)
    assert "sign a device out" in refused["detail"]
    capped.delete(f"/me/devices/{phone['device_id']}", headers=bearer(ann["key"]))
    assert capped.post("/sign-in/code", json={"code": code}).status_code == 201  # not used
