"""Live clients (`/games/{id}/stream` and `/changes`, Server-Sent Events) and
rematches."""

import json
import threading
import time
from dataclasses import replace

import pytest

from service.api import create_app
from tests.api.factories import a_table, created
from tests.api.test_games import problem


def _events(response, count: int) -> list[dict]:
    """The first `count` events of a stream: each as its fields, comments as `comment`."""
    events, lines = [], []
    for chunk in response.response:
        for line in chunk.decode().split("\n"):
            if line:
                lines.append(line)
                continue
            if lines:
                event = {}
                for field in lines:
                    name, _, value = field.partition(": ")
                    event[name or "comment"] = value
                events.append(event)
                lines = []
            if len(events) == count:
                response.close()
                return events
    return events


def test_a_stream_sends_the_callers_view_then_each_new_version(client, app):
    table = a_table(client)
    response = client.get(
        f"/games/{table.game_id}/stream", headers=table.headers(0), buffered=False
    )
    assert response.mimetype == "text/event-stream"

    def move_later():
        time.sleep(0.2)
        with app.test_client() as other:
            table.client = other
            table.play(moves=1)

    mover = threading.Thread(target=move_later)
    mover.start()
    first, second = _events(response, 2)
    mover.join()
    assert (first["id"], first["event"]) == ("3", "view")
    assert json.loads(first["data"])["you"]["seat"] == 0
    view = json.loads(second["data"])
    assert (second["id"], view["version"]) == ("4", 4)
    assert len(view["you"]["hand"]) == 12  # seat 0 led the first card


def test_a_stream_resumes_with_every_version_after_the_last_event_id_in_order(client):
    table = a_table(client)
    table.play(moves=6)  # versions 4 to 9
    headers = {**table.headers(1), "Last-Event-ID": "5"}
    response = client.get(f"/games/{table.game_id}/stream", headers=headers, buffered=False)
    events = _events(response, 4)
    assert [(event["id"], event["event"]) for event in events] == [
        ("6", "view"),
        ("7", "view"),
        ("8", "view"),
        ("9", "view"),
    ]
    assert [json.loads(event["data"])["version"] for event in events] == [6, 7, 8, 9]
    assert all(json.loads(event["data"])["you"]["seat"] == 1 for event in events)


def test_a_stream_resumed_from_an_id_it_cannot_replay_sends_a_snapshot(client):
    table = a_table(client)
    headers = {**table.headers(0), "Last-Event-ID": "70"}  # beyond the game's version 3
    response = client.get(f"/games/{table.game_id}/stream", headers=headers, buffered=False)
    (event,) = _events(response, 1)
    assert (event["id"], event["event"]) == ("3", "snapshot")
    assert json.loads(event["data"]) == table.view(0)


def test_an_address_with_too_many_streams_open_is_refused(client, claim):
    table = a_table(client)
    capped = create_app(claim=replace(claim, config=replace(claim.config, watch_cap=1)))
    capped_client = capped.test_client()
    first = capped_client.get(f"/games/{table.game_id}/stream", buffered=False)
    assert next(iter(first.response)).startswith(b"id: 3")  # open, and holding its lease
    problem(capped_client.get(f"/games/{table.game_id}/stream"), "too-many-watches", 429)
    problem(capped_client.get(f"/games/{table.game_id}?after=3&wait=5"), "too-many-watches", 429)
    first.close()  # the lease is given back
    assert capped_client.get(f"/games/{table.game_id}?after=3&wait=0.01").status_code == 200


def test_a_stream_keeps_alive_and_ends_after_max_seconds(app, client):
    app.config["SSE_KEEPALIVE"] = 0.05
    table = a_table(client)
    response = client.get(f"/games/{table.game_id}/stream?max_seconds=1", buffered=False)
    events = _events(response, 100)
    assert events[0]["event"] == "view"
    assert json.loads(events[0]["data"])["you"] is None  # no token: the public view
    assert {"comment": "keep-alive"} in events[1:]
    assert all(event.get("event") != "view" for event in events[1:])


