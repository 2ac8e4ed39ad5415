"""The API app on the test's Redis and key prefix, rate limits off unless a test sets
them, and no jobs enqueued (tests/workers run workers)."""

import pytest

from service.api import create_app
from service.config import Config
from service.games import Claim
from tests.games.conftest import SIGNING_KEY


@pytest.fixture
def claim(redis_client, prefix, sqlite_archive_url) -> Claim:
    config = Config(
        prefix=prefix, rate_limit="", signing_key=SIGNING_KEY, archive_url=sqlite_archive_url
    )
    claim = Claim.connect(config, client=redis_client, jobs=False)
    yield claim
    claim.close()


@pytest.fixture
def app(claim):
    return create_app(claim=claim)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def store(claim):
    return claim.store
