"""Players, their keys and devices, the seats they make their own, and their inbox
(`/players`, `/me`, `/me/devices`, `/me/seats`, `/me/games`)."""

import threading

import pytest
import yaml

from service.events import GameAborted, SeatRegistered, digest
from tests.api.factories import an_app, created
from tests.api.test_games import problem
from tests.api.test_parameters import CONTRACT


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


def test_me_needs_a_players_key_and_says_whether_one_came(client):
    assert "send your player key" in problem(client.get("/me"), "unauthorized", 401)["detail"]
    wrong = problem(client.get("/me", headers=bearer("not-a-key")), "unauthorized", 401)
    assert wrong["detail"].startswith("no player has this key")


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


def test_a_name_or_email_that_would_turn_a_line_of_an_email_changes_nothing(client):
    key = register(client, name="Eve", email="eve@example.org")["key"]
    for body in (
        {"name": "Eve\u2028\u2028The game: http://evil.example/login"},
        {"name": "\u202eevE"},
        {"email": "eve@example\u202e.org"},
    ):
        response = client.patch("/me", json=body, headers=bearer(key))
        errors = problem(response, "validation-error", 400)["errors"]
        assert set(errors) == set(body) and "U+" in errors[next(iter(body))][0]
    me = client.get("/me", headers=bearer(key)).json
    assert (me["name"], me["email"]) == ("Eve", "eve@example.org")
    body = {"name": "Eve", "email": "eve@example\u202e.org"}
    assert "email" in problem(client.post("/players", json=body), "validation-error", 400)["errors"]


@pytest.mark.parametrize("name", ["   ", "", "\t", "\u3000\u00a0", "\u3164", "\x07\x07"])
def test_a_name_that_shows_nothing_is_refused_on_register_and_update(client, name):
    problem(client.post("/players", json={"name": name}), "validation-error", 400)
    key = register(client, name="Eve")["key"]
    response = client.patch("/me", json={"name": name}, headers=bearer(key))
    assert set(problem(response, "validation-error", 400)["errors"]) == {"name"}
    assert client.get("/me", headers=bearer(key)).json["name"] == "Eve"


def test_the_profile_says_whether_the_address_is_confirmed(client):
    ann = register(client, email="ann@example.org")
    bo = register(client, name="Bo")
    assert ann["email_confirmed"] is False
    assert client.get("/me", headers=bearer(ann["key"])).json["email_confirmed"] is False
    assert client.get("/me", headers=bearer(bo["key"])).json["email_confirmed"] is False


@pytest.mark.parametrize(
    "name", ["\u0645\u06cc\u200c\u062e\u0648\u0627\u0645", "\U0001f469\u200d\U0001f4bb"]
)
def test_a_name_with_the_joiners_a_script_or_an_emoji_needs_is_kept_as_it_is(client, name):
    key = register(client, name=name)["key"]
    assert client.get("/me", headers=bearer(key)).json["name"] == name


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


def inbox_entry(client, key: str, game_id: str) -> dict:
    games = client.get("/me/games", headers=bearer(key)).json["games"]
    return next(entry for entry in games if entry["game_id"] == game_id)


def test_the_inbox_tells_the_seats_of_a_running_game_and_no_ending(client):
    key = register(client, name="Ann")["key"]
    game = created(client, seats=[{"kind": "human"}, {"kind": "ai", "level": "greedy"}])
    join(client, game, 0, key=key)
    entry = inbox_entry(client, key, game["game_id"])
    assert entry["seats"] == [
        {"seat": 0, "kind": "human", "level": None, "name": "Ann", "bot": False},
        {"seat": 1, "kind": "ai", "level": "greedy", "name": None, "bot": False},
    ]
    assert (entry["ending"], entry["rematch"], entry["you_won"]) == (None, None, None)


