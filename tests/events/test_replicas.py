"""Acknowledged means replicated when asked (`CLAIM_REPLICAS`): an append waits for its
replicas (WAIT on its own connection); without them it is refused as unavailable, and
the same events sent again once they are back are answered, written once. On a real
master and replica of the Redis that the embedded-Redis package ships, on free
loopback ports."""

from __future__ import annotations

import uuid

import pytest

from service.domain import legal_decisions
from service.events import DecisionMade, GameStore, StoreUnavailable
from service.runtime.local_cluster import RedisNode, until
from tests.events.factories import a_creation

AGAIN = uuid.UUID("00000000-0000-4000-8000-000000000003")  # the id of a move sent twice


def linked(replica: RedisNode) -> bool:
    return replica.client.info("replication").get("master_link_status") == "up"


def first_move(store: GameStore, game_id: str) -> DecisionMade:
    state = store.load(game_id).state
    return DecisionMade(state.to_act, legal_decisions(state)[0])


@pytest.fixture
def pair(tmp_path):
    master = RedisNode(tmp_path / "master").start()
    replica = RedisNode(tmp_path / "replica", "--replicaof", "127.0.0.1", str(master.port)).start()
    until(lambda: linked(replica), "the replica did not link up")
    yield master, replica
    for server in (replica, master):
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
    until(lambda: linked(replica), "the replica did not link up again")
    answer = store.append_once(game.id, [again], 2, ids=[AGAIN])
    assert (answer.version, answer.written) == (3, False)  # the same move: written once
    assert replica.client.xlen(stream) == 3
