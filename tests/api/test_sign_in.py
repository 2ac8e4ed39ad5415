"""`/sign-in`: whether this server signs in by email, asking for a link, using a code
(the emails themselves: tests/games/test_sign_in.py)."""

import pytest

from tests.api.factories import an_app
from tests.api.test_games import problem
from tests.api.test_players import register


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