def test_the_inbox_tells_how_a_game_ended_who_won_and_its_rematch(client):
    ann, bo = register(client, name="Ann"), register(client, name="Bo")
    game = created(client)
    join(client, game, 0, key=ann["key"])
    bos_token = join(client, game, 1, key=bo["key"]).json["token"]
    client.post(f"/games/{game['game_id']}/resign", headers=bearer(bos_token))
    won, lost = (inbox_entry(client, p["key"], game["game_id"]) for p in (ann, bo))
    view = client.get(f"/games/{game['game_id']}").json
    ending = {"reason": "resigned", "seat": 1, "winners": [0], "winning_seats": [0]}
    assert won["ending"] == lost["ending"] == view["ending"] == ending
    assert (won["you_won"], lost["you_won"], won["rematch"]) == (True, False, None)
    rematch = client.post(f"/games/{game['game_id']}/rematch", headers=bearer(bos_token)).json
    assert inbox_entry(client, ann["key"], game["game_id"])["rematch"] == rematch["game_id"]


def test_nobody_won_an_aborted_game(client, store):
    key = register(client)["key"]
    game = created(client)
    join(client, game, 0, key=key)
    store.append(game["game_id"], [GameAborted("seats not taken in time")], 2)
    entry = inbox_entry(client, key, game["game_id"])
    assert entry["ending"] == {
        "reason": "aborted",
        "seat": None,
        "winners": [],
        "winning_seats": [],
    }
    assert (entry["status"], entry["you_won"]) == ("aborted", None)


# Devices: a key per device


def add_device(client, key: str, **body) -> dict:
    response = client.post("/me/devices", json=body, headers=bearer(key))
    assert response.status_code == 201, response.json
    return response.json


def listed(client, key: str) -> list[dict]:
    response = client.get("/me/devices", headers=bearer(key))
    assert response.status_code == 200, response.json
    return response.json["devices"]


def test_a_new_devices_key_opens_the_players_inbox_and_seats(client):
    ann = register(client)
    game = created(client)
    join(client, game, 0, key=ann["key"])
    join(client, game, 1, name="Bo")
    phone = add_device(client, ann["key"], name="phone")
    assert set(phone) == {"device_id", "name", "key", "created_at"}
    assert (phone["name"], len(phone["key"])) == ("phone", 43)
    assert client.get("/me", headers=bearer(phone["key"])).json["player_id"] == ann["player_id"]
    inbox = client.get("/me/games", headers=bearer(phone["key"])).json["games"]
    assert [entry["game_id"] for entry in inbox] == [game["game_id"]]
    view = client.get(f"/games/{game['game_id']}", headers=bearer(phone["key"])).json
    moved = client.post(
        f"/games/{game['game_id']}/moves",
        json={"move": view["you"]["legal"][0], "expected_version": view["version"]},
        headers={**bearer(phone["key"]), "Idempotency-Key": "phone"},
    )
    assert (view["you"]["seat"], moved.status_code) == (0, 201)


def test_the_devices_list_the_first_key_and_mark_the_one_asking(client):
    ann = register(client)
    phone = add_device(client, ann["key"], name="phone")
    first = listed(client, ann["key"])
    assert [(d["device_id"], d["name"], d["current"]) for d in first] == [
        ("first", "first key", True),
        (phone["device_id"], "phone", False),
    ]
    assert first[0]["created_at"] == ann["created_at"]
    assert first[1]["created_at"] == phone["created_at"]
    from_phone = listed(client, phone["key"])
    assert [d["current"] for d in from_phone] == [False, True]
    assert not any("key" in device for device in from_phone)


def test_a_device_without_a_name_is_called_another_device(client):
    key = register(client)["key"]
    assert add_device(client, key)["name"] == "another device"


def test_a_device_asked_for_without_a_body_is_as_the_contract_says(client):
    """The contract says the body is optional; a request without one (no JSON at all)
    gets a device named by default."""
    contract = yaml.safe_load(CONTRACT.read_text(encoding="utf-8"))
    assert contract["paths"]["/me/devices"]["post"]["requestBody"]["required"] is False
    key = register(client)["key"]
    response = client.post("/me/devices", headers=bearer(key))
    assert (response.status_code, response.json["name"]) == (201, "another device")


