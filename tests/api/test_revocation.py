"""A revoked key ends what it opened: the player's streams, a game's stream and
long-poll, and `/changes`, once its device is removed (`DELETE /me/devices/{id}`) or
it is rotated (`POST /me/key`); the keys of the player's other devices go on."""

import threading
import time

from tests.api.factories import a_table
from tests.api.test_challenges import a_player, problem
from tests.api.test_player_stream import a_game

ENDS = 10  # seconds a test waits for a stream to end: far below the streams' own end
OPEN = 300  # seconds each stream would stay open by itself (`max_seconds`)


class Reader(threading.Thread):
    """A streaming GET read to its end on a thread (and a test client) of its own;
    made once the answer streams (`streams`), else once the request waits."""

    def __init__(self, app, path: str, headers: dict, streams: bool = True):
        super().__init__(daemon=True)
        self.app, self.path, self.headers = app, path, headers
        self.status: int | None = None
        self.body = b""
        self.streaming = threading.Event()
        watchers = app.extensions["claim"].watchers
        waiting = watchers.count()
        self.start()
        if streams:
            assert self.streaming.wait(10)
        else:
            assert _soon(lambda: watchers.count() > waiting)

    def run(self):
        with self.app.test_client() as own:
            response = own.get(self.path, headers=self.headers, buffered=False)
            self.status = response.status_code
            self.streaming.set()
            for chunk in response.response:
                self.body += chunk

    def ended(self) -> bool:
        """Whether the answer ended (waiting up to `ENDS` seconds for it)."""
        self.join(ENDS)
        return not self.is_alive()


def _soon(condition) -> bool:
    """Whether `condition()` holds within `ENDS` seconds."""
    until = time.monotonic() + ENDS
    while not condition():
        if time.monotonic() > until:
            return False
        time.sleep(0.01)
    return True


def a_second_device(client, key: dict) -> tuple[str, dict]:
    """Another device of the player whose key headers `key` are: its id and key headers."""
    made = client.post("/me/devices", json={"name": "phone"}, headers=key)
    assert made.status_code == 201, made.json
    return made.json["device_id"], {"Authorization": f"Bearer {made.json['key']}"}


def test_removing_a_device_ends_its_player_streams_and_frees_their_places(client, app, claim):
    _, ann_key = a_player(client, "Ann")
    device, stolen = a_second_device(client, ann_key)
    held = [Reader(app, f"/me/stream?max_seconds={OPEN}", stolen) for _ in range(3)]
    assert {reader.status for reader in held} == {200}
    assert claim.config.player_streams == 3
    assert problem(client.get("/me/stream", headers=ann_key))[0] == 429

    assert client.delete(f"/me/devices/{device}", headers=ann_key).status_code == 204

    assert all(reader.ended() for reader in held)
    assert b"event: state" in held[0].body  # it streamed until then
    mine = Reader(app, "/me/stream?max_seconds=1", ann_key)
    assert mine.status == 200 and mine.ended()


def test_a_rotated_key_ends_its_streams_and_another_devices_go_on(client, app):
    _, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    game_id = a_game(client, ann_key, bob, bob_key)
    _, phone = a_second_device(client, ann_key)
    olds = [
        Reader(app, f"/me/stream?max_seconds={OPEN}", ann_key),
        Reader(app, f"/games/{game_id}/stream?max_seconds={OPEN}", ann_key),
        Reader(app, f"/changes?games={game_id}&max_seconds={OPEN}", ann_key),
    ]
    phones = Reader(app, f"/games/{game_id}/stream?max_seconds={OPEN}", phone)

    rotated = client.post("/me/key", headers=ann_key)
    assert rotated.status_code == 201

    assert all(reader.ended() for reader in olds)
    assert b'"hand"' in olds[1].body  # the seat's view, until the key was rotated
    assert phones.is_alive()
    assert problem(client.get("/me/stream", headers=ann_key))[0] == 401
    new_key = {"Authorization": f"Bearer {rotated.json['key']}"}
    assert client.get(f"/games/{game_id}", headers=new_key).json["you"]["seat"] == 0
    phone_id = client.get("/me/devices", headers=phone).json["devices"][-1]["device_id"]
    assert client.delete(f"/me/devices/{phone_id}", headers=new_key).status_code == 204
    assert phones.ended()


def test_a_long_poll_of_a_revoked_key_is_refused(client, app):
    _, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    game_id = a_game(client, ann_key, bob, bob_key)
    device, phone = a_second_device(client, ann_key)
    version = client.get(f"/games/{game_id}").json["version"]
    poll = Reader(app, f"/games/{game_id}?after={version}&wait=60", phone, streams=False)

    assert client.delete(f"/me/devices/{device}", headers=ann_key).status_code == 204

    assert poll.ended()
    assert poll.status == 401
    assert b'"hand"' not in poll.body


def test_a_seat_tokens_stream_is_not_taken_for_a_revoked_key(client, app):
    """No player has a seat token as a key: the stream it opened goes on (nothing
    revokes a seat token)."""
    app.config["SSE_KEEPALIVE"] = 0.5
    table = a_table(client)
    reader = Reader(app, f"/games/{table.game_id}/stream?max_seconds=2", table.headers(0))
    assert reader.ended()
    assert reader.body.count(b"event: view") == 1 and b": keep-alive" in reader.body