def test_the_stream_of_an_ended_game_sends_its_last_view_and_ends(client):
    table = a_table(client)
    client.post(f"/games/{table.game_id}/resign", headers=table.headers(0))
    events = _events(client.get(f"/games/{table.game_id}/stream", buffered=False), 10)
    assert len(events) == 1
    assert json.loads(events[0]["data"])["revealed"] is not None


def test_a_rematch_rotates_the_seats_and_moves_the_first_leader_on(client):
    table = a_table(client, 3, move_time_limit=600, timeout_policy="forfeit")
    client.post(f"/games/{table.game_id}/resign", headers=table.headers(2))
    offer = client.post(f"/games/{table.game_id}/rematch", headers=table.headers(0))
    assert offer.status_code == 201
    new = offer.json
    assert new["seat"] == 1
    old_view, new_view = table.view(), client.get(f"/games/{new['game_id']}").json
    assert old_view["rematch"] == new["game_id"]
    assert new_view["first_leader"] == 1
    assert new_view["factions"] == old_view["factions"]
    assert (new_view["move_time_limit"], new_view["timeout_policy"]) == (600, "forfeit")
    assert new_view["status"] == "open"
    assert new_view["commitment"] != old_view["commitment"]
    joined = client.post(
        f"/games/{new['game_id']}/seats/1", json={"invite": new["invite"], "name": "Ann"}
    )
    assert joined.status_code == 201


def test_every_player_of_the_old_game_gets_the_same_rematch_with_their_own_invite(client):
    table = a_table(client)
    client.post(f"/games/{table.game_id}/resign", headers=table.headers(1))
    offers = [
        client.post(f"/games/{table.game_id}/rematch", headers=table.headers(s)).json
        for s in (0, 1, 0)
    ]
    assert len({offer["game_id"] for offer in offers}) == 1
    assert [offer["seat"] for offer in offers] == [1, 0, 1]
    assert offers[0]["invite"] == offers[2]["invite"] != offers[1]["invite"]
    for offer in offers[:2]:
        response = client.post(
            f"/games/{offer['game_id']}/seats/{offer['seat']}",
            json={"invite": offer["invite"], "name": "x"},
        )
        assert response.status_code == 201
    assert client.get(f"/games/{offers[0]['game_id']}").json["status"] == "running"