def test_a_player_holds_as_many_keys_as_the_server_allows_and_no_more(redis_client, prefix):
    """Issue 47: 300 keys made for one player. The key made at registration counts."""
    client = an_app(redis_client, prefix, device_cap=3).test_client()
    ann = register(client)
    phones = [add_device(client, ann["key"], name=f"phone {n}") for n in (1, 2)]
    refused = client.post("/me/devices", json={"name": "phone 3"}, headers=bearer(ann["key"]))
    assert "you hold 3 keys" in problem(refused, "too-many-devices", 409)["detail"]
    assert len(listed(client, ann["key"])) == 3
    client.delete(f"/me/devices/{phones[0]['device_id']}", headers=bearer(ann["key"]))
    assert add_device(client, ann["key"], name="phone 3")["name"] == "phone 3"


def test_twenty_keys_a_player_by_default(client):
    key = register(client)["key"]
    for _ in range(19):
        add_device(client, key)
    problem(client.post("/me/devices", json={}, headers=bearer(key)), "too-many-devices", 409)


def test_a_player_registered_before_devices_is_listed_with_the_key_they_have(
    client, redis_client, prefix
):
    """No migration: a player's hash as it was written before there were devices."""
    key = "a-key-of-an-old-player"
    redis_client.hset(
        f"{prefix}:player:0ld",
        mapping={
            "name": "Old",
            "email": "",
            "webhook_url": "",
            "webhook_secret": "s",
            "key_hash": digest(key),
            "created_at": "2026-01-01T00:00:00+00:00",
        },
    )
    redis_client.hset(f"{prefix}:player-keys", digest(key), "0ld")
    assert client.get("/me", headers=bearer(key)).json["name"] == "Old"
    [device] = listed(client, key)
    assert (device["device_id"], device["current"]) == ("first", True)


def test_a_device_key_is_stored_hashed_only(client, redis_client, prefix):
    ann = register(client)
    phone = add_device(client, ann["key"], name="phone")
    stored = repr(
        [redis_client.hgetall(f"{prefix}:player:{ann['player_id']}")]
        + [redis_client.hgetall(f"{prefix}:player-keys")]
    )
    assert phone["key"] not in stored and digest(phone["key"]) in stored


def test_a_removed_devices_key_opens_nothing_and_leaves_the_index(client, redis_client, prefix):
    ann = register(client)
    game = created(client)
    join(client, game, 0, key=ann["key"])
    phone = add_device(client, ann["key"], name="phone")
    removed = client.delete(f"/me/devices/{phone['device_id']}", headers=bearer(ann["key"]))
    assert (removed.status_code, removed.get_data()) == (204, b"")
    problem(client.get("/me", headers=bearer(phone["key"])), "unauthorized", 401)
    problem(client.get("/me/games", headers=bearer(phone["key"])), "unauthorized", 401)
    view = client.get(f"/games/{game['game_id']}", headers=bearer(phone["key"]))
    problem(view, "unauthorized", 401)
    assert not redis_client.hexists(f"{prefix}:player-keys", digest(phone["key"]))
    assert [device["device_id"] for device in listed(client, ann["key"])] == ["first"]


def test_the_first_key_may_be_removed_and_the_other_devices_go_on(client):
    ann = register(client)
    phone = add_device(client, ann["key"], name="phone")
    response = client.delete("/me/devices/first", headers=bearer(phone["key"]))
    assert response.status_code == 204
    problem(client.get("/me", headers=bearer(ann["key"])), "unauthorized", 401)
    assert [device["name"] for device in listed(client, phone["key"])] == ["phone"]


def test_a_device_may_remove_itself(client):
    ann = register(client)
    phone = add_device(client, ann["key"])
    response = client.delete(f"/me/devices/{phone['device_id']}", headers=bearer(phone["key"]))
    assert response.status_code == 204
    problem(client.get("/me/devices", headers=bearer(phone["key"])), "unauthorized", 401)


def test_removing_a_device_the_player_does_not_have_is_a_404(client):
    ann, bo = register(client), register(client, name="Bo")
    bos_phone = add_device(client, bo["key"], name="phone")
    for device_id in ("nonesuch", bos_phone["device_id"]):
        response = client.delete(f"/me/devices/{device_id}", headers=bearer(ann["key"]))
        problem(response, "unknown-device", 404)
    assert client.get("/me", headers=bearer(bos_phone["key"])).status_code == 200
    path = f"/me/devices/{bos_phone['device_id']}"
    assert client.delete(path, headers=bearer(bo["key"])).status_code == 204
    problem(client.delete(path, headers=bearer(bo["key"])), "unknown-device", 404)


