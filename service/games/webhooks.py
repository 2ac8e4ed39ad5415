"""Webhook requests: the signature a receiver checks, the operator's allowlist of
destinations (`WEBHOOK_ALLOW`), and one POST that follows no redirect.

The signature is `Claim-Signature: t=<unix seconds>,v1=<hex>` with the hex of
HMAC-SHA256(secret, f"{t}.{body}"), so a receiver can check both who sent the body
and when (docs/play-by-mail.md, Notifications).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import socket
import urllib.request
from dataclasses import dataclass
from urllib.parse import urlsplit

SIGNATURE = "Claim-Signature"
DELIVERY = "Claim-Delivery"
TIMEOUT = 5.0  # seconds for connecting and for each read

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


# What the player's delivery log says of a blocked webhook: not why, which would tell
# them what the server's resolver answers for names they choose.
NOT_ALLOWED = "the operator does not allow this destination (WEBHOOK_ALLOW)"


class Blocked(Exception):
    """The operator does not allow webhooks to this destination (the message, for the
    server's log, says why)."""


def signature(secret: str, body: bytes, at: int) -> str:
    """The `Claim-Signature` header of `body` sent at unix time `at`."""
    mac = hmac.new(secret.encode(), f"{at}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={at},v1={mac}"


@dataclass(frozen=True, slots=True)
class Allowlist:
    """Where webhooks may go: host names allowed by name, and networks that every
    address of any other host must lie in. Empty: nowhere."""

    names: frozenset[str] = frozenset()
    networks: tuple[Network, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Allowlist:
        """From `"hooks.example.org, 10.1.0.0/16, 127.0.0.1"`: names and CIDR networks."""
        names, networks = set(), []
        for item in filter(None, (part.strip() for part in text.split(","))):
            try:
                networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                names.add(_host_name(item))
        return cls(frozenset(names), tuple(networks))

    def addresses(self, host: str, port: int) -> list[str]:
        """The addresses `host` resolves to, once every one is allowed (or its name
        is). Raises Blocked; OSError when a host allowed by name does not resolve."""
        by_name = _host_name(host) in self.names
        if not (by_name or self.networks):
            raise Blocked(f"{host} is not in WEBHOOK_ALLOW, which names no network")
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as error:
            if by_name:
                raise
            raise Blocked(f"{host} does not resolve ({error}): nothing to check") from None
        addresses = list(dict.fromkeys(info[4][0] for info in infos))
        if not by_name:
            for address in addresses:
                ip = ipaddress.ip_address(address.split("%")[0])
                if not any(ip in network for network in self.networks):
                    raise Blocked(f"{host} resolves to {ip}, which WEBHOOK_ALLOW does not allow")
        return addresses


def post(url: str, body: bytes, headers: dict[str, str], allowlist: Allowlist) -> int:
    """POST `body` as JSON to `url`, if the allowlist lets it through; answer the status
    of a 2xx answer. Raises Blocked, urllib's HTTPError for any other status (redirects
    are not followed) and URLError or OSError when the receiver cannot be reached."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Blocked(f"not an http(s) URL: {parts.scheme}://{parts.hostname}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    addresses = allowlist.addresses(parts.hostname, port)
    # Only these handlers: no proxies from the environment, no redirects (a 3xx is
    # an HTTPError), and the connection made to the addresses checked above.
    opener = urllib.request.OpenerDirector()
    for handler in (
        _PinnedHandler(addresses),
        urllib.request.HTTPErrorProcessor(),
        urllib.request.HTTPDefaultErrorHandler(),
    ):
        opener.add_handler(handler)
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json", **headers}
    )
    with opener.open(request, timeout=TIMEOUT) as response:
        return response.status


def _host_name(text: str) -> str:
    return text.strip().lower().rstrip(".")


class _PinnedHTTP(http.client.HTTPConnection):
    """Connects to one of `addresses`, those checked against the allowlist, rather than
    to a new lookup of the host name, which could answer another (DNS rebinding)."""

    addresses: tuple[str, ...] = ()

    def connect(self):
        failure = OSError(f"no address to connect to for {self.host}")
        for address in self.addresses:
            try:
                self.sock = socket.create_connection((address, self.port), self.timeout)
                return
            except OSError as error:
                failure = error
        raise failure


class _PinnedHTTPS(http.client.HTTPSConnection, _PinnedHTTP):
    """The same over TLS: HTTPSConnection.connect wraps the socket that
    _PinnedHTTP.connect opens and checks the certificate against the host name."""


class _PinnedHandler(urllib.request.AbstractHTTPHandler):
    """Opens http and https URLs through the pinned connections."""

    def __init__(self, addresses: list[str]):
        super().__init__()
        self.addresses = tuple(addresses)

    def _connection(self, kind: type[_PinnedHTTP]):
        def connect(host: str, **options) -> _PinnedHTTP:
            connection = kind(host, **options)
            connection.addresses = self.addresses
            return connection

        return connect

    def http_open(self, request):
        return self.do_open(self._connection(_PinnedHTTP), request)

    def https_open(self, request):
        return self.do_open(self._connection(_PinnedHTTPS), request)

    http_request = https_request = urllib.request.AbstractHTTPHandler.do_request_
