"""Ratings over HTTP: a rated game's seats, the change in its view (and why a game
counted less), the leaderboard and the public profiles, which show nothing private."""

from __future__ import annotations

import re

import pytest

from tests.api.factories import Table, created
from tests.api.test_player_stream import play
from tests.games.test_ratings import drawn_with_the_ai_levels


def a_player(client, name, **contact) -> tuple[str, str]:
    response = client.post("/players", json={"name": name, **contact})
    assert response.status_code == 201, response.json
    return response.json["player_id"], response.json["key"]


def a_rated_table(client, keys) -> Table:
    game = created(client, rated=True)
    table = Table(client, game["game_id"])
    for invite, key in zip(game["invites"], keys, strict=True):
        response = client.post(
            f"/games/{table.game_id}/seats/{invite['seat']}",
            json={"invite": invite["invite"]},
            headers={"Authorization": f"Bearer {key}"},
        )
        assert response.status_code == 201, response.json
        table.tokens[invite["seat"]] = response.json["token"]
    return table


@pytest.fixture
def two(client):
    return [
        a_player(client, "Ann", email="ann@example.com", webhook_url="https://ann.example/hook"),
        a_player(client, "Bo"),
    ]


def test_rated_is_a_boolean_and_a_rated_seat_needs_a_player_key(client):
    for wrong in ("yes", 1, None):
        response = client.post("/games", json={"players": 2, "rated": wrong})
        assert response.status_code == 400
        assert "rated" in response.json["errors"]
    game = created(client, rated=True)
    response = client.post(
        f"/games/{game['game_id']}/seats/0",
        json={"invite": game["invites"][0]["invite"], "name": "Cy"},
    )
    assert response.status_code == 401
    assert response.json["type"].endswith("/unauthorized")
    assert "registered players" in response.json["detail"]
    assert client.get(f"/games/{game['game_id']}").json["rated"] is True
    listed = client.get("/games?status=open").json["games"]
    assert [g["rated"] for g in listed if g["game_id"] == game["game_id"]] == [True]


def test_a_finished_rated_game_shows_what_it_did_to_each_rating(client, claim, two):
    drawn_with_the_ai_levels(claim, *(pid for pid, _ in two))  # established, at 25
    table = a_rated_table(client, [key for _, key in two])
    assert table.view()["ratings"] is None  # running
    view = table.play()
    [winner] = view["ending"]["winners"]
    ratings = view["ratings"]
    assert [(r["seat"], r["player_id"]) for r in ratings] == [(0, two[0][0]), (1, two[1][0])]
    assert ratings[winner]["change"] > 0 > ratings[1 - winner]["change"]
    for r in ratings:
        assert r["rating_before"] == 25.0
        assert r["change"] == pytest.approx(r["rating_after"] - r["rating_before"], abs=0.011)
        assert 0 < r["uncertainty_after"] < 25 / 3
        assert (r["weight"], r["note"]) == (1, None)
    assert table.view(0)["ratings"] == ratings
    seen = client.get(f"/games/{table.game_id}")
    assert re.fullmatch(f'"{view["version"]}-r[0-9a-f]{{8}}"', seen.headers["ETag"])
    ended_unrated = {"If-None-Match": f'"{view["version"]}"'}  # seen before the ratings
    assert client.get(f"/games/{table.game_id}", headers=ended_unrated).status_code == 200
    same = {"If-None-Match": seen.headers["ETag"]}
    assert client.get(f"/games/{table.game_id}", headers=same).status_code == 304


def test_a_game_resigned_at_once_shows_its_result_and_that_it_was_not_rated(client, two):
    table = a_rated_table(client, [key for _, key in two])
    response = client.post(f"/games/{table.game_id}/resign", headers=table.headers(1))
    assert response.status_code == 201, response.json
    view = table.view()
    assert (view["status"], view["ending"]["winners"]) == ("finished", [0])
    for r in view["ratings"]:
        assert (r["weight"], r["change"], r["rating_after"]) == (0, 0, 25)
        assert r["note"].startswith("not rated: the game was resigned or forfeited before 4")
    assert client.get("/ratings?players=2").json["total"] == 0
    assert client.get(f"/players/{two[0][0]}").json["recent"] == []