def test_rotating_replaces_the_key_of_the_device_asking_only(client):
    ann = register(client)
    phone = add_device(client, ann["key"], name="phone")
    new = client.post("/me/key", headers=bearer(phone["key"])).json["key"]
    problem(client.get("/me", headers=bearer(phone["key"])), "unauthorized", 401)
    assert client.get("/me", headers=bearer(new)).status_code == 200
    assert client.get("/me", headers=bearer(ann["key"])).status_code == 200
    devices = listed(client, new)
    assert [(d["device_id"], d["current"]) for d in devices] == [
        ("first", False),
        (phone["device_id"], True),
    ]


@pytest.mark.parametrize("name", ["", "x" * 65, "a\nb", "a\u2029b", "\u202eb", 7])
def test_a_device_name_of_1_to_64_characters_or_none(client, name):
    key = register(client)["key"]
    response = client.post("/me/devices", json={"name": name}, headers=bearer(key))
    assert "name" in problem(response, "validation-error", 400)["errors"]
    assert [device["device_id"] for device in listed(client, key)] == ["first"]


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/me/devices"), ("GET", "/me/devices"), ("DELETE", "/me/devices/first")],
)
def test_the_devices_need_a_players_key(client, method, path):
    problem(client.open(path, method=method, json={}), "unauthorized", 401)
    problem(client.open(path, method=method, json={}, headers=bearer("nope")), "unauthorized", 401)


# A seat taken without a key becomes a player's


def a_guests_seat(client, seat: int = 1) -> tuple[dict, str]:
    """A running game of two people, `seat` taken without a key: the game and its token."""
    game = created(client)
    tokens = {n: join(client, game, n, name=f"p{n}").json["token"] for n in (0, 1)}
    return game, tokens[seat]


def register_seat(client, key: str, game_id: str, seat: int, token: str):
    body = {"game_id": game_id, "seat": seat, "token": token}
    return client.post("/me/seats", json=body, headers=bearer(key))


def test_a_seat_taken_without_a_key_becomes_the_players_and_its_token_still_works(client):
    game, token = a_guests_seat(client)
    ann = register(client)
    response = register_seat(client, ann["key"], game["game_id"], 1, token)
    assert (response.status_code, response.json) == (200, {"game_id": game["game_id"], "seat": 1})
    inbox = client.get("/me/games", headers=bearer(ann["key"])).json["games"]
    assert [(entry["game_id"], entry["seat"]) for entry in inbox] == [(game["game_id"], 1)]
    assert inbox[0]["last"] == "seat 1 became a registered player's"
    by_key = client.get(f"/games/{game['game_id']}", headers=bearer(ann["key"])).json
    by_token = client.get(f"/games/{game['game_id']}", headers=bearer(token)).json
    assert by_key == by_token and by_key["you"]["seat"] == 1
    log = client.get(f"/games/{game['game_id']}/events").json["events"]
    assert (log[-1]["type"], log[-1]["data"]) == ("SeatRegistered", {"seat": 1})  # no player


def test_racing_registrations_of_one_seat_give_it_to_exactly_one_player(client, app, store):
    game, token = a_guests_seat(client)
    keys = [register(client, name=f"p{n}")["key"] for n in range(6)]
    statuses = []

    def register_it(key: str):
        with app.test_client() as own:
            statuses.append(register_seat(own, key, game["game_id"], 1, token).status_code)

    threads = [threading.Thread(target=register_it, args=(key,)) for key in keys]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] + [409] * 5
    events = [record.event for record in store.read(game["game_id"])]
    assert sum(isinstance(event, SeatRegistered) for event in events) == 1


def test_a_seat_registered_moves_with_the_players_key_through_another_api_process(
    client, redis_client, prefix
):
    game, token = a_guests_seat(client, seat=0)  # seat 0 leads
    other = an_app(redis_client, prefix).test_client()  # a process with a fold of its own
    view = other.get(f"/games/{game['game_id']}", headers=bearer(token)).json
    key = register(client)["key"]
    register_seat(client, key, game["game_id"], 0, token)
    moved = other.post(
        f"/games/{game['game_id']}/moves",
        json={"move": view["you"]["legal"][0], "expected_version": view["version"] + 1},
        headers={**bearer(key), "Idempotency-Key": "after-registering"},
    )
    assert moved.status_code == 201, moved.json


