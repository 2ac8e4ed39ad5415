"""Every error is RFC 9457 problem+json with a stable type; none is a 500 for bad input."""

import logging
import time

import pytest
import redis

from service.api.problems import KINDS
from service.games import changes
from tests.api.factories import a_table, an_app, created
from tests.api.test_games import problem


def test_every_kind_has_its_own_type_and_an_error_status():
    assert len({kind.type for kind in KINDS.values()}) == len(KINDS)
    assert all(400 <= kind.status < 600 for kind in KINDS.values())


def test_a_problem_names_its_type_title_status_detail_and_instance(client):
    body = problem(client.get("/games/0123456789abcdef"), "unknown-game", 404)
    assert body == {
        "type": "/problems/unknown-game",
        "title": "No such game",
        "status": 404,
        "detail": "no game '0123456789abcdef'",
        "instance": "/games/0123456789abcdef",
    }


def test_an_unknown_path_and_a_wrong_method_are_problems(client):
    problem(client.get("/nowhere"), "not-found", 404)
    problem(client.delete("/games"), "method-not-allowed", 405)


def test_a_body_above_the_size_limit_is_refused(client, store, claim):
    response = client.post("/games", json={"players": 2, "padding": "x" * 100_000})
    problem(response, "payload-too-large", 413)
    assert claim.lobby.page("open").total == 0


def test_too_many_requests_from_one_client_are_rate_limited(redis_client, prefix):
    app = an_app(redis_client, prefix, rate_limit="3/minute")
    client = app.test_client()
    statuses = [client.get("/healthz").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    body = problem(client.get("/games"), "rate-limited", 429)
    assert body["status"] == 429
    # One limit for the whole API, so one counter a client (no per-route one beside it).
    assert len(list(redis_client.scan_iter(match=f"{prefix}:limits*"))) == 1


def test_every_answer_tells_the_rate_limit_what_is_left_and_when_the_window_ends(
    redis_client, prefix
):
    app = an_app(redis_client, prefix, rate_limit="2 per minute")
    client = app.test_client()
    before = time.time()
    answers = [client.get("/healthz"), client.get("/nowhere"), client.get("/healthz")]
    assert [a.headers["X-RateLimit-Limit"] for a in answers] == ["2", "2", "2"]
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["1", "0", "0"]
    resets = [int(a.headers["X-RateLimit-Reset"]) for a in answers]
    assert max(resets) - min(resets) <= 1  # one window (its end rounded up to the second)
    assert before + 59 <= min(resets) <= max(resets) <= time.time() + 61
    assert "Retry-After" not in answers[1].headers
    assert 1 <= int(answers[2].headers["Retry-After"]) <= 60
    assert "2 per 1 minute" in problem(answers[2], "rate-limited", 429)["detail"]


@pytest.mark.parametrize("limit", ["3 per fortnight", "3/second;100/minute"])
def test_a_rate_limit_that_cannot_be_read_stops_the_app_from_starting(redis_client, prefix, limit):
    with pytest.raises(
        ValueError, match=f"one rate limit such as '1200 per minute', not '{limit}'"
    ):
        an_app(redis_client, prefix, rate_limit=limit)


def test_made_up_tokens_do_not_escape_the_rate_limit(redis_client, prefix):
    app = an_app(redis_client, prefix, rate_limit="3/minute")
    client = app.test_client()
    statuses = [
        client.get("/healthz", headers={"Authorization": f"Bearer made-up-{n}"}).status_code
        for n in range(4)
    ]
    assert statuses == [200, 200, 200, 429]


@pytest.mark.single_redis  # the Redis here is none that answers
@pytest.mark.parametrize("rate_limit", ["", "100 per minute"])
def test_redis_unreachable_is_a_503_problem(prefix, rate_limit):
    down = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)
    client = an_app(down, prefix, rate_limit=rate_limit).test_client()
    for response in (
        client.get("/healthz"),
        client.get("/games/0123456789abcdef"),
        client.post("/games", json={"players": 2}),
    ):
        problem(response, "store-unavailable", 503)
        assert int(response.headers["Retry-After"]) > 0


def test_an_unexpected_failure_is_a_500_that_shows_nothing_of_it(
    app, client, monkeypatch, caplog, claim
):
    def broken(*args, **kwargs):
        raise RuntimeError("secret internals GO3")

    monkeypatch.setattr(app.extensions["claim"].lobby, "page", broken)
    with caplog.at_level(logging.ERROR):
        body = problem(client.get("/games"), "internal-error", 500)
    assert "GO3" not in str(body) and "secret" not in str(body)
    assert "secret internals" in caplog.text  # but the log has it for the operator


