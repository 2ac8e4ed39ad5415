"""The client's address behind trusted proxies (`CLAIM_TRUSTED_PROXIES`).

A proxy in front of the API appends the address it was reached from to the request's
`X-Forwarded-For`. The header is believed only as far as trusted proxies wrote it:
read from its end, each address written by a trusted proxy is taken, up to the first
that is not itself a trusted proxy: that is the client. A request that did not come
from a trusted proxy keeps the address it came from, whatever its headers say.
Everything that goes by the client's address (rate limits, watch slots, the access
log) then sees the client's.
"""

from __future__ import annotations

import ipaddress

from service.config import Config


def client_address(peer: str, forwarded_for: str | None, config: Config) -> str:
    """The client's address of a request that came from `peer` with `forwarded_for`.

    >>> from service.config import trusted_networks
    >>> config = Config(trusted_proxies=trusted_networks("V", "10.0.0.0/8"))
    >>> client_address("10.0.0.2", "6.6.6.6, 203.0.113.9, 10.0.0.7", config)
    '203.0.113.9'
    >>> client_address("198.51.100.4", "203.0.113.9", config)  # not from a proxy
    '198.51.100.4'
    >>> client_address("10.0.0.2", "not an address", config)
    '10.0.0.2'
    """
    address = peer
    if not forwarded_for:
        return address
    hops = [hop.strip() for hop in forwarded_for.split(",")]
    while config.is_trusted_proxy(address) and hops:
        hop = hops.pop()
        if not _is_address(hop):
            break  # not written by a trusted proxy: believe no more of the header
        address = hop
    return address


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


class TrustedProxies:
    """WSGI middleware: `REMOTE_ADDR` made the client's address (`client_address`)."""

    def __init__(self, app, config: Config):
        self.app = app
        self.config = config

    def __call__(self, environ, start_response):
        environ["REMOTE_ADDR"] = client_address(
            environ.get("REMOTE_ADDR", ""), environ.get("HTTP_X_FORWARDED_FOR"), self.config
        )
        return self.app(environ, start_response)
