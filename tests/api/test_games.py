"""`/games`: create, list, join, view, long-poll, move, resign (against a real Redis)."""

import itertools
import random
import threading
import time
from datetime import datetime, timedelta

import pytest

from service.api import create_app
from service.domain import (
    Settings,
    apply,
    legal_decisions,
    new_game,
    observe,
    result,
    unplayable,
)
from service.events import DecisionMade, TurnTimedOut, digest
from service.games import Claim
from tests.api.factories import Table, a_deck, a_table, a_table_with_deck, an_app, created
from tests.events.factories import FACTIONS, RoundTrips, stream_key

PROBLEM = "application/problem+json"


def problem(response, kind: str, status: int) -> dict:
    assert response.status_code == status, response.json
    assert response.content_type == PROBLEM
    assert response.json["type"] == f"/problems/{kind}"
    return response.json


# Creating


def test_creating_a_game_answers_its_id_version_commitment_and_one_invite_per_human(client):
    seats = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}, {"kind": "human"}]
    response = client.post("/games", json={"players": 3, "seats": seats})
    assert response.status_code == 201
    body = response.json
    assert response.headers["Location"] == f"/games/{body['game_id']}"
    assert (body["version"], body["status"]) == (1, "open")
    assert len(body["commitment"]) == 64
    assert [invite["seat"] for invite in body["invites"]] == [0, 2]
    assert len({invite["invite"] for invite in body["invites"]}) == 2


def test_invites_are_stored_hashed_only(client, store, redis_client, prefix):
    body = created(client)
    game = store.load(body["game_id"])
    for invite in body["invites"]:
        assert game.seats[invite["seat"]].invite_hash == digest(invite["invite"])
    raw = b"".join(
        value
        for _, fields in redis_client.xrange(stream_key(prefix, game.id))
        for value in fields.values()
    )
    assert not any(invite["invite"].encode() in raw for invite in body["invites"])


@pytest.mark.parametrize(
    ("preset", "players", "factions"),
    [
        ("claim", 2, ["GO", "KN", "UN", "DO", "DW"]),
        ("claim2", 2, ["GN", "GI", "DR", "TR", "SE"]),
        (["GN", "GI", "UN", "DO", "DW", "DR", "SE"], 4, ["GN", "GI", "UN", "DO", "DW", "DR", "SE"]),
    ],
)
def test_a_game_is_created_with_a_preset_or_a_list_of_factions(client, preset, players, factions):
    body = created(client, players, factions=preset)
    assert client.get(f"/games/{body['game_id']}").json["factions"] == factions


def test_the_random_preset_picks_a_legal_deck(client):
    for players in (2, 3, 4):
        view = client.get(f"/games/{created(client, players)['game_id']}").json
        Settings(players, tuple(view["factions"]))  # raises if illegal


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"players": 5}, "players"),
        ({"players": "2"}, "players"),
        ({}, "players"),
        ({"players": 2, "factions": "claim3"}, "factions"),
        ({"players": 2, "seats": [{"kind": "ai"}, {"kind": "human"}]}, "seats"),
        ({"players": 2, "seats": [{"kind": "human", "level": "greedy"}] * 2}, "seats"),
        ({"players": 2, "seats": [{"kind": "robot"}] * 2}, "seats"),
        ({"players": 2, "move_time_limit": 5}, "move_time_limit"),
        ({"players": 2, "first_leader": 7}, "first_leader"),
        ({"players": 2, "colour": "red"}, "colour"),
    ],
)
def test_a_request_that_does_not_fit_the_schema_is_a_validation_error(client, body, field):
    body = problem(client.post("/games", json=body), "validation-error", 400)
    assert field in body["errors"]


@pytest.mark.parametrize(
    "body",
    [
        {"players": 3, "factions": "claim"},  # a 2-player deck
        {"players": 2, "factions": ["GO", "KN", "GN", "GI", "UN"]},  # both pairs
        {"players": 2, "factions": ["GO", "KN", "UN", "DO", "XX"]},
        {"players": 2, "seats": [{"kind": "human"}] * 3},
        {"players": 2, "first_leader": 2},
    ],
)
def test_settings_the_rules_refuse_are_a_validation_error(client, store, body, claim):
    problem(client.post("/games", json=body), "validation-error", 400)
    assert claim.lobby.page("open").total == 0


