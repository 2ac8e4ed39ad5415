"""The client's address behind trusted proxies (`CLAIM_TRUSTED_PROXIES`): believed
from a trusted proxy's `X-Forwarded-For`, never from anyone else's."""

from __future__ import annotations

import pytest

from service.api import create_app
from service.config import Config, trusted_networks
from service.games import Claim


@pytest.fixture
def limited(redis_client, prefix):
    """A test client of an app limited to 2 requests a minute per client address,
    behind a proxy at 127.0.0.1 when `trusting` is given."""
    claims = []

    def make(trusting: str = ""):
        config = Config(
            prefix=prefix,
            rate_limit="2/minute",
            trusted_proxies=trusted_networks("CLAIM_TRUSTED_PROXIES", trusting),
        )
        claims.append(Claim.connect(config, client=redis_client, jobs=False))
        return create_app(claim=claims[-1]).test_client()

    yield make
    for claim in claims:
        claim.close()


def remaining(client, forwarded_for: str | None, peer: str = "127.0.0.1") -> str:
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    answer = client.get("/healthz", headers=headers, environ_base={"REMOTE_ADDR": peer})
    return answer.headers["X-RateLimit-Remaining"]


def test_behind_a_trusted_proxy_each_client_has_its_own_limit(limited):
    client = limited("127.0.0.1, 10.0.0.0/8")
    assert remaining(client, "203.0.113.9") == "1"
    assert remaining(client, "198.51.100.4") == "1"  # another client: its own count
    assert remaining(client, "203.0.113.9, 10.1.1.1") == "0"  # through two proxies
    # what the client wrote itself, left of what the proxies wrote, is not believed
    assert remaining(client, "198.51.100.77, 198.51.100.4") == "0"


def test_forwarded_headers_from_anyone_else_are_ignored(limited):
    trusting = limited("10.0.0.0/8")
    assert remaining(trusting, "203.0.113.9", peer="192.0.2.1") == "1"
    assert remaining(trusting, "198.51.100.4", peer="192.0.2.1") == "0"  # one client
    nobody = limited()
    assert remaining(nobody, "203.0.113.10") == "1"
    assert remaining(nobody, "198.51.100.5") == "0"


def test_a_forged_hop_ends_what_is_believed(limited):
    client = limited("127.0.0.1")
    assert remaining(client, "203.0.113.9, <script>") == "1"  # counted as the proxy
    assert remaining(client, "unknown") == "0"
