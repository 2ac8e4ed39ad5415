"""Live clients (`/games/{id}/stream`, Server-Sent Events) and rematches."""

import json
import threading
import time
from dataclasses import replace

import pytest

from service.api import create_app
from tests.api.factories import a_table
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
