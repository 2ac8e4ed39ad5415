"""A player's stream (`GET /me/stream`): the situation first, then what concerns the
player as it happens; a reconnect misses nothing."""

import json
import re
import threading
import time
from unittest.mock import Mock

from service.events import StoreError
from service.games import fire_due_timers
from tests.api.test_challenges import a_player, challenge, problem, replace_clock
from tests.api.test_live import _events


def _stream(client, headers: dict, query: str = "max_seconds=30", **more):
    response = client.get(f"/me/stream?{query}", headers={**headers, **more}, buffered=False)
    assert response.status_code == 200, response.data
    return response


def _typed(events: list[dict]) -> list[tuple[str, dict]]:
    return [(e["event"], json.loads(e["data"])) for e in events if "event" in e]


def a_game(client, ann_key, bob, bob_key) -> str:
    """A running 2-player game of Ann (seat 0, to lead) and Bob, by a challenge."""
    made = challenge(client, ann_key, bob, factions="claim").json
    return client.post(f"/challenges/{made['id']}/accept", headers=bob_key).json["game_id"]


def play(client, game_id: str, keys: dict[int, dict], moves: int | None = None) -> dict:
    """Make `moves` first legal moves (None: to the end) with the players' keys."""
    view = client.get(f"/games/{game_id}").json
    while view["status"] == "running" and moves != 0:
        seat = view["table"]["to_act"]
        legal = client.get(f"/games/{game_id}/legal", headers=keys[seat]).json["legal"]
        moved = client.post(
            f"/games/{game_id}/moves",
            json={"move": legal[0], "expected_version": view["version"]},
            headers={**keys[seat], "Idempotency-Key": f"{view['version']}"},
        )
        assert moved.status_code == 201, moved.json
        view = client.get(f"/games/{game_id}").json
        moves = None if moves is None else moves - 1
    return view


class Listener(threading.Thread):
    """A player's stream read on a thread (and a client) of its own until an event of
    the kind `last` comes, or `max_seconds` pass."""

    def __init__(self, app, headers: dict, last: str, max_seconds: int = 30):
        super().__init__()
        self.app, self.headers, self.last = app, headers, last
        self.max_seconds = max_seconds
        self.events: list[tuple[str, dict]] = []
        self.started_streaming = threading.Event()
        self.start()
        assert self.started_streaming.wait(10)

    def run(self):
        with self.app.test_client() as own:
            response = _stream(own, self.headers, f"max_seconds={self.max_seconds}")
            self.started_streaming.set()
            for chunk in response.response:
                for event in _typed(_parse(chunk)):
                    self.events.append(event)
                    if event[0] == self.last:
                        response.close()
                        return

    def kinds(self) -> list[str]:
        self.join()
        return [kind for kind, _ in self.events]


def _parse(chunk: bytes) -> list[dict]:
    """The events of one chunk of Server-Sent Events (each comes whole in one)."""
    events = []
    for block in chunk.decode().split("\n\n"):
        fields = dict(line.partition(": ")[::2] for line in block.split("\n") if line)
        if fields:
            events.append(fields)
    return events


def test_the_first_event_states_every_running_game_and_open_challenge(client):
    ann, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    game_id = a_game(client, ann_key, bob, bob_key)
    waiting = challenge(client, bob_key, ann).json
    (kind, state), *_ = _typed(_events(_stream(client, ann_key), 1))
    assert kind == "state"
    assert state["games"] == [
        {
            "game_id": game_id,
            "seat": 0,
            "status": "running",
            "version": 3,
            "to_act": 0,
            "your_turn": True,
            "deadline": None,
        }
    ]
    assert [(c["id"], c["from"], c["status"]) for c in state["challenges"]] == [
        (waiting["id"], bob, "open")
    ]
    (_, bobs), *_ = _typed(_events(_stream(client, bob_key), 1))
    assert bobs["games"][0]["your_turn"] is False


def test_a_reconnect_states_a_move_made_meanwhile_and_a_game_ended_meanwhile(client, app):
    _ann, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    moved = a_game(client, ann_key, bob, bob_key)
    ended = a_game(client, ann_key, bob, bob_key)
    first = _events(_stream(client, bob_key), 1)[0]
    assert {g["game_id"]: g["your_turn"] for g in json.loads(first["data"])["games"]} == {
        moved: False,
        ended: False,
    }
    play(client, moved, {0: ann_key, 1: bob_key}, moves=1)  # while Bob is away
    client.post(f"/games/{ended}/resign", headers=ann_key)
    resumed = _stream(client, bob_key, "max_seconds=1", **{"Last-Event-ID": first["id"]})
    (kind, state), *missed = _typed(_events(resumed, 100))
    assert kind == "state"
    assert [(g["game_id"], g["version"], g["your_turn"]) for g in state["games"]] == [
        (moved, 4, True)
    ]
    finished = dict(missed)["game-finished"]  # told at least once (and a little more)
    assert (finished["game_id"], finished["you_won"]) == (ended, True)
    assert finished["result"]["reason"] == "resigned"


