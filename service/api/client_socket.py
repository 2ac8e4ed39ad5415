"""Whether the client of a long-poll or live stream has left, told by its socket: under
gunicorn's gevent workers (`claim serve`), `environ["gunicorn.socket"]` is the
client's connection, and nothing reads it while the request is answered. Once it turns
readable, a peek that reads nothing means the client closed it; if it holds bytes (a
request sent ahead), nothing can be told from it any more, and the stream ends when
writing to it fails.

Watching costs an I/O watcher of gevent's loop per request, no greenlet, no thread: an
idle watcher stays almost free (docs/design.md, Live connections).
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from flask import request
from gevent import get_hub, monkey

from service import games

READABLE = 1  # libev's EV_READ


class ClientSocket:
    """A request's client connection (a gevent socket), as a `games.Connection`."""

    def __init__(self, sock: socket.socket):
        self._sock = sock
        self._readable = False
        self._left = False

    @property
    def left(self) -> bool:
        """Whether the client closed its connection (a peek once it turned readable)."""
        if self._readable and not self._left:
            self._readable = False
            try:
                self._left = self._sock.recv(1, socket.MSG_PEEK) == b""
            except OSError:  # reset by the client
                self._left = True
            except ValueError:  # a TLS socket refuses a peek: never taken as gone
                self._left = False
        return self._left

    @contextmanager
    def on_leaving(self, wake: Callable[[], None]) -> Iterator[None]:
        """For the block: `wake()` once the connection turns readable (once only: the
        bytes of a request sent ahead would keep it readable)."""
        watcher = get_hub().loop.io(self._sock.fileno(), READABLE)

        def readable() -> None:  # in gevent's hub: no waiting here
            watcher.stop()
            self._readable = True
            wake()

        watcher.start(readable)
        try:
            yield
        finally:
            watcher.stop()
            watcher.close()


def client_connection() -> games.Connection:
    """The connection of this request: its client's socket under gunicorn's gevent
    workers over HTTP/1 (where a connection is one client's); else one that cannot
    tell (the test client, another server)."""
    sock = request.environ.get("gunicorn.socket")
    http1 = request.environ.get("SERVER_PROTOCOL", "").startswith("HTTP/1")
    if sock is None or not http1 or not monkey.is_module_patched("socket"):
        return games.STAYING
    return ClientSocket(sock)
