"""Players, their keys and their inbox (`/players`, `/me`, `/me/games`)."""

import pytest

from service.events import digest
from tests.api.factories import created
from tests.api.test_games import problem


def register(client, name="Ann", **extra) -> dict:
    response = client.post("/players", json={"name": name, **extra})
    assert response.status_code == 201, response.json
    return response.json


def bearer(key: str) -> dict:
    return {"Authorization": f"Bearer {key}"}


def join(client, game: dict, seat: int, key: str | None = None, name: str | None = None):
    invite = next(i["invite"] for i in game["invites"] if i["seat"] == seat)
    body = {"invite": invite} | ({"name": name} if name else {})
    return client.post(
        f"/games/{game['game_id']}/seats/{seat}", json=body, headers=bearer(key) if key else {}
    )


def test_registering_answers_a_key_and_a_webhook_secret_once_and_keeps_the_key_hashed(
    client, store, redis_client, prefix
):
    player = register(client, email="ann@example.org", webhook_url="https://hooks.example.org/ann")
    assert (player["name"], player["email"]) == ("Ann", "ann@example.org")
    assert len(player["key"]) == 43 and len(player["webhook_secret"]) == 43
    stored = b"".join(
        value
        for key in redis_client.scan_iter(match=f"{prefix}:player*")
        for value in (
            redis_client.hvals(key) + redis_client.hkeys(key)
            if redis_client.type(key) == b"hash"
            else []
        )
    )
    assert player["key"].encode() not in stored
    assert digest(player["key"]).encode() in stored
    me = client.get("/me", headers=bearer(player["key"])).json
    assert "key" not in me and "webhook_secret" not in me
    assert me["player_id"] == player["player_id"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": "A", "email": "nope"}, "email"),
        ({"name": "A", "webhook_url": "ftp://x"}, "webhook_url"),
    ],
)
def test_registering_with_bad_fields_is_a_validation_error(client, body, field):
    assert field in problem(client.post("/players", json=body), "validation-error", 400)["errors"]


def test_me_needs_a_players_key(client):
    problem(client.get("/me"), "unauthorized", 401)
    problem(client.get("/me", headers=bearer("not-a-key")), "unauthorized", 401)


def test_a_player_changes_name_email_and_webhook(client):
    key = register(client, email="a@example.org")["key"]
    changed = client.patch(
        "/me",
        json={"name": "Anna", "email": None, "webhook_url": "http://localhost:9/x"},
        headers=bearer(key),
    ).json
    assert (changed["name"], changed["email"], changed["webhook_url"]) == (
        "Anna",
        None,
        "http://localhost:9/x",
    )
    assert client.get("/me", headers=bearer(key)).json == changed


def test_a_rotated_key_replaces_the_old_one(client):
    old = register(client)["key"]
    new = client.post("/me/key", headers=bearer(old)).json["key"]
    problem(client.get("/me", headers=bearer(old)), "unauthorized", 401)
    assert client.get("/me", headers=bearer(new)).status_code == 200


def test_a_seat_joined_with_a_player_key_is_the_players_and_the_key_opens_it(client, store):
    player = register(client, name="Ann")
    game = created(client)
    joined = join(client, game, 0, key=player["key"]).json
    assert store.load(game["game_id"]).seats[0].player == player["player_id"]
    join(client, game, 1, name="Bo")
    view = client.get(f"/games/{game['game_id']}", headers=bearer(player["key"])).json
    assert view["you"]["seat"] == 0
    assert view["seats"][0]["name"] == "Ann"
    seat_token_view = client.get(f"/games/{game['game_id']}", headers=bearer(joined["token"])).json
    assert seat_token_view == view
    log = client.get(f"/games/{game['game_id']}/events").json["events"]
    joins = [event["data"] for event in log if event["type"] == "SeatJoined"]
    assert [data.get("name") for data in joins] == ["Ann", "Bo"]
    assert all("player" not in data for data in joins)  # nobody can link her games


def test_a_player_key_moves_for_its_seat_only_in_its_own_games(client):
    ann = register(client, name="Ann")
    game, other = created(client), created(client)
    join(client, game, 0, key=ann["key"])
    join(client, game, 1, name="Bo")
    view = client.get(f"/games/{game['game_id']}", headers=bearer(ann["key"])).json
    assert view["table"]["to_act"] == 0  # the first leader
    response = client.post(
        f"/games/{game['game_id']}/moves",
        json={"move": view["you"]["legal"][0], "expected_version": view["version"]},
        headers={**bearer(ann["key"]), "Idempotency-Key": "a"},
    )
    assert response.status_code == 201
    assert response.json["view"]["table"]["trick"][0]["seat"] == 0
    problem(
        client.get(f"/games/{other['game_id']}", headers=bearer(ann["key"])), "unauthorized", 401
    )


def test_a_player_takes_one_seat_of_a_game(client):
    key = register(client)["key"]
    game = created(client)
    join(client, game, 0, key=key)
    problem(join(client, game, 1, key=key), "seat-unavailable", 409)


def test_the_inbox_lists_the_players_games_newest_first_with_whose_turn_it_is(client):
    key = register(client)["key"]
    first, second = created(client, move_time_limit=3600), created(client)
    for game in (first, second):
        join(client, game, 0, key=key)
        join(client, game, 1, name="Bo")
    inbox = client.get("/me/games", headers=bearer(key)).json
    assert [entry["game_id"] for entry in inbox["games"]] == [second["game_id"], first["game_id"]]
    entry = inbox["games"][1]
    view = client.get(f"/games/{first['game_id']}").json
    assert (entry["seat"], entry["status"], entry["version"]) == (0, "running", 3)
    assert entry["to_act"] == view["table"]["to_act"] == 0  # the first leader
    assert entry["your_turn"] is True
    assert entry["deadline_at"] == view["deadline_at"]
    assert 3500 < entry["seconds_left"] <= 3600
    assert entry["last"] == "Bo took seat 1"
    assert inbox["games"][0]["deadline_at"] is None


def test_the_inbox_filters_by_status_and_by_turn(client):
    key = register(client)["key"]
    waiting, running = created(client), created(client)
    join(client, waiting, 0, key=key)
    join(client, running, 0, key=key)
    join(client, running, 1, name="Bo")
    headers = bearer(key)
    open_games = client.get("/me/games?status=open", headers=headers).json["games"]
    assert [entry["game_id"] for entry in open_games] == [waiting["game_id"]]
    mine = client.get("/me/games?turn=mine", headers=headers).json["games"]
    assert [entry["game_id"] for entry in mine] == [running["game_id"]]  # seat 0 leads
    running_view = client.get(f"/games/{running['game_id']}", headers=headers).json
    client.post(
        f"/games/{running['game_id']}/moves",
        json={"move": running_view["you"]["legal"][0], "expected_version": 3},
        headers={**headers, "Idempotency-Key": "m"},
    )
    assert client.get("/me/games?turn=mine", headers=headers).json["games"] == []
