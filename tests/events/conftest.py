"""fakeredis for the unit tests of one projection module (docs/design.md: a real Redis for
anything that depends on blocking reads, persistence or concurrency; the Lua scripts
run in fakeredis through lupa)."""

import fakeredis
import pytest


@pytest.fixture
def fake_redis():
    client = fakeredis.FakeRedis()
    yield client
    client.close()