def test_challenge_accept_play_and_finish_are_seen_in_both_streams_in_order(client, app):
    _ann, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    anns = Listener(app, ann_key, "game-finished")
    bobs = Listener(app, bob_key, "game-finished")
    made = challenge(client, ann_key, bob, factions="claim").json
    time.sleep(0.2)
    game_id = client.post(f"/challenges/{made['id']}/accept", headers=bob_key).json["game_id"]
    play(client, game_id, {0: ann_key, 1: bob_key})
    seen = {"ann": anns.kinds() and anns.events, "bob": bobs.kinds() and bobs.events}

    def kinds(events):
        return [kind for kind, _ in events]

    assert kinds(seen["ann"])[:4] == ["state", "challenge-accepted", "game-started", "your-turn"]
    assert kinds(seen["bob"])[:4] == ["state", "challenge", "challenge-accepted", "game-started"]
    for name, seat in (("ann", 0), ("bob", 1)):
        turns = [data for kind, data in seen[name] if kind == "your-turn"]
        assert turns and all(t["game_id"] == game_id and t["seat"] == seat for t in turns)
        versions = [t["version"] for t in turns]
        assert versions == sorted(set(versions))  # in order, each once
        assert kinds(seen[name])[-1] == "game-finished"
        assert seen[name][-1][1]["game_id"] == game_id
    accepted = dict(seen["bob"])["challenge-accepted"]["challenge"]
    assert (accepted["id"], accepted["game_id"]) == (made["id"], game_id)


def test_an_accepted_challenge_is_told_once_its_game_is_made(client, app, claim, monkeypatch):
    """Accepting closes the challenge, then makes the game. A client told
    `challenge-accepted` opens the game with its key at once, and must find its seat
    there: after an accept cut short between the two, nothing is told yet (news that
    wakes the stream meanwhile is told alone); the accept again makes the game, and
    then both come."""
    ann, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    _carl, carl_key = a_player(client, "Carl")
    anns = Listener(app, ann_key, "game-started")
    made = challenge(client, ann_key, bob).json
    before = _events(_stream(client, ann_key, "max_seconds=1"), 1)[0]
    create = claim.store.create
    monkeypatch.setattr(claim.store, "create", Mock(side_effect=StoreError("Redis went away")))
    cut_short = client.post(f"/challenges/{made['id']}/accept", headers=bob_key)
    assert cut_short.status_code == 500, cut_short.json  # the error is logged
    assert client.get(f"/challenges/{made['id']}", headers=ann_key).json["status"] == "accepted"
    challenge(client, carl_key, ann)  # wakes Ann's stream while the game is not made
    resumed = _stream(client, ann_key, "max_seconds=1", **{"Last-Event-ID": before["id"]})
    assert [kind for kind, _ in _typed(_events(resumed, 100))] == ["state"]  # nothing missed
    monkeypatch.setattr(claim.store, "create", create)
    accepted = client.post(f"/challenges/{made['id']}/accept", headers=bob_key)
    game_id = accepted.json["game_id"]
    assert anns.kinds() == ["state", "challenge", "challenge-accepted", "game-started"]
    told = dict(anns.events)["challenge-accepted"]["challenge"]
    assert (told["id"], told["game_id"]) == (made["id"], game_id)
    assert client.get(f"/games/{game_id}", headers=ann_key).json["you"]["seat"] == 0


def test_a_declined_a_cancelled_and_an_expired_challenge_are_told_to_both(client, app, claim):
    _ann, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    anns = Listener(app, ann_key, "challenge-expired")
    bobs = Listener(app, bob_key, "challenge-expired")
    first = challenge(client, ann_key, bob).json
    client.post(f"/challenges/{first['id']}/decline", headers=bob_key)
    second = challenge(client, ann_key, bob).json
    client.post(f"/challenges/{second['id']}/cancel", headers=ann_key)
    challenge(client, ann_key, bob)
    fire_due_timers(replace_clock(claim, claim.config.challenge_expires + 1))
    wanted = ["challenge-declined", "challenge-cancelled", "challenge-expired"]
    told = {
        name: [kind for kind in listener.kinds() if kind in wanted]
        for name, listener in (("ann", anns), ("bob", bobs))
    }
    assert told == {"ann": wanted, "bob": wanted}


def test_a_rematch_is_offered_in_the_other_players_stream(client, app):
    _ann, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    game_id = a_game(client, ann_key, bob, bob_key)
    play(client, game_id, {0: ann_key, 1: bob_key})
    bobs = Listener(app, bob_key, "rematch-offered")
    rematch = client.post(f"/games/{game_id}/rematch", headers=ann_key).json
    events = bobs.kinds() and bobs.events
    assert events[1] == ("rematch-offered", {"game_id": game_id, "rematch_id": rematch["game_id"]})


def test_ndjson_lines_carry_the_type_and_keep_alive(client, app):
    app.config["SSE_KEEPALIVE"] = 0.05
    _, ann_key = a_player(client, "Ann")
    response = client.get(
        "/me/stream?max_seconds=1",
        headers={**ann_key, "Accept": "application/x-ndjson"},
        buffered=False,
    )
    assert response.mimetype == "application/x-ndjson"
    lines = [json.loads(line) for line in b"".join(response.response).splitlines()]
    assert lines[0]["type"] == "state" and lines[0]["games"] == [] and lines[0]["id"]
    assert {"type": "keepalive"} in lines[1:]


def test_a_player_holds_a_few_streams_at_most(client, app, claim):
    _, ann_key = a_player(client, "Ann")
    held = [Listener(app, ann_key, "never", max_seconds=2) for _ in range(3)]
    assert claim.config.player_streams == 3
    assert problem(client.get("/me/stream", headers=ann_key)) == (
        429,
        "/problems/too-many-streams",
    )
    for listener in held:
        listener.join()  # ended: their places are given back
    assert Listener(app, ann_key, "state").kinds() == ["state"]


def test_a_stream_without_a_player_key_is_refused(client):
    assert problem(client.get("/me/stream"))[0] == 401


def test_the_stream_never_carries_a_card(client, app):
    _ann, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    anns = Listener(app, ann_key, "never", max_seconds=3)
    play(client, a_game(client, ann_key, bob, bob_key), {0: ann_key, 1: bob_key}, moves=10)
    text = json.dumps(anns.kinds() and anns.events)
    assert "your-turn" in text
    assert not re.search(r"\b(GO|KN|UN|DO|DW)[0-9]\b", text)