@pytest.mark.parametrize("header", ["Bearer", "Basic abc", "bearer  ", "Token x"])
def test_a_malformed_authorization_header_is_no_token(client, header):
    table = a_table(client)
    response = client.post(
        f"/games/{table.game_id}/moves",
        json={"move": "play GO3", "expected_version": 3},
        headers={"Authorization": header, "Idempotency-Key": "k"},
    )
    problem(response, "unauthorized", 401)


def test_no_error_shows_the_token_it_was_sent(client):
    table = a_table(client)
    token = table.tokens[0]
    for response in (
        table.post_move(0, "dance", 3),
        table.post_move(1, "play GO3", 3),
        client.post(f"/games/{table.game_id}/moves", json={}, headers=table.headers(0, "k")),
    ):
        assert response.status_code >= 400
        assert token not in response.get_data(as_text=True)


@pytest.mark.parametrize(
    "name",
    [
        "Ann\r\nBcc: everyone",
        "\ud800",
        "tab\there",
        "Eve\u2028\u2028The game: http://evil.example/login took seat 1",
        "Eve\x85NEL",
        "\u202eevE",
    ],
)
def test_a_name_with_control_characters_separators_bidi_or_lone_surrogates_is_refused(client, name):
    game = created(client)
    invite = game["invites"][0]["invite"]
    body = problem(
        client.post(f"/games/{game['game_id']}/seats/0", json={"invite": invite, "name": name}),
        "validation-error",
        400,
    )
    assert "name" in body["errors"]
    problem(client.post("/players", json={"name": name}), "validation-error", 400)
    joined = client.post(f"/games/{game['game_id']}/seats/0", json={"invite": invite, "name": "A"})
    assert joined.status_code == 201  # the seat is still free


def test_a_join_answers_its_token_even_when_what_follows_it_fails(app, client, caplog, monkeypatch):
    def broken(*args):
        raise ConnectionError("the queue is down")

    monkeypatch.setattr(changes, "FOLLOWS", (*changes.FOLLOWS, broken))
    with caplog.at_level(logging.ERROR):
        table = a_table(client)  # every join answered 201 with a token
    assert table.view(0)["status"] == "running"
    assert "what follows version" in caplog.text
    assert all(token not in caplog.text for token in table.tokens.values())


# Bad input of every shape is a 4xx problem, and changes nothing


def _nested(depth: int) -> str:
    return '{"players": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize(
    "body",
    [
        _nested(978),  # about 2 KB: Python's parser gives up (RecursionError)
        _nested(20_000),
        '{"players": ' + "9" * 4301 + "}",  # more digits than Python turns into an int
        '{"players": 2, "first_leader": ' + "1" * 5000 + "}",
    ],
    ids=["nested-978", "nested-20000", "int-4301-digits", "int-5000-digits"],
)
def test_json_the_parser_gives_up_on_is_a_validation_error(client, claim, body):
    problem(
        client.post("/games", data=body, content_type="application/json"), "validation-error", 400
    )
    assert claim.lobby.page("open").total == 0


@pytest.mark.parametrize("version", [2**31, 2**64, 2**64 + 1, 10**30])
def test_a_version_beyond_any_game_is_a_validation_error_not_a_store_failure(client, version):
    table = a_table(client)
    seat = table.view()["table"]["to_act"]
    response = client.post(
        f"/games/{table.game_id}/moves",
        json={"move": "take deck", "expected_version": version},
        headers=table.headers(seat, "k"),
    )
    problem(response, "validation-error", 400)
    problem(client.get(f"/games/{table.game_id}?after={version}&wait=1"), "validation-error", 400)
    problem(client.get(f"/games/{table.game_id}/events?after={version}"), "validation-error", 400)
    assert table.view()["version"] == 3


def test_a_patch_of_me_without_a_key_is_told_of_the_key_before_its_body(client):
    problem(client.patch("/me", json={"name": 7}), "unauthorized", 401)


def test_every_answer_says_its_type_is_no_guess(client):
    table = a_table(client)
    for response in (
        client.get("/healthz"),
        client.get(f"/games/{table.game_id}"),
        client.get("/nowhere"),
        client.get("/openapi.yaml"),
    ):
        assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_what_a_token_opens_or_a_change_answers_is_never_stored_by_a_cache(client):
    table = a_table(client)
    assert (
        "no-store"
        in client.get(f"/games/{table.game_id}", headers=table.headers(0)).headers["Cache-Control"]
    )
    assert client.post("/players", json={"name": "Ann"}).headers["Cache-Control"] == "no-store"
    public = client.get(f"/games/{table.game_id}").headers["Cache-Control"]
    # The public view may be kept, but asked again every time (its ETag answers 304).
    assert "no-store" not in public and "no-cache" in public


def test_a_wrong_token_is_told_as_an_invalid_token(client):
    table = a_table(client)
    response = client.get(f"/games/{table.game_id}", headers={"Authorization": "Bearer nope"})
    problem(response, "unauthorized", 401)
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="claim", error="invalid_token"'