def test_a_body_that_is_not_json_is_a_validation_error(client):
    response = client.post("/games", data="{players: 2", content_type="application/json")
    problem(response, "validation-error", 400)


# The lobby


def test_the_lobby_lists_games_by_status_newest_first_and_pages(client):
    ids = [created(client)["game_id"] for _ in range(3)]
    running = a_table(client).game_id
    page = client.get("/games?status=open&limit=2").json
    assert page["total"] == 3
    assert [game["game_id"] for game in page["games"]] == ids[::-1][:2]
    assert [g["game_id"] for g in client.get("/games?status=open&offset=2").json["games"]] == ids[
        :1
    ]
    assert [g["game_id"] for g in client.get("/games?status=running").json["games"]] == [running]


def test_the_lobby_refuses_an_unknown_status(client):
    problem(client.get("/games?status=lost"), "validation-error", 400)


def test_the_lobby_filters_by_players_rated_and_public_with_totals_and_pages(client):
    shapes = list(itertools.product((2, 3, 4), (False, True), (False, True)))
    ids = {
        shape: created(client, shape[0], rated=shape[1], public=shape[2])["game_id"]
        for shape in shapes
    }
    newest = [ids[shape] for shape in reversed(shapes)]
    a_table(client, 3)  # running: in none of the open listings

    def listed(query: str, limit: int = 2) -> tuple[int, list[str]]:
        pages = [
            client.get(f"/games?status=open&{query}&offset={n}&limit={limit}").json
            for n in range(0, 12, limit)
        ]
        assert len({page["total"] for page in pages}) == 1
        return pages[0]["total"], [game["game_id"] for page in pages for game in page["games"]]

    def kept(players=None, rated=None, public=None) -> list[str]:
        return [
            game_id
            for game_id, (p, r, pub) in zip(newest, reversed(shapes), strict=True)
            if players in (None, p) and rated in (None, r) and public in (None, pub)
        ]

    assert listed("players=3") == (4, kept(players=3))
    assert listed("rated=true") == (6, kept(rated=True))
    assert listed("public=false", limit=5) == (6, kept(public=False))
    assert listed("players=2&rated=false") == (2, kept(players=2, rated=False))
    assert listed("players=4&rated=true&public=true") == (1, kept(4, True, True))
    assert listed("players=3", limit=1)[1] == kept(players=3)
    assert client.get("/games?status=running&players=3").json["total"] == 1
    assert client.get("/games?status=running&players=2").json["total"] == 0


@pytest.mark.parametrize(
    "query",
    ["players=1", "players=5", "players=two", "rated=yes", "rated=1", "public=", "public=TRUE"],
)
def test_the_lobby_refuses_a_filter_it_does_not_know(client, query):
    problem(client.get(f"/games?status=open&{query}"), "validation-error", 400)


def test_the_lobby_pages_to_an_offset_of_ten_thousand_at_most(client):
    assert client.get("/games?offset=10000").status_code == 200
    problem(client.get("/games?offset=10001"), "validation-error", 400)


# Joining


def test_joining_answers_a_token_once_and_the_game_runs_when_every_seat_is_taken(client, store):
    body = created(client)
    game_id, (first, second) = body["game_id"], body["invites"]
    joined = client.post(
        f"/games/{game_id}/seats/0", json={"invite": first["invite"], "name": "Ann"}
    )
    assert joined.status_code == 201
    assert joined.json["view"]["status"] == "open"
    assert joined.json["view"]["table"] is None
    assert store.load(game_id).seats[0].token_hash == digest(joined.json["token"])
    again = client.post(
        f"/games/{game_id}/seats/0", json={"invite": first["invite"], "name": "Eve"}
    )
    problem(again, "seat-unavailable", 409)
    client.post(f"/games/{game_id}/seats/1", json={"invite": second["invite"], "name": "Bo"})
    view = client.get(f"/games/{game_id}").json
    assert view["status"] == "running"
    assert [seat["name"] for seat in view["seats"]] == ["Ann", "Bo"]


def test_joining_with_another_seats_invite_is_refused(client):
    body = created(client)
    invite = body["invites"][1]["invite"]
    response = client.post(
        f"/games/{body['game_id']}/seats/0", json={"invite": invite, "name": "A"}
    )
    detail = problem(response, "wrong-invite", 403)["detail"]
    assert invite not in detail


