"""The application on the test's Redis and key prefix, with a clock the test moves;
jobs enqueued only where a test asks for them (`claim_with_jobs`, `service`); a local
SMTP server that keeps what it is sent (`mailbox`)."""

from dataclasses import replace
from datetime import timedelta

import pytest

from service.api import create_app
from service.config import Config
from service.events import utc_now
from service.games import Claim
from tests.games.receiver import receiver  # noqa: F401 (a fixture of these tests)
from tests.mailbox import smtp_server
from workers import jobs

SIGNING_KEY = (
    "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="  # base64 of bytes 0 to 31: no key file written
)


class Clock:
    """A clock that stands still until the test moves it."""

    def __init__(self):
        self.now = utc_now()

    def __call__(self):
        return self.now

    def advance(self, seconds: float):
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def config(prefix, queue_url, sqlite_archive_url):
    return Config(
        prefix=prefix,
        archive_url=sqlite_archive_url,
        queue_url=queue_url,
        rate_limit="",
        webhook_allow="127.0.0.0/8",
        signing_key=SIGNING_KEY,
    )


@pytest.fixture
def claim(redis_client, config, clock) -> Claim:
    claim = Claim.connect(config, client=redis_client, clock=clock, jobs=False)
    yield claim
    claim.close()


@pytest.fixture
def claim_with_jobs(redis_client, config, clock, rq_cleanup) -> Claim:
    """The application with its RQ queues (named after the test's prefix)."""
    claim = Claim.connect(config, client=redis_client, clock=clock)
    yield claim
    claim.close()


@pytest.fixture
def service(redis_client, config, clock, rq_cleanup, monkeypatch):
    """`service(**settings)`: the application with these settings changed (webhooks
    may go to 127.0.0.1 only, no email, by default) and an API client of it; the jobs
    that `work` runs use it."""

    def make(**settings) -> tuple[Claim, object]:
        claim = Claim.connect(replace(config, **settings), client=redis_client, clock=clock)
        monkeypatch.setattr(jobs, "_claim", claim)
        return claim, create_app(claim=claim).test_client()

    return make


@pytest.fixture
def mailbox():
    with smtp_server() as box:
        yield box
