"""Redis for the tests and doctests: `REDIS_URL` if set, else an embedded Redis that
this test session starts and stops (`service.embedded_redis`). Each test gets its own key
prefix and its keys are deleted after it."""

from __future__ import annotations

import uuid

import pytest
import redis

from service.config import Config
from service.embedded_redis import EmbeddedRedis
from service.events import GameStore
from tests.rq_keys import delete_rq_keys


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory) -> str:
    url = Config.from_env().redis_url
    if url:
        yield url
        return
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), fsync="everysec")
    server.start()
    yield server.url
    server.stop()


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


@pytest.fixture
def new_store(redis_client, prefix):
    """Another store on the test's Redis and prefix, with a fold cache of its own:
    `new_store()`, or `new_store(clock=...)`."""
    return lambda **options: GameStore(redis_client, prefix, **options)


@pytest.fixture
def rq_cleanup(redis_client, prefix):
    """Delete RQ's keys of the test's queues (named after its prefix) afterwards: its
    queues, jobs and their results, and its workers."""
    yield
    delete_rq_keys(redis_client, prefix)


@pytest.fixture(autouse=True)
def _doctest_store(request, doctest_namespace):
    """Doctests that need Redis find a `store` with a prefix of their own."""
    if isinstance(request.node, pytest.DoctestItem):
        doctest_namespace["store"] = request.getfixturevalue("store")