@pytest.mark.parametrize("seat", [1, 5])
def test_an_ai_seat_or_a_seat_that_does_not_exist_cannot_be_joined(client, seat):
    body = created(client, seats=[{"kind": "human"}, {"kind": "ai", "level": "random"}])
    invite = body["invites"][0]["invite"]
    response = client.post(
        f"/games/{body['game_id']}/seats/{seat}", json={"invite": invite, "name": "A"}
    )
    problem(response, "seat-unavailable", 409)


def test_racing_joins_of_one_seat_give_exactly_one_token(client, app):
    body = created(client)
    game_id, invite = body["game_id"], body["invites"][0]["invite"]
    statuses = []

    def join():
        with app.test_client() as own:
            statuses.append(
                own.post(
                    f"/games/{game_id}/seats/0", json={"invite": invite, "name": "A"}
                ).status_code
            )

    threads = [threading.Thread(target=join) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201] + [409] * 7


# Viewing


def test_the_public_view_shows_no_hand_and_a_seats_view_shows_its_own(client):
    table = a_table(client, 3)
    public = table.view()
    assert public["you"] is None
    assert public["table"]["hand_sizes"] == [12, 12, 12]
    assert public["revealed"] is None
    for seat in range(3):
        you = table.view(seat)["you"]
        assert you["seat"] == seat
        assert len(you["hand"]) == 12
        assert (you["legal"] != []) == (seat == public["table"]["to_act"])


def test_a_seats_view_is_its_hand_from_the_deck(client, store):
    deck = a_deck(2, seed=5)
    table = a_table_with_deck(client, store, deck)
    assert table.view(1)["you"]["hand"] == [card.code for card in sorted(deck[13:26])]


def a_seat_that_must_follow(table: Table, rng: random.Random) -> tuple[int, dict]:
    """Random moves until the seat to act must follow and holds other cards too: that
    seat and its `you`."""
    while True:
        acting = table.view()["table"]["to_act"]
        you = table.view(acting)["you"]
        if you["unplayable"] and any(move.startswith("play ") for move in you["legal"]):
            return acting, you  # (not a seat that must take a prize first)
        table.play(moves=1, rng=rng)


def test_the_seat_to_act_is_told_which_cards_it_may_not_play_and_why(client, store):
    table = a_table(client, 3)
    acting, you = a_seat_that_must_follow(table, random.Random(4))
    expected = unplayable(observe(store.load(table.game_id).state, acting))
    assert you["unplayable"] == {card.code: reason for card, reason in expected.items()}
    told = set(you["unplayable"])
    plays = {move.removeprefix("play ") for move in you["legal"] if move.startswith("play ")}
    assert told | plays == set(you["hand"]) and not told & plays
    assert all(reason.startswith("must follow") for reason in you["unplayable"].values())
    assert all(table.view(seat)["you"]["unplayable"] == {} for seat in {0, 1, 2} - {acting})


def test_a_seat_an_ai_plays_or_of_a_game_over_is_told_of_no_card_it_may_not_play(client, store):
    table = a_table(client, move_time_limit=60, timeout_policy="takeover:random")
    seat, _ = a_seat_that_must_follow(table, random.Random(2))
    version = table.view()["version"]
    store.append(table.game_id, [TurnTimedOut(seat, "takeover:random")], version)
    assert table.view(seat)["you"]["unplayable"] == {}
    client.post(f"/games/{table.game_id}/resign", headers=table.headers(1 - seat))
    assert table.view(seat)["you"]["unplayable"] == {}


def test_each_seat_counts_the_decisions_an_ai_made_for_it_when_its_time_ran_out(client, store):
    table = a_table(client, move_time_limit=60, timeout_policy="ai:random")
    assert [seat["ai_decisions"] for seat in table.view()["seats"]] == [0, 0]
    seat = table.view()["table"]["to_act"]
    decision = legal_decisions(store.load(table.game_id).state)[0]
    timed_out = [TurnTimedOut(seat, "ai:random"), DecisionMade(seat, decision, "ai:random")]
    store.append(table.game_id, timed_out, 3)
    view = table.view()
    assert view["seats"][seat]["ai_decisions"] == 1
    assert view["seats"][1 - seat]["ai_decisions"] == 0


