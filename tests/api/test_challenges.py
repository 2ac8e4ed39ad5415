"""Challenges (`/challenges`, `/me/challenges`) and bot accounts (`"bot": true`):
one player challenges another or an AI level; the challenged accepts or declines."""

from dataclasses import replace
from datetime import timedelta

import pytest

from service.games import fire_due_timers


def problem(response) -> tuple[int, str]:
    """A problem answer's status and type."""
    assert response.mimetype == "application/problem+json", response.data
    return response.status_code, response.json["type"]


def a_player(client, name: str, bot: bool = False) -> tuple[str, dict]:
    """A registered player's id and the headers of its key."""
    response = client.post("/players", json={"name": name, "bot": bot})
    assert response.status_code == 201, response.json
    return response.json["player_id"], {"Authorization": f"Bearer {response.json['key']}"}


def challenge(client, headers: dict, to: str, **settings):
    return client.post("/challenges", json={"to": to, **settings}, headers=headers)


def test_an_accepted_challenge_starts_the_game_with_both_seated(client):
    ann, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    made = challenge(client, ann_key, bob, factions="claim")
    assert made.status_code == 201, made.json
    assert made.json["from"] == ann and made.json["to"] == bob
    assert (made.json["status"], made.json["game_id"]) == ("open", None)
    assert made.json["settings"]["factions"] == "claim"
    mine = client.get("/me/challenges", headers=bob_key).json["challenges"]
    assert [c["id"] for c in mine] == [made.json["id"]]

    accepted = client.post(f"/challenges/{made.json['id']}/accept", headers=bob_key)
    assert accepted.status_code == 200, accepted.json
    assert accepted.json["status"] == "accepted"
    game_id = accepted.json["game_id"]
    view = client.get(f"/games/{game_id}", headers=ann_key).json
    assert view["status"] == "running"
    assert view["you"]["seat"] == 0
    assert [seat["name"] for seat in view["seats"]] == ["Ann", "Bob"]
    assert client.get(f"/games/{game_id}", headers=bob_key).json["you"]["seat"] == 1
    assert client.get("/me/challenges", headers=bob_key).json["challenges"] == []
    again = client.post(f"/challenges/{made.json['id']}/accept", headers=bob_key)
    assert again.json["game_id"] == game_id  # the same game, made once
    inbox = client.get("/me/games", headers=ann_key).json["games"]
    assert [entry["game_id"] for entry in inbox] == [game_id]


def test_a_challenge_to_an_ai_level_starts_its_game_at_once(client):
    _, ann_key = a_player(client, "Ann")
    made = challenge(client, ann_key, "ai:greedy", players=3)
    assert made.status_code == 201, made.json
    assert made.json["status"] == "accepted"
    view = client.get(f"/games/{made.json['game_id']}", headers=ann_key).json
    assert [(seat["kind"], seat["level"]) for seat in view["seats"]] == [
        ("human", None),
        ("ai", "greedy"),
        ("ai", "greedy"),
    ]


def test_the_seats_beyond_the_two_people_are_the_others_level(client):
    _, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    made = challenge(client, ann_key, bob, players=4, others="ai:random").json
    game_id = client.post(f"/challenges/{made['id']}/accept", headers=bob_key).json["game_id"]
    seats = client.get(f"/games/{game_id}").json["seats"]
    assert [(seat["kind"], seat["level"]) for seat in seats] == [
        ("human", None),
        ("human", None),
        ("ai", "random"),
        ("ai", "random"),
    ]


def test_declined_and_cancelled_challenges_are_closed_and_answer_no_more(client):
    _, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    first = challenge(client, ann_key, bob).json
    assert problem(client.post(f"/challenges/{first['id']}/decline", headers=ann_key)) == (
        403,
        "/problems/not-your-challenge",
    )
    declined = client.post(f"/challenges/{first['id']}/decline", headers=bob_key)
    assert (declined.status_code, declined.json["status"]) == (200, "declined")
    assert problem(client.post(f"/challenges/{first['id']}/accept", headers=bob_key)) == (
        409,
        "/problems/challenge-not-open",
    )
    second = challenge(client, ann_key, bob).json
    assert problem(client.post(f"/challenges/{second['id']}/cancel", headers=bob_key))[0] == 403
    cancelled = client.post(f"/challenges/{second['id']}/cancel", headers=ann_key)
    assert (cancelled.status_code, cancelled.json["status"]) == (200, "cancelled")
    assert client.get(f"/challenges/{second['id']}", headers=bob_key).json["status"] == "cancelled"
    assert client.get("/me/challenges", headers=ann_key).json["challenges"] == []


def test_an_open_challenge_expires_by_its_timer(client, claim):
    _, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    made = challenge(client, ann_key, bob).json
    later = replace_clock(claim, seconds=claim.config.challenge_expires + 1)
    assert fire_due_timers(later) >= 1
    assert client.get(f"/challenges/{made['id']}", headers=bob_key).json["status"] == "expired"
    assert problem(client.post(f"/challenges/{made['id']}/accept", headers=bob_key)) == (
        409,
        "/problems/challenge-not-open",
    )


def replace_clock(claim, seconds: float):
    """The application with its clock `seconds` ahead."""
    now = claim.clock()
    return replace(claim, clock=lambda: now + timedelta(seconds=seconds))


def test_a_challenge_is_seen_by_its_two_players_only(client):
    _, ann_key = a_player(client, "Ann")
    bob, _ = a_player(client, "Bob")
    _, eve_key = a_player(client, "Eve")
    made = challenge(client, ann_key, bob).json
    assert problem(client.get(f"/challenges/{made['id']}", headers=eve_key)) == (
        404,
        "/problems/unknown-challenge",
    )
    assert problem(client.post(f"/challenges/{made['id']}/accept", headers=eve_key))[0] == 404


