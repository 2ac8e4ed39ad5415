"""A long-poll or live stream whose client left ends, and gives its place back, without
waiting for its time to run out (`service/api/client_socket.py`): on a real
`claim serve`, whose gevent workers hand the app the client's socket."""

from __future__ import annotations

import os
import socket
import time
import uuid

import pytest
import redis
import requests

from service.events import WatchLeases, utc_now
from tests.runtime.test_serve import delete_keys, start, stop, wait_for_health

# Seconds a test waits for a place to come back before it fails. Without telling that
# the client left, a long-poll holds its place its whole `wait` (60 s here), and a
# stream until writing its second keep-alive fails (15 s apart).
PATIENCE = 12
ADDRESS = "127.0.0.1"


@pytest.fixture(scope="module")
def server(single_redis_url, tmp_path_factory):
    """`claim serve` on the test Redis: its URL, and the leases of its clients."""
    prefix = f"test-serve-{uuid.uuid4().hex[:12]}"
    unset = ("REDIS_URL", "CLAIM_PREFIX", "CLAIM_DATA_DIR", "CLAIM_RATE_LIMIT")
    env = {name: value for name, value in os.environ.items() if name not in unset}
    env.update(REDIS_URL=single_redis_url, CLAIM_PREFIX=prefix, CLAIM_RATE_LIMIT="")
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    process, port = start(env, log)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for_health(url, process, log)
        yield url, WatchLeases(redis.Redis.from_url(single_redis_url), prefix, utc_now)
    finally:
        stop(process)
        delete_keys(single_redis_url, prefix)


def _held(leases: WatchLeases, count: int) -> None:
    """Wait until the test's address holds `count` leases."""
    give_up = time.monotonic() + PATIENCE
    while leases.held(ADDRESS) != count:
        assert time.monotonic() < give_up, f"{leases.held(ADDRESS)} places held, not {count}"
        time.sleep(0.05)


@pytest.mark.parametrize(
    "path",
    [
        "/games/{game}/stream?max_seconds=3600",
        "/games/{game}?after=1&wait=60",
        "/changes?games={game}",
    ],
)
def test_a_watcher_whose_client_left_gives_its_place_back(server, path):
    url, leases = server
    game = requests.post(f"{url}/games", json={"players": 2}, timeout=10).json()["game_id"]
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(f"GET {path.format(game=game)} HTTP/1.1\r\nHost: claim\r\n\r\n".encode())
        _held(leases, 1)
    _held(leases, 0)