TAKING_A_TOKEN = [  # every endpoint that reads the caller's token, as (method, path)
    ("GET", "/games/{}"),
    ("GET", "/games/{}?after=3&wait=1"),
    ("GET", "/games/{}/legal"),
    ("GET", "/games/{}/replay/0"),
    ("GET", "/games/{}/stream"),
    ("POST", "/games/{}/resign"),
    ("POST", "/games/{}/rematch"),
    ("POST", "/games/{}/seats/0/return"),
]


@pytest.mark.parametrize(("method", "path"), TAKING_A_TOKEN)
def test_a_token_of_another_game_opens_nothing_anywhere(client, method, path):
    first, second = a_table(client), a_table(client)
    before = second.view(0)
    response = client.open(path.format(second.game_id), method=method, headers=first.headers(0))
    problem(response, "unauthorized", 401)
    assert second.view(0) == before  # nothing changed


@pytest.mark.parametrize(("method", "path"), TAKING_A_TOKEN)
def test_a_made_up_token_is_refused_not_taken_for_the_public(client, method, path):
    table = a_table(client)
    headers = {"Authorization": "Bearer nope"}
    response = client.open(path.format(table.game_id), method=method, headers=headers)
    problem(response, "unauthorized", 401)


def test_a_token_of_another_game_cannot_move(client):
    first, second = a_table(client), a_table(client)
    response = client.post(
        f"/games/{second.game_id}/moves",
        json={"move": "play GO3", "expected_version": 3},
        headers=first.headers(0, "k"),
    )
    problem(response, "unauthorized", 401)


def test_the_etag_is_the_version_and_an_unchanged_game_answers_304(client):
    table = a_table(client)
    response = client.get(f"/games/{table.game_id}")
    assert response.headers["ETag"] == '"3"'
    assert response.headers["Cache-Control"] == "private, no-cache"
    again = client.get(f"/games/{table.game_id}", headers={"If-None-Match": '"3"'})
    assert again.status_code == 304
    table.play(moves=1)
    assert (
        client.get(f"/games/{table.game_id}", headers={"If-None-Match": '"3"'}).status_code == 200
    )


def test_a_seats_view_has_an_etag_of_its_own_and_the_public_etag_does_not_answer_it(client):
    """A browser that cached the public view must not be told that a seat's is the same
    (the seat would see the table as a watcher, without its hand)."""
    table = a_table(client)
    seat = client.get(f"/games/{table.game_id}", headers=table.headers(1))
    assert seat.headers["ETag"] == '"3-s1"'
    public = {"If-None-Match": '"3"', **table.headers(1)}
    assert client.get(f"/games/{table.game_id}", headers=public).status_code == 200
    same = {"If-None-Match": '"3-s1"', **table.headers(1)}
    assert client.get(f"/games/{table.game_id}", headers=same).status_code == 304


def test_a_long_poll_answers_at_once_when_the_game_is_newer(client):
    table = a_table(client)
    assert client.get(f"/games/{table.game_id}?after=2&wait=60").json["version"] == 3


def test_a_long_poll_wakes_up_when_a_move_is_made(client, app):
    table = a_table(client)
    seat = table.view()["table"]["to_act"]
    move = table.view(seat)["you"]["legal"][0]

    def move_once_the_poll_waits():
        while app.extensions["claim"].watchers.count() == 0:
            time.sleep(0.001)
        with app.test_client() as other:
            table.client = other
            table.post_move(seat, move, 3)

    mover = threading.Thread(target=move_once_the_poll_waits)
    mover.start()
    view = client.get(f"/games/{table.game_id}?after=3&wait=60").json
    mover.join()
    assert view["version"] == 4
    assert view["table"]["trick"] == [{"seat": seat, "card": move.split()[1]}]


def test_a_long_poll_with_nothing_new_answers_the_current_view_after_the_wait(client):
    table = a_table(client)
    assert client.get(f"/games/{table.game_id}?after=3&wait=0.05").json["version"] == 3


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "", None),
        ("post", "/moves", {"move": "play GO3", "expected_version": 1}),
        ("post", "/resign", None),
        ("get", "/replay/0", None),
        ("get", "/events", None),
        ("get", "/audit", None),
        ("post", "/seats/0", {"invite": "x", "name": "x"}),
    ],
)
def test_an_unknown_game_is_a_problem_on_every_endpoint(client, method, path, body):
    headers = {"Idempotency-Key": "k", "Authorization": "Bearer x"}
    response = getattr(client, method)(f"/games/0123456789abcdef{path}", json=body, headers=headers)
    problem(response, "unknown-game", 404)