def test_racing_rematch_calls_create_one_game(client, app, store):
    table = a_table(client)
    client.post(f"/games/{table.game_id}/resign", headers=table.headers(1))
    answers = []
    barrier = threading.Barrier(6)

    def ask(seat):
        with app.test_client() as own:
            barrier.wait()
            answers.append(
                own.post(f"/games/{table.game_id}/rematch", headers=table.headers(seat)).json
            )

    threads = [threading.Thread(target=ask, args=(n % 2,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({answer["game_id"] for answer in answers}) == 1
    assert store.version(answers[0]["game_id"]) == 1


def test_a_running_game_has_no_rematch_and_a_stranger_gets_none(client):
    table = a_table(client)
    problem(
        client.post(f"/games/{table.game_id}/rematch", headers=table.headers(0)),
        "game-not-over",
        409,
    )
    client.post(f"/games/{table.game_id}/resign", headers=table.headers(0))
    problem(client.post(f"/games/{table.game_id}/rematch"), "unauthorized", 401)


@pytest.mark.parametrize("junk", ["²", "9" * 5000, "-1", "abc"])
def test_a_last_event_id_that_is_no_version_starts_from_the_beginning(client, junk):
    table = a_table(client)
    headers = {**table.headers(1), "Last-Event-ID": junk}
    response = client.get(f"/games/{table.game_id}/stream", headers=headers, buffered=False)
    (event,) = _events(response, 1)
    assert (event["event"], event["id"]) == ("view", "3")


# /changes: which games changed, and the lobby


def _changes(client, query: str):
    response = client.get(f"/changes?{query}", buffered=False)
    assert response.status_code == 200, response.json
    return response


def _in_a_while(app, action):
    """Run `action(client)` with a client of its own once the test's stream waits."""

    def run():
        give_up = time.monotonic() + 10
        while app.extensions["claim"].watchers.count() == 0 and time.monotonic() < give_up:
            time.sleep(0.001)
        with app.test_client() as other:
            action(other)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_changes_tells_each_games_version_then_that_it_is_ready(client):
    first, second = a_table(client), a_table(client)
    second.play(moves=2)
    response = _changes(client, f"games={first.game_id},0123456789abcdef,{second.game_id}")
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    body = b""
    for chunk in response.response:
        body += chunk
        if body.endswith(b"event: ready\ndata: {}\n\n"):
            break
    response.close()
    assert (
        body
        == (
            f'event: game\ndata: {{"game_id":"{first.game_id}","version":3}}\n\n'
            f'event: game\ndata: {{"game_id":"{second.game_id}","version":5}}\n\n'
            "event: ready\ndata: {}\n\n"
        ).encode()
    )  # the game that does not exist: nothing


def test_changes_tells_a_new_version_of_a_game_watched(client, app):
    assert app.extensions["claim"].watchers.ready(10)  # no look again at its first subscription
    table = a_table(client)
    response = _changes(client, f"games={table.game_id}")

    def move(other):
        table.client = other
        table.play(moves=1)

    mover = _in_a_while(app, move)
    *_, told = _events(response, 3)
    mover.join()
    assert told["event"] == "game"
    assert json.loads(told["data"]) == {"game_id": table.game_id, "version": 4}


def test_changes_tells_when_the_lobby_changed_if_asked(client, app):
    response = _changes(client, "lobby=true")
    creator = _in_a_while(app, created)
    ready, told = _events(response, 2)
    creator.join()
    assert (ready["event"], told["event"], told["data"]) == ("ready", "lobby", "{}")


def test_changes_tells_a_finished_games_watchers_of_its_rematch(client, app):
    assert app.extensions["claim"].watchers.ready(10)  # no look again at its first subscription
    table = a_table(client)
    client.post(f"/games/{table.game_id}/resign", headers=table.headers(0))
    version = table.view()["version"]
    response = _changes(client, f"games={table.game_id}")
    asker = _in_a_while(
        app, lambda other: other.post(f"/games/{table.game_id}/rematch", headers=table.headers(1))
    )
    first, _, again = _events(response, 3)  # the version, ready, the version again
    asker.join()
    assert (
        first["data"]
        == again["data"]
        == json.dumps({"game_id": table.game_id, "version": version}, separators=(",", ":"))
    )
    assert table.view()["rematch"] is not None


def test_changes_keeps_alive_and_ends_after_max_seconds(app, client):
    app.config["SSE_KEEPALIVE"] = 0.05
    events = _events(_changes(client, "max_seconds=1"), 100)
    assert events[0] == {"event": "ready", "data": "{}"}
    assert len(events) > 1
    assert all(event == {"comment": "keep-alive"} for event in events[1:])


def test_changes_holds_a_watch_of_its_address_until_it_ends(client, claim):
    table = a_table(client)
    capped = create_app(claim=replace(claim, config=replace(claim.config, watch_cap=1)))
    capped_client = capped.test_client()
    first = _changes(capped_client, f"games={table.game_id}")
    assert next(iter(first.response)).startswith(b"event: game")  # open, holding its lease
    problem(capped_client.get("/changes?lobby=true"), "too-many-watches", 429)
    problem(capped_client.get(f"/games/{table.game_id}/stream"), "too-many-watches", 429)
    first.close()  # the lease is given back
    assert _changes(capped_client, "max_seconds=1").status_code == 200


@pytest.mark.parametrize(
    "query",
    [
        "games=",
        "games=ABCDEF",
        "games=abc,,def",
        "games=abc%0A",
        "games=" + ",".join(f"{n:016x}" for n in range(51)),
        "games=" + "a" * 41,
        "lobby=yes",
        "lobby=1",
        "max_seconds=0",
        "max_seconds=3601",
    ],
)
def test_changes_refuses_what_is_no_list_of_game_ids_or_no_flag(client, query):
    problem(client.get(f"/changes?{query}"), "validation-error", 400)


def test_changes_watches_fifty_games_listed_each_once(client):
    ids = [f"{n:016x}" for n in range(47)]
    response = _changes(client, "games=" + ",".join(ids + ids[:3]))
    (ready,) = _events(response, 1)  # none of them exists
    assert ready["event"] == "ready"
