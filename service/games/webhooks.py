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


class Blocked(Exception):
    """The operator does not allow webhooks to this destination (the message, for the
    server's log, says why)."""


def signature(secret: str, body: bytes, at: int) -> str:
    """The `Claim-Signature` header of `body` sent at unix time `at`."""
    mac = hmac.new(secret.encode(), f"{at}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={at},v1={mac}"


@dataclass(frozen=True, slots=True)
class Allowlist:
    """Where webhooks (or pushes) may go: host names allowed by name (`*.example.org`:
    any name under it), and networks that every address of any other host must lie in.
    Empty: nowhere. `public_names`: a host allowed by name must resolve to public
    addresses only (or to addresses of the networks), as a push service's does."""

    names: frozenset[str] = frozenset()
    networks: tuple[Network, ...] = ()
    domains: tuple[str, ...] = ()  # ".example.org" of "*.example.org"
    public_names: bool = False

    @classmethod
    def parse(cls, text: str, public_names: bool = False) -> Allowlist:
        """From `"hooks.example.org, *.example.net, 10.1.0.0/16, 127.0.0.1"`: names,
        domains and CIDR networks."""
        names, domains, networks = set(), [], []
        for item in filter(None, (part.strip() for part in text.split(","))):
            try:
                networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                name = _host_name(item)
                if name.startswith("*."):
                    domains.append(name[1:])
                else:
                    names.add(name)
        return cls(frozenset(names), tuple(networks), tuple(domains), public_names)

    def by_name(self, host: str) -> bool:
        name = _host_name(host)
        return name in self.names or name.endswith(self.domains)

    def in_networks(self, address: str) -> bool:
        """Whether `address` (an IP address; not a name) lies in an allowed network."""
        try:
            ip = ipaddress.ip_address(address.split("%")[0])
        except ValueError:
            return False
        return any(ip in network for network in self.networks)

    def addresses(self, host: str, port: int) -> list[str]:
        """The addresses `host` resolves to, once every one is allowed (or its name
        is). Raises Blocked; OSError when a host allowed by name does not resolve."""
        by_name = self.by_name(host)
        if not (by_name or self.networks):
            raise Blocked(f"{host} is not allowed by name, and no network is")
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as error:
            if by_name:
                raise
            raise Blocked(f"{host} does not resolve ({error}): nothing to check") from None
        addresses = list(dict.fromkeys(info[4][0] for info in infos))
        for address in addresses:
            if self.in_networks(address):
                continue
            ip = ipaddress.ip_address(address.split("%")[0])
            if not by_name:
                raise Blocked(f"{host} resolves to {ip}, which no allowed network holds")
            if self.public_names and not ip.is_global:
                raise Blocked(f"{host} resolves to {ip}, a private address")
        return addresses


def post(url: str, body: bytes, headers: dict[str, str], allowlist: Allowlist) -> int:
    """POST `body` (JSON unless `headers` say otherwise) to `url`, if the allowlist lets
    it through; answer the status
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