def test_the_legal_decisions_are_the_seats_own_when_it_is_to_act(client):
    table = a_table(client)
    acting = table.view()["table"]["to_act"]
    legal = client.get(f"/games/{table.game_id}/legal", headers=table.headers(acting)).json
    assert legal == {"version": 3, "seat": acting, "legal": table.view(acting)["you"]["legal"]}
    waiting = client.get(f"/games/{table.game_id}/legal", headers=table.headers(1 - acting)).json
    assert waiting["legal"] == []
    problem(client.get(f"/games/{table.game_id}/legal"), "unauthorized", 401)


# Moving


def test_a_move_answers_201_with_the_new_version_and_the_movers_view(client):
    table = a_table(client)
    move = table.view(0)["you"]["legal"][0]
    response = table.post_move(0, move, 3)
    assert response.status_code == 201
    assert response.json["version"] == 4
    assert response.json["view"]["you"]["seat"] == 0
    assert len(response.json["view"]["you"]["hand"]) == 12
    assert response.json["view"]["table"]["trick"] == [{"seat": 0, "card": move.split()[1]}]


def test_a_repeated_idempotency_key_answers_the_first_answer_and_changes_nothing(client, store):
    table = a_table(client)
    move = table.view(0)["you"]["legal"][0]
    first = table.post_move(0, move, 3, key="same")
    table.play(moves=2)
    again = table.post_move(0, move, 3, key="same")
    assert again.status_code == 201
    assert again.json == first.json
    assert store.version(table.game_id) == 6


def test_an_idempotency_key_used_for_another_move_is_refused(client, store):
    table = a_table(client)
    first, second = table.view(0)["you"]["legal"][:2]
    table.post_move(0, first, 3, key="same")
    problem(table.post_move(0, second, 3, key="same"), "idempotency-key-reused", 422)
    assert store.version(table.game_id) == 4


def test_a_move_needs_an_idempotency_key(client):
    table = a_table(client)
    response = client.post(
        f"/games/{table.game_id}/moves",
        json={"move": "play GO3", "expected_version": 3},
        headers=table.headers(0),
    )
    assert "Idempotency-Key" in problem(response, "validation-error", 400)["errors"]


def test_a_stale_version_is_a_conflict_carrying_the_current_version(client, store):
    table = a_table(client)
    table.play(moves=1)
    seat = table.view()["table"]["to_act"]
    move = table.view(seat)["you"]["legal"][0]
    body = problem(table.post_move(seat, move, 3), "stale-version", 409)
    assert body["current_version"] == 4
    assert store.version(table.game_id) == 4


def test_moves_through_two_api_processes_behind_each_other_land_in_turn(
    client, app, redis_client, claim
):
    """Each process moves from the game as it last saw it: a move at the version the
    other process reached is made, and one at a version it moved past is stale."""
    other = create_app(claim=Claim.connect(claim.config, client=redis_client, jobs=False))
    table = a_table(client)
    tables = [table, Table(other.test_client(), table.game_id, table.tokens)]
    for mover in tables:
        mover.view(0)  # each has seen the game at its start
    for version in (3, 4, 5):
        seat = tables[1].view()["table"]["to_act"]  # the first one does not look
        move = tables[1].view(seat)["you"]["legal"][0]
        response = tables[version % 2].post_move(seat, move, version)
        assert response.status_code == 201, response.json
        assert response.json["version"] == version + 1
    # The first process last saw version 5, which the second moved past:
    body = problem(table.post_move(seat, move, 5, key="again"), "stale-version", 409)
    assert body["current_version"] == 6


def test_a_move_costs_two_round_trips_to_redis_the_rate_limit_and_the_append(
    redis_client, prefix, monkeypatch
):
    """The seats of a game this process has seen need no reading again, and the
    append checks the version: nothing else is asked of Redis (what the hooks ask:
    tests/games/test_changes.py)."""
    client = an_app(redis_client, prefix, rate_limit="100 per minute").test_client()
    table = a_table(client)
    move = table.view(0)["you"]["legal"][0]
    round_trips = RoundTrips(redis_client, monkeypatch)
    assert table.post_move(0, move, 3).status_code == 201
    assert round_trips.count == 2


