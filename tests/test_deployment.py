"""The deployment of docs/deployment.md, tried on one machine: two API hosts (`claim
serve` with `REDIS_URL` naming a node of the local Redis Cluster) and two `claim
worker`s, the job queues on a Redis of their own (`CLAIM_QUEUE_URL`). Both hosts are
ready and count the workers; a person plays a whole game against an AI, each request
to either host at random, the AI's turns made by the workers; a worker moves the
finished game to the archive the hosts share, and both answer it from there alike."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass

import pytest
import redis
import requests

from service.runtime.local_cluster import until
from tests.rq_keys import delete_rq_keys
from tests.runtime.test_serve import ROOT, start, stop, wait_for_health

PATIENCE = 120  # seconds for the game to end, or the workers to be seen


@dataclass
class Deployment:
    hosts: list[str]  # the API hosts' URLs
    cluster: str  # the games' Redis
    prefix: str


@pytest.fixture
def deployment(cluster_url, single_redis_url, tmp_path):
    """Two API hosts and two workers on the cluster, once both hosts answer."""
    prefix = f"test-deploy-{uuid.uuid4().hex[:12]}"
    env = {name: value for name, value in os.environ.items() if not name.startswith("CLAIM_")}
    env.update(
        REDIS_URL=cluster_url,
        CLAIM_QUEUE_URL=single_redis_url,
        CLAIM_PREFIX=prefix,
        CLAIM_DATA_DIR=str(tmp_path),
        CLAIM_REPLICAS="1",
        CLAIM_ARCHIVE_URL=f"sqlite:///{tmp_path / 'archive.sqlite3'}",  # one, for every host
        CLAIM_ARCHIVE_AFTER="0",
    )
    processes, hosts = [], []
    try:
        for n in range(2):
            process, port = start(env, tmp_path / f"api-{n}.log")
            processes.append(process)
            hosts.append(f"http://127.0.0.1:{port}")
        for n in range(2):
            with (tmp_path / f"worker-{n}.log").open("wb") as log:
                command = [sys.executable, "-m", "service.cli", "worker"]
                worker = subprocess.Popen(
                    command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                    start_new_session=True,
                )  # fmt: skip
                processes.append(worker)
        for n, host in enumerate(hosts):
            wait_for_health(host, processes[n], tmp_path / f"api-{n}.log")
        yield Deployment(hosts, cluster_url, prefix)
    finally:
        for process in processes:
            stop(process)
        games = redis.RedisCluster.from_url(cluster_url)
        if keys := list(games.scan_iter(match=f"{prefix}:*")):
            games.delete(*keys)
        games.close()
        with redis.Redis.from_url(single_redis_url) as queues:
            delete_rq_keys(queues, prefix)


def readiness(host: str, workers: int) -> dict | None:
    """The host's readiness once it counts `workers` workers alive, playing the expert."""
    ready = requests.get(f"{host}/readyz", timeout=5).json()
    return ready if (ready.get("workers"), ready.get("expert")) == (workers, "ready") else None


def test_two_api_hosts_and_two_workers_on_a_cluster_play_a_game(deployment):
    rng = random.Random(3)
    for host in deployment.hosts:
        ready = until(lambda host=host: readiness(host, workers=2), "no heartbeats seen", PATIENCE)
        assert ready == {
            "status": "ready",
            "store": "ok",
            "queues": "ok",
            "workers": 2,
            "expert": "ready",
        }
    seats = [{"kind": "human"}, {"kind": "ai", "level": "greedy"}]
    game = requests.post(f"{deployment.hosts[0]}/games", json={"players": 2, "seats": seats}).json()
    invite = game["invites"][0]["invite"]
    path = f"/games/{game['game_id']}"
    joined = requests.post(
        f"{deployment.hosts[1]}{path}/seats/0", json={"invite": invite, "name": "Ann"}, timeout=10
    )
    assert joined.status_code == 201, joined.text
    auth = {"Authorization": f"Bearer {joined.json()['token']}"}
    view = joined.json()["view"]
    give_up = time.monotonic() + PATIENCE
    while view["status"] == "running":
        assert time.monotonic() < give_up, "the game stopped moving"
        host = rng.choice(deployment.hosts)
        if view["table"]["to_act"] != 0:  # the AI's turn: a worker makes it
            url = f"{host}{path}?after={view['version']}&wait=5"
            view = requests.get(url, headers=auth, timeout=30).json()
            continue
        body = {"move": rng.choice(view["you"]["legal"]), "expected_version": view["version"]}
        headers = {**auth, "Idempotency-Key": uuid.uuid4().hex}
        moved = requests.post(f"{host}{path}/moves", json=body, headers=headers, timeout=30)
        assert moved.status_code == 201, moved.text
        view = moved.json()["view"]
    assert view["status"] == "finished"
    other = requests.get(f"{deployment.hosts[1]}{path}", timeout=10).json()  # the other host
    assert other["version"] == view["version"] and other["status"] == "finished"
    exported = requests.get(f"{deployment.hosts[0]}{path}/export", timeout=10).content
    games = redis.RedisCluster.from_url(deployment.cluster)
    stream = f"{deployment.prefix}:game:{{{game['game_id']}}}:events"
    until(lambda: not games.exists(stream), "the game was not moved to the archive", PATIENCE)
    games.close()
    for host in deployment.hosts:  # from the archive now, every host alike
        assert requests.get(f"{host}{path}/export", timeout=10).content == exported
        archived = requests.get(f"{host}{path}", headers=auth, timeout=10).json()
        assert archived["version"] == view["version"] and archived["you"] == view["you"]
