"""The gunicorn worker that `claim serve` runs: gevent's, so that an idle live stream or
long-poll is a greenlet waiting on an event rather than a thread of its own; and what
it does before the app sees a request:

- A client that is slow to send costs little and gets an answer: a request's headers
  must come within `CLAIM_HEADER_TIMEOUT` seconds (gunicorn's keep-alive timeout, which
  bounds the wait for every request's headers), its body within `CLAIM_BODY_TIMEOUT`
  (else 408, and the connection closed). The body is read here, whole and bounded
  (`MAX_BODY`, else 413), before the app counts the request for its rate limit: a
  request the app sees has arrived.
- One address holds at most `CLAIM_SENDING_CAP` connections of a process that are
  still sending a request (or idle between two); the next are closed at once, after a
  429. A trusted proxy (`CLAIM_TRUSTED_PROXIES`) is not capped: it buffers what it
  forwards.
- Malformed chunking is a 400; every error gunicorn answers by itself (a request line
  or headers too long, a malformed request) is written as problem+json like every
  other.

This module imports nothing of the app at import time: gunicorn loads it before gevent
patches the standard library, and what it imported then would be left unpatched.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import time
from collections import Counter

import gevent
from gunicorn import util
from gunicorn.http import errors
from gunicorn.workers.ggevent import GeventWorker

from service.config import Config

log = logging.getLogger("claim.http")

# The problem kind of each status gunicorn answers with; any other 4xx is a bad request.
GUNICORN_KINDS = {414: "uri-too-long", 431: "headers-too-large", 501: "not-implemented"}
# What a body that cannot be read is answered, by what its reader raised.
BAD_BODIES = (
    errors.InvalidChunkSize,
    errors.ChunkMissingTerminator,
    errors.InvalidChunkExtension,
    errors.InvalidHeader,
)
DRAINED = 4  # reads of 64 KB at most of what is unread, before an error answer
REFUSALS_LOGGED_EVERY = 60.0  # seconds: an address refused again and again, logged once


def write_problem(sock, status: int, reason: str, detail: str, kind: str | None = None) -> None:
    """gunicorn's `util.write_error`, as problem+json instead of an HTML page, and
    closing the connection. What the client sent that is still unread is read first:
    a socket closed with unread data is reset, and the answer lost with it."""
    from service.api.problems import KINDS, MEDIA_TYPE  # patched by now

    other = "internal-error" if status >= 500 else "validation-error"
    kind = KINDS[kind or GUNICORN_KINDS.get(status, other)]
    body = json.dumps(
        {
            "type": kind.type,
            "title": kind.title,
            "status": status,
            "detail": detail or reason,
            "instance": "",  # the request was not read, or not whole
        }
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: {MEDIA_TYPE}\r\n"
        f"X-Content-Type-Options: nosniff\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    sock.setblocking(False)
    with contextlib.suppress(OSError):  # BlockingIOError once nothing more is there
        for _ in range(DRAINED):  # a client sending on and on is not read for ever
            if not sock.recv(65536):
                break
    util.write_nonblock(sock, head.encode("latin-1") + body)


class BodyTooSlow(Exception):
    """The body did not come whole within the deadline."""


class ProblemWorker(GeventWorker):
    """gevent's worker, deadlines and caps on clients still sending, problems for its
    own error answers."""

    def init_process(self) -> None:
        # gunicorn writes every error page it answers by itself through this function.
        util.write_error = write_problem
        self.settings = Config.from_env()
        self.sending: Counter[str] = Counter()  # address -> connections still sending
        self.refused_at: dict[str, float] = {}  # address -> when its refusal was logged
        super().init_process()

    def handle(self, listener, client, addr) -> None:
        address = _address(addr)
        capped = not self.settings.is_trusted_proxy(address)
        if capped and self.sending[address] >= self.settings.sending_cap:
            self._refuse(client, address)
            return
        self.sending[address] += 1
        try:
            super().handle(listener, client, addr)
        finally:
            self.sending[address] -= 1
            if not self.sending[address]:
                del self.sending[address]

    def handle_request(self, listener_name, req, sock, addr) -> bool:
        address = _address(addr)
        self._read_body(req, sock)
        self.sending[address] -= 1  # sent: in the app's hands until it has answered
        try:
            return super().handle_request(listener_name, req, sock, addr)
        finally:
            self.sending[address] += 1  # sending the next request, or idle until then

    def _read_body(self, req, sock) -> None:
        """Read the body of `req` whole, within the deadline and the size limit, and
        hand it to the app as if it had come with a Content-Length; or answer why not
        and end the connection (StopIteration)."""
        from service.api import MAX_BODY  # patched by now

        if req.body is None:  # gunicorn gives every request a body (of 0 bytes, or more)
            return
        declared = _content_length(req)
        if declared is not None and declared > MAX_BODY:  # refused before it is sent
            raise _too_large(sock, MAX_BODY)
        if req._expected_100_continue:  # the client waits for this before its body
            sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            req._expected_100_continue = False
        try:
            with gevent.Timeout(self.settings.body_timeout, BodyTooSlow):
                body = req.body.read(MAX_BODY + 1)
        except BodyTooSlow:
            detail = f"the request's body did not come whole in {self.settings.body_timeout:g} s"
            raise _answer(sock, 408, "Request Timeout", detail, "request-timeout") from None
        except errors.NoMoreData:
            raise StopIteration from None  # the client left before the end of its body
        except BAD_BODIES as error:
            raise _answer(sock, 400, "Bad Request", f"a malformed body: {error}") from None
        if len(body) > MAX_BODY:
            raise _too_large(sock, MAX_BODY)
        req.body = io.BytesIO(body)
        framing = ("CONTENT-LENGTH", "TRANSFER-ENCODING")
        req.headers = [(name, value) for name, value in req.headers if name not in framing]
        req.headers.append(("CONTENT-LENGTH", str(len(body))))

    def _refuse(self, client, address: str) -> None:
        """Answer 429 to a connection over the cap of its address, and close it."""
        now = time.monotonic()
        if now - self.refused_at.get(address, -REFUSALS_LOGGED_EVERY) >= REFUSALS_LOGGED_EVERY:
            since = now - REFUSALS_LOGGED_EVERY  # what was logged long ago is forgotten
            self.refused_at = {a: at for a, at in self.refused_at.items() if at > since}
            self.refused_at[address] = now
            log.warning(
                "%s holds %s connections still sending: refusing more",
                address,
                self.settings.sending_cap,
            )
        detail = "too many connections from your address are still sending a request"
        with contextlib.suppress(OSError):  # else gone already
            write_problem(client, 429, "Too Many Requests", detail, "too-many-sending")
        util.close(client)


def _address(addr) -> str:
    """The client's address of gunicorn's `addr` ("" for a unix socket's peer)."""
    return addr[0] if isinstance(addr, tuple) else ""


def _content_length(req) -> int | None:
    for name, value in req.headers:
        if name == "CONTENT-LENGTH":
            return int(value)  # gunicorn's parser checked it is digits
    return None


def _too_large(sock, most: int) -> StopIteration:
    detail = f"a body is {most} bytes at most"
    return _answer(sock, 413, "Content Too Large", detail, "payload-too-large")


def _answer(sock, status: int, reason: str, detail: str, kind: str | None = None):
    """Write the problem, and answer the StopIteration that ends the connection."""
    with contextlib.suppress(OSError):  # else the client is gone: nobody to tell
        write_problem(sock, status, reason, detail, kind)
    return StopIteration(detail)