def test_a_move_out_of_turn_is_refused(client):
    table = a_table(client)
    other = 1 - table.view()["table"]["to_act"]
    card = table.view(other)["you"]["hand"][0]
    problem(table.post_move(other, f"play {card}", 3), "not-your-turn", 403)


def test_an_illegal_move_is_refused_with_the_engines_reason(client, store):
    deck = a_deck(2, seed=2)
    table = a_table_with_deck(client, store, deck)
    state = new_game(Settings(2, FACTIONS[2]), deck)
    missing = next(card for card in deck if card not in state.hands[0])
    body = problem(table.post_move(0, f"play {missing}", 3), "illegal-move", 422)
    assert body["detail"] == f"{missing} is not in seat 0's hand"
    assert store.version(table.game_id) == 3


@pytest.mark.parametrize("move", ["dance GO3", "play XX9", "take", ""])
def test_a_malformed_move_is_a_validation_error(client, move):
    table = a_table(client)
    problem(table.post_move(0, move, 3), "validation-error", 400)


def test_a_move_without_a_token_is_unauthorized(client):
    table = a_table(client)
    response = client.post(
        f"/games/{table.game_id}/moves",
        json={"move": "play GO3", "expected_version": 3},
        headers={"Idempotency-Key": "k"},
    )
    problem(response, "unauthorized", 401)
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="claim"'


def test_a_move_without_a_token_and_with_a_bad_body_is_told_of_the_token_first(client):
    table = a_table(client)
    response = client.post(f"/games/{table.game_id}/moves", json={"move": 7})
    problem(response, "unauthorized", 401)


def test_an_expected_version_written_as_a_whole_float_is_that_version(client):
    table = a_table(client)
    seat = table.view()["table"]["to_act"]
    move = table.view(seat)["you"]["legal"][0]
    response = client.post(
        f"/games/{table.game_id}/moves",
        json={"move": move, "expected_version": 3.0},
        headers=table.headers(seat, "k"),
    )
    assert response.status_code == 201, response.json
    for version in (3.5, "3", True):
        response = client.post(
            f"/games/{table.game_id}/moves",
            json={"move": move, "expected_version": version},
            headers=table.headers(seat, f"k{version}"),
        )
        problem(response, "validation-error", 400)


def test_a_move_before_every_seat_is_taken_is_refused(client):
    body = created(client)
    joined = client.post(
        f"/games/{body['game_id']}/seats/0",
        json={"invite": body["invites"][0]["invite"], "name": "A"},
    ).json
    response = client.post(
        f"/games/{body['game_id']}/moves",
        json={"move": "play GO3", "expected_version": 2},
        headers={"Authorization": f"Bearer {joined['token']}", "Idempotency-Key": "k"},
    )
    problem(response, "game-not-started", 409)


def test_the_whole_game_played_over_the_api_gives_the_engines_result(client, store):
    deck = a_deck(3, seed=9)
    table = a_table_with_deck(client, store, deck, players=3)
    state = new_game(Settings(3, FACTIONS[3]), deck)
    while state.to_act is not None:
        move = str(legal_decisions(state)[-1])
        assert table.post_move(state.to_act, move, store.version(table.game_id)).status_code == 201
        state = apply(state, move)
    view = table.view()
    assert view["status"] == "finished"
    assert view["ending"]["reason"] == "completed"
    outcome = result(state)
    assert view["result"]["winner"] == outcome.winner
    assert view["result"]["side_keys"] == [list(key) for key in outcome.side_keys]
    assert view["table"]["score_piles"] == [[c.code for c in pile] for pile in state.score_piles]


def test_a_move_after_the_end_is_refused_as_game_over(client):
    table = a_table(client)
    table.play()
    view = table.view(0)
    problem(table.post_move(0, "play GO3", view["version"]), "game-over", 409)


# Resigning


def test_resigning_ends_the_game_and_the_other_side_wins(client):
    table = a_table(client, 4)
    response = client.post(f"/games/{table.game_id}/resign", headers=table.headers(1))
    assert response.status_code == 201
    view = response.json["view"]
    assert view["status"] == "finished"
    assert view["ending"] == {
        "reason": "resigned",
        "seat": 1,
        "winners": [0],  # the team of seats 0 and 2
        "winning_seats": [0, 2],
    }
    assert view["table"]["to_act"] is None
    assert view["you"]["legal"] == []


