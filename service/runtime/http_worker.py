"""The gunicorn worker that `claim serve` runs: gevent's, so that an idle live stream or
long-poll is a greenlet waiting on an event rather than a thread of its own; and the
errors gunicorn answers by itself, before the app sees the request (a request line or
headers too long, a malformed request), written as problem+json like every other.

This module imports nothing of the app: gunicorn loads it before gevent patches the
standard library, and what it imported then would be left unpatched.
"""

from __future__ import annotations

import json

from gunicorn import util
from gunicorn.workers.ggevent import GeventWorker

# The problem kind of each status gunicorn answers with; any other 4xx is a bad request.
GUNICORN_KINDS = {414: "uri-too-long", 431: "headers-too-large", 501: "not-implemented"}


def write_problem(sock, status: int, reason: str, detail: str) -> None:
    """gunicorn's `util.write_error`, as problem+json instead of an HTML page."""
    from service.api.problems import KINDS, MEDIA_TYPE  # patched by now

    other = "internal-error" if status >= 500 else "validation-error"
    kind = KINDS[GUNICORN_KINDS.get(status, other)]
    body = json.dumps(
        {
            "type": kind.type,
            "title": kind.title,
            "status": status,
            "detail": detail or reason,
            "instance": "",  # the request could not be read
        }
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: {MEDIA_TYPE}\r\n"
        f"X-Content-Type-Options: nosniff\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


class ProblemWorker(GeventWorker):
    """gevent's worker, writing its own error answers as problems."""

    def init_process(self) -> None:
        # gunicorn writes every error page it answers by itself through this function.
        util.write_error = write_problem
        super().init_process()
