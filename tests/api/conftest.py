"""The API app on the test's Redis and key prefix, rate limits off unless a test sets
them, and no jobs scheduled (tests/workers test those)."""

import pytest

from service.api import create_app


@pytest.fixture
def app(redis_client, prefix):
    config = {"REDIS": redis_client, "CLAIM_PREFIX": prefix, "CLAIM_RATE_LIMIT": "", "JOBS": False}
    return create_app(config)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def store(app):
    return app.extensions["claim"].store
