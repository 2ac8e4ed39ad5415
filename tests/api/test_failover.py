"""A master of the cluster killed (`kill -9`) during play, with every move acknowledged
only once on a replica (`CLAIM_REPLICAS=1`): no acknowledged move is lost; a move the
master stored while its replica was stalled is answered 503, lost with the master, and
re-sent with its idempotency key after the failover it is applied once; the games on
the other masters never stop. The master killed is the one of the channel of changes
too: the API's listener subscribes again, to the replica that took over, and a waiter
hears of a move after the failover. On a cluster of its own: 3 masters, 1 replica each.

The replica that took over has no replica of its own until the old master is back (as
its replica): until then its games' moves are stored but not acknowledged (503), as
`CLAIM_REPLICAS` asks."""

from __future__ import annotations

import random
import time

import pytest
import redis

from service.api import create_app
from service.config import Config
from service.games import Claim
from service.runtime.local_cluster import LocalCluster, until
from service.runtime.processes import ending_with_this_process
from tests.api.factories import Table, a_table

ELSEWHERE = 6  # games on the other masters
CHANNEL = "failover:changes"
FAILOVER = 30  # seconds a replica may take to take over


@pytest.fixture
def cluster(tmp_path):
    ending = ending_with_this_process()
    with LocalCluster(tmp_path, preexec_fn=ending, node_timeout_ms=1000) as cluster:
        yield cluster


@pytest.fixture
def claim(cluster):
    config = Config(redis_url=cluster.url, prefix="failover", rate_limit="", replicas=1)
    claim = Claim.connect(config, jobs=False)
    yield claim
    claim.close()


@pytest.fixture
def client(claim):
    return create_app(claim=claim).test_client()


def stream(table: Table) -> str:
    return f"failover:game:{{{table.game_id}}}:events"


def first_legal(table: Table) -> tuple[int, str, int]:
    """The seat to act, its first legal move and the game's version."""
    view = table.view()
    seat = view["table"]["to_act"]
    return seat, table.view(seat)["you"]["legal"][0], view["version"]


def test_a_master_killed_loses_no_acknowledged_move_and_stops_no_other_game(cluster, claim, client):
    victim = cluster.master_of(CHANNEL)
    hit, elsewhere = None, []
    while hit is None or len(elsewhere) < ELSEWHERE:  # a game on the victim, and others
        table = a_table(client)
        if cluster.master_of(stream(table)) is victim:
            hit = hit or table
        elif len(elsewhere) < ELSEWHERE:
            elsewhere.append(table)
    tables = [hit, *elsewhere]
    for table in tables:
        table.play(moves=3)
    assert claim.watchers.ready(10)
    acknowledged = {t.game_id: t.view()["version"] for t in tables}
    resend = first_legal(hit)

    replica = cluster.replica_of(victim)
    replica.pause()  # the move below is stored on the master, never replicated
    first = hit.post_move(*resend, key="sent-as-the-master-died")
    assert first.status_code == 503 and first.json["type"].endswith("/store-unavailable")
    assert victim.client.xlen(stream(hit)) == acknowledged[hit.game_id] + 1  # stored
    victim.kill()
    replica.resume()  # without that move: it was never acknowledged
    rng, during = random.Random(1), 0
    give_up = time.monotonic() + FAILOVER
    while not cluster.healthy():  # the other masters' games go on meanwhile
        assert time.monotonic() < give_up, "no replica took over"
        table = rng.choice(elsewhere)
        if table.view()["status"] == "running":
            seat, move, version = first_legal(table)
            response = table.post_move(seat, move, version, key=f"elsewhere-{version}")
            assert response.status_code == 201, response.json
            acknowledged[table.game_id] = version + 1
            during += 1
        time.sleep(0.02)
    assert during > 0, "no move was made while the master was down"

    victim.start()  # back, as the replica of the replica that took over
    until(cluster.healthy, "the old master did not come back as a replica")
    again = hit.post_move(*resend, key="sent-as-the-master-died")
    give_up = time.monotonic() + FAILOVER
    while again.status_code == 503:  # until this client has learnt the new master
        assert time.monotonic() < give_up, again.json
        time.sleep(0.1)
        again = hit.post_move(*resend, key="sent-as-the-master-died")
    assert again.status_code == 201, again.json
    acknowledged[hit.game_id] += 1
    listened = elsewhere[0]
    with claim.watchers.watching(listened.game_id) as waiter:
        assert claim.watchers.ready(FAILOVER), "the listener did not subscribe again"
        while waiter.wait(0.2):  # what it heard before
            pass
        seat, move, version = first_legal(listened)
        assert listened.post_move(seat, move, version, key="heard").status_code == 201
        acknowledged[listened.game_id] = version + 1
        assert waiter.wait(10) and waiter.game().version == version + 1
    twice = hit.post_move(*resend, key="sent-as-the-master-died")
    assert (twice.status_code, twice.json) == (201, again.json)  # answered, not applied
    games = redis.RedisCluster.from_url(cluster.url)
    for table in tables:
        ids = [fields[b"id"] for _, fields in games.xrange(stream(table))]
        assert len(ids) == acknowledged[table.game_id], "an acknowledged move lost, or more"
        assert len(ids) == len(set(ids)), "an event written twice"
    games.close()
    for table in tables:
        table.play(moves=2)  # every game goes on, the failed master's too