def test_a_game_that_has_ended_by_resignation_shows_everything(client):
    table = a_table(client)
    client.post(f"/games/{table.game_id}/resign", headers=table.headers(0))
    view = table.view()
    assert [len(hand) for hand in view["revealed"]["hands"]] == [13, 13]
    assert len(view["revealed"]["deck"]) == 52


def test_resigning_twice_is_game_over_and_needs_a_token(client):
    table = a_table(client)
    client.post(f"/games/{table.game_id}/resign", headers=table.headers(0))
    problem(
        client.post(f"/games/{table.game_id}/resign", headers=table.headers(1)), "game-over", 409
    )
    problem(client.post(f"/games/{table.game_id}/resign"), "unauthorized", 401)


# Deadlines


def test_a_game_keeps_its_move_time_limit_and_timeout_policy_and_shows_the_deadline(client):
    table = a_table(client, move_time_limit=3600, timeout_policy="takeover:expert")
    view = table.view()
    assert (view["move_time_limit"], view["timeout_policy"]) == (3600, "takeover:expert")
    deadline = datetime.fromisoformat(view["deadline_at"])
    assert deadline - datetime.fromisoformat(view["updated_at"]) == timedelta(hours=1)


def test_an_open_game_shows_its_join_deadline(client):
    body = created(client, join_time_limit=600)
    view = client.get(f"/games/{body['game_id']}").json
    assert view["join_time_limit"] == 600
    deadline = datetime.fromisoformat(view["deadline_at"])
    assert deadline - datetime.fromisoformat(view["created_at"]) == timedelta(minutes=10)


@pytest.mark.parametrize("policy", ["ai:clever", "never", "takeover"])
def test_an_unknown_timeout_policy_is_refused(client, policy):
    response = client.post("/games", json={"players": 2, "timeout_policy": policy})
    assert "timeout_policy" in problem(response, "validation-error", 400)["errors"]


def test_a_person_whose_seat_an_ai_took_over_comes_back(client, store):
    table = a_table(client, move_time_limit=60, timeout_policy="takeover:random")
    seat = table.view()["table"]["to_act"]
    store.append(table.game_id, [TurnTimedOut(seat, "takeover:random")], 3)
    taken_over = table.view(seat)
    assert taken_over["seats"][seat]["takeover"] == "random"
    assert taken_over["you"]["legal"] == []  # the AI decides
    legal = legal_decisions(store.load(table.game_id).state)
    move = client.post(
        f"/games/{table.game_id}/moves",
        json={"move": str(legal[0]), "expected_version": 4},
        headers={**table.headers(seat), "Idempotency-Key": "while-away"},
    )
    assert "take the seat back" in problem(move, "seat-unavailable", 409)["detail"]
    assert store.version(table.game_id) == 4
    response = client.post(
        f"/games/{table.game_id}/seats/{seat}/return", headers=table.headers(seat)
    )
    assert response.status_code == 201
    assert response.json["view"]["seats"][seat]["takeover"] is None
    again = client.post(f"/games/{table.game_id}/seats/{seat}/return", headers=table.headers(seat))
    problem(again, "seat-unavailable", 409)


def test_only_the_seats_own_token_brings_it_back(client):
    table = a_table(client)
    problem(
        client.post(f"/games/{table.game_id}/seats/0/return", headers=table.headers(1)),
        "unauthorized",
        401,
    )


def test_a_public_game_is_joined_from_the_lobby_without_an_invite(client):
    game = created(client, seats=[{"kind": "human"}, {"kind": "human"}], public=True)
    assert game["invites"] == []
    listed = client.get("/games?status=open").json["games"]
    [summary] = [g for g in listed if g["game_id"] == game["game_id"]]
    assert (summary["public"], summary["open_seats"]) == (True, [0, 1])
    joined = client.post(f"/games/{game['game_id']}/seats/1", json={"name": "Anyone"})
    assert joined.status_code == 201 and joined.json["view"]["public"] is True
    taken = client.post(f"/games/{game['game_id']}/seats/1", json={"name": "Late"})
    assert taken.status_code == 409
    private = created(client)
    refused = client.post(f"/games/{private['game_id']}/seats/0", json={"name": "Sneaky"})
    assert refused.status_code == 403
    assert refused.json["type"].endswith("/wrong-invite")
    assert client.get(f"/games/{private['game_id']}").json["public"] is False