@pytest.mark.parametrize(
    ("body", "status", "kind"),
    [
        ({"to": "ai:grandmaster"}, 400, "validation-error"),
        ({"to": "0123456789abcdef"}, 404, "unknown-player"),
        ({"to": "ai:greedy", "others": "greedy"}, 400, "validation-error"),
        ({"to": "ai:greedy", "players": 5}, 400, "validation-error"),
        ({"to": "ai:greedy", "factions": "claim", "players": 3}, 400, "validation-error"),
    ],
)
def test_a_challenge_that_cannot_be_is_refused_and_nothing_kept(client, body, status, kind):
    _, ann_key = a_player(client, "Ann")
    assert problem(client.post("/challenges", json=body, headers=ann_key)) == (
        status,
        f"/problems/{kind}",
    )
    assert client.get("/me/challenges", headers=ann_key).json["challenges"] == []


def test_an_ai_level_named_without_its_prefix_is_told_how_to_name_it(client):
    _, ann_key = a_player(client, "Ann")
    refused = client.post("/challenges", json={"to": "expert"}, headers=ann_key)
    assert problem(refused) == (404, "/problems/unknown-player")
    assert "(an AI level is ai:expert)" in refused.json["detail"]


def test_challenging_oneself_or_without_a_key_is_refused(client):
    ann, ann_key = a_player(client, "Ann")
    assert problem(challenge(client, ann_key, ann))[0] == 400
    assert problem(challenge(client, {}, ann))[0] == 401


def test_a_bot_is_marked_in_its_profile_and_the_game_view(client):
    bot, bot_key = a_player(client, "Robo", bot=True)
    _, ann_key = a_player(client, "Ann")
    assert client.get("/me", headers=bot_key).json["bot"] is True
    assert client.get("/me", headers=ann_key).json["bot"] is False
    assert client.get(f"/players/{bot}").json["bot"] is True
    made = challenge(client, ann_key, bot).json
    assert made["to_bot"] is True and made["from_bot"] is False
    game_id = client.post(f"/challenges/{made['id']}/accept", headers=bot_key).json["game_id"]
    seats = client.get(f"/games/{game_id}").json["seats"]
    assert [seat["bot"] for seat in seats] == [False, True]


def rated_open_game(client, headers) -> str:
    created = client.post(
        "/games", json={"players": 2, "factions": "claim", "rated": True, "public": True}
    ).json
    joined = client.post(f"/games/{created['game_id']}/seats/0", json={}, headers=headers)
    assert joined.status_code == 201, joined.json
    return created["game_id"]


def test_a_bots_rated_game_is_refused_to_a_person_but_taken_by_a_bot(client):
    _, robo_key = a_player(client, "Robo", bot=True)
    _, other_key = a_player(client, "Other", bot=True)
    _, ann_key = a_player(client, "Ann")
    game_id = rated_open_game(client, robo_key)
    refused = client.post(f"/games/{game_id}/seats/1", json={}, headers=ann_key)
    assert problem(refused) == (409, "/problems/bot-rated-game")
    assert client.get(f"/games/{game_id}").json["status"] == "open"
    taken = client.post(f"/games/{game_id}/seats/1", json={}, headers=other_key)
    assert taken.status_code == 201, taken.json


def test_a_persons_rated_game_is_refused_to_a_bot(client):
    _, robo_key = a_player(client, "Robo", bot=True)
    _, ann_key = a_player(client, "Ann")
    game_id = rated_open_game(client, ann_key)
    refused = client.post(f"/games/{game_id}/seats/1", json={}, headers=robo_key)
    assert problem(refused) == (409, "/problems/bot-rated-game")


def test_a_person_may_challenge_a_bot_to_a_rated_game_and_not_the_other_way(client):
    robo, robo_key = a_player(client, "Robo", bot=True)
    ann, ann_key = a_player(client, "Ann")
    refused = challenge(client, robo_key, ann, rated=True)
    assert problem(refused) == (409, "/problems/bot-rated-game")
    assert challenge(client, robo_key, ann).status_code == 201  # unrated: fine
    made = challenge(client, ann_key, robo, rated=True, factions="claim").json
    accepted = client.post(f"/challenges/{made['id']}/accept", headers=robo_key)
    assert accepted.status_code == 200, accepted.json
    assert client.get(f"/games/{accepted.json['game_id']}").json["rated"] is True


def test_a_bot_on_the_leaderboard_is_marked_and_filtered(client, claim):
    from tests.api.test_player_stream import play  # which imports this module
    from tests.games.test_ratings import drawn_with_the_ai_levels

    robo, robo_key = a_player(client, "Robo", bot=True)
    ann, ann_key = a_player(client, "Ann")
    drawn_with_the_ai_levels(claim, ann, robo)  # established: their game moves them
    made = challenge(client, ann_key, robo, rated=True, factions="claim").json
    game_id = client.post(f"/challenges/{made['id']}/accept", headers=robo_key).json["game_id"]
    play(client, game_id, {0: ann_key, 1: robo_key})
    board = client.get("/ratings?players=2").json
    assert {(s["player_id"], s["bot"]) for s in board["standings"]} == {(ann, False), (robo, True)}
    only = client.get("/ratings?players=2&bots=only").json
    assert ([s["player_id"] for s in only["standings"]], only["total"]) == ([robo], 1)
    without = client.get("/ratings?players=2&bots=exclude").json
    assert ([s["player_id"] for s in without["standings"]], without["total"]) == ([ann], 1)
    assert client.get("/ratings?players=2&bots=maybe").status_code == 400