def test_registering_a_seat_again_for_the_same_player_changes_nothing(client, store):
    game, token = a_guests_seat(client)
    key = register(client)["key"]
    register_seat(client, key, game["game_id"], 1, token)
    version = store.version(game["game_id"])
    response = register_seat(client, key, game["game_id"], 1, token)
    assert (response.status_code, store.version(game["game_id"])) == (200, version)


def test_a_seat_of_an_open_game_can_be_registered_and_its_replay_starts_at_the_deal(client):
    game = created(client)
    token = join(client, game, 0, name="Ann").json["token"]
    key = register(client)["key"]
    assert register_seat(client, key, game["game_id"], 0, token).status_code == 200
    join(client, game, 1, name="Bo")
    deal = client.get(f"/games/{game['game_id']}/replay/0", headers=bearer(key)).json
    assert (deal["version"], deal["last_step"], deal["view"]["you"]["seat"]) == (4, 0, 0)


@pytest.mark.parametrize(("seat", "which"), [(1, "seat 0's"), (0, "made up"), (3, "seat 1's")])
def test_a_token_that_does_not_open_the_seat_is_refused(client, store, seat, which):
    game = created(client)
    tokens = {n: join(client, game, n, name=f"p{n}").json["token"] for n in (0, 1)}
    token = {"seat 0's": tokens[0], "seat 1's": tokens[1], "made up": "not-a-token"}[which]
    key = register(client)["key"]
    problem(register_seat(client, key, game["game_id"], seat, token), "wrong-token", 403)
    assert store.version(game["game_id"]) == 3


def test_a_seat_taken_with_another_players_key_is_unavailable(client):
    ann, bo = register(client), register(client, name="Bo")
    game = created(client)
    token = join(client, game, 0, key=ann["key"]).json["token"]
    response = register_seat(client, bo["key"], game["game_id"], 0, token)
    problem(response, "seat-unavailable", 409)
    assert register_seat(client, ann["key"], game["game_id"], 0, token).status_code == 200


def test_a_player_holding_a_seat_of_the_game_cannot_register_another(client):
    ann = register(client)
    game = created(client)
    join(client, game, 0, key=ann["key"])
    token = join(client, game, 1, name="Bo").json["token"]
    problem(register_seat(client, ann["key"], game["game_id"], 1, token), "seat-unavailable", 409)


def test_a_seat_of_a_game_over_cannot_be_registered(client):
    game, token = a_guests_seat(client)
    client.post(f"/games/{game['game_id']}/resign", headers=bearer(token))
    key = register(client)["key"]
    problem(register_seat(client, key, game["game_id"], 1, token), "game-over", 409)


@pytest.mark.parametrize("game_id", ["0123456789abcdef", "NOT-AN-ID"])
def test_registering_a_seat_of_no_game_is_a_404(client, game_id):
    key = register(client)["key"]
    problem(register_seat(client, key, game_id, 0, "a-token"), "unknown-game", 404)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"seat": 0, "token": "t"}, "game_id"),
        ({"game_id": "g", "seat": 4, "token": "t"}, "seat"),
        ({"game_id": "g", "seat": "0", "token": "t"}, "seat"),
        ({"game_id": "g", "seat": 0}, "token"),
        ({"game_id": "g", "seat": 0, "token": ""}, "token"),
    ],
)
def test_registering_a_seat_with_bad_fields_is_a_validation_error(client, body, field):
    key = register(client)["key"]
    response = client.post("/me/seats", json=body, headers=bearer(key))
    assert field in problem(response, "validation-error", 400)["errors"]


def test_registering_a_seat_needs_a_players_key(client):
    game, token = a_guests_seat(client)
    body = {"game_id": game["game_id"], "seat": 1, "token": token}
    problem(client.post("/me/seats", json=body), "unauthorized", 401)
    problem(client.post("/me/seats", json=body, headers=bearer(token)), "unauthorized", 401)