def test_the_leaderboard_ranks_and_pages_and_marks_provisional_ratings(client, claim, two):
    drawn_with_the_ai_levels(claim, *(pid for pid, _ in two))
    a_rated_table(client, [key for _, key in two]).play()
    board = client.get("/ratings?players=2").json
    assert (board["players"], board["total"], board["ranked"], board["offset"]) == (2, 2, 0, 0)
    first, second = board["standings"]
    assert (first["rank"], second["rank"]) == (None, None)  # four opponents each: no rank
    assert first["rating"] > 25 > second["rating"]
    assert {first["name"], second["name"]} == {"Ann", "Bo"}
    for standing in board["standings"]:
        assert standing["provisional"] is True and standing["games"] == 4
        assert (standing["ranked"], standing["established"], standing["opponents"]) == (
            False,
            True,
            4,
        )
        assert standing["kind"] == "player" and standing["last_played_at"]
    page = client.get("/ratings?players=2&offset=1&limit=1").json
    assert page["standings"] == [second] and page["total"] == 2
    assert client.get("/ratings?players=3").json["standings"] == []
    for wrong in ("", "?players=5", "?players=2&limit=0", "?players=2&offset=-1"):
        response = client.get(f"/ratings{wrong}")
        assert response.status_code == 400, wrong
        assert response.headers["Content-Type"] == "application/problem+json"


def test_a_public_profile_shows_ratings_and_results_and_nothing_private(client, claim, two):
    (ann, ann_key), _ = two
    drawn_with_the_ai_levels(claim, *(pid for pid, _ in two))
    table = a_rated_table(client, [key for _, key in two])
    view = table.play()
    profile = client.get(f"/players/{ann}").json
    assert (profile["player_id"], profile["kind"], profile["name"]) == (ann, "player", "Ann")
    assert profile["games"] == 4  # three draws with the AI levels, then Bo
    assert profile["ratings"]["3"] is None and profile["ratings"]["4"] is None
    assert profile["ratings"]["2"]["games"] == 4
    result = profile["recent"][0]
    assert result["game_id"] == table.game_id and result["seat"] == 0
    assert result["outcome"] == ("won" if view["ending"]["winners"] == [0] else "lost")
    assert result["change"] == view["ratings"][0]["change"]
    assert (result["weight"], result["note"]) == (1, None)
    me = client.get("/me", headers={"Authorization": f"Bearer {ann_key}"}).json
    for public in (f"/players/{ann}", "/ratings?players=2", f"/games/{table.game_id}"):
        text = client.get(public).get_data(as_text=True)
        for secret in (ann_key, "ann@example.com", "ann.example", me["email"]):
            assert secret not in text, public
    assert not {"email", "webhook_url", "key", "webhook_secret"} & set(profile)


def test_ai_levels_have_profiles_and_unknown_ids_are_404(client):
    greedy = client.get("/players/ai:greedy").json
    assert (greedy["kind"], greedy["name"], greedy["games"], greedy["recent"]) == (
        "ai",
        "greedy",
        0,
        [],
    )
    for unknown in ("ai:grandmaster", "0123456789abcdef", "nobody"):
        response = client.get(f"/players/{unknown}")
        assert response.status_code == 404
        assert response.json["type"].endswith("/unknown-player")


def test_a_game_against_a_newcomer_or_a_bot_says_why_it_counted_less(client, claim, two):
    """Ann is established, Bo a newcomer, Robo an established bot: Ann's game with Bo
    counts for Bo only, and her game with Robo half for her (and fully for Robo)."""
    (ann, ann_key), (bo, bo_key) = two
    robo, robo_key = a_player(client, "Robo", bot=True)
    drawn_with_the_ai_levels(claim, ann, robo)
    keys = {0: {"Authorization": f"Bearer {ann_key}"}}
    for to, key in ((bo, bo_key), (robo, robo_key)):
        keys[1] = {"Authorization": f"Bearer {key}"}
        body = {"to": to, "rated": True, "factions": "claim"}
        made = client.post("/challenges", json=body, headers=keys[0]).json
        game_id = client.post(f"/challenges/{made['id']}/accept", headers=keys[1]).json["game_id"]
        play(client, game_id, keys)
        mine, theirs = client.get(f"/games/{game_id}").json["ratings"]
        if to == bo:
            assert (mine["weight"], mine["change"], theirs["weight"]) == (0, 0, 1)
            assert mine["note"].startswith("not rated: the opponent is not established yet")
        else:
            assert (mine["weight"], theirs["weight"], theirs["note"]) == (0.5, 1, None)
            assert mine["note"].startswith("counted at 0.5: the opponent is a bot's account")
    board = {s["player_id"]: s for s in client.get("/ratings?players=2").json["standings"]}
    assert {e: (s["established"], s["opponents"]) for e, s in board.items()} == {
        ann: (True, 3),  # the AI levels: neither a newcomer nor a bot counts towards a rank
        bo: (False, 1),
        robo: (True, 4),
    }
