"""Slow clients, for the tests and `bench/slow_clients.py`: many connections from one
address that each start a request body and send no more of it, and a client of
another address asking `/healthz` meanwhile."""

from __future__ import annotations

import http.client
import selectors
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

# A request whose chunked body is one byte, then nothing.
SLOW_BODY = (
    b"POST /players HTTP/1.1\r\nHost: claim\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n1\r\n{"
)


@dataclass
class Outcome:
    """What the slow connections were answered: a count by status (`closed`: closed
    with no answer; `refused`: the connection could not be made) and the most held at
    once."""

    answers: Counter = field(default_factory=Counter)
    most_held: int = 0


def slow_bodies(port: int, source: str, count: int, at_once: int = 500, progress=None) -> Outcome:
    """Open `count` connections from `source` to the server on `port`, at most
    `at_once` waiting for an answer at a time, each sending `SLOW_BODY`; wait for every
    one to be answered or closed by the server. `progress(n)`: n more ended."""
    outcome, selector, opened = Outcome(), selectors.DefaultSelector(), 0
    replies: dict[socket.socket, bytes] = {}
    while opened < count or replies:
        while opened < count and len(replies) < at_once:
            opened += 1
            client = socket.socket()
            client.bind((source, 0))
            try:
                client.connect(("127.0.0.1", port))
                client.sendall(SLOW_BODY)
            except OSError:
                outcome.answers["refused"] += 1
                client.close()
                continue
            client.setblocking(False)
            selector.register(client, selectors.EVENT_READ)
            replies[client] = b""
        outcome.most_held = max(outcome.most_held, len(replies))
        for key, _ in selector.select(timeout=1.0):
            client = key.fileobj
            try:
                data = client.recv(4096)
            except OSError:
                data = b""
            if data:
                replies[client] += data
                continue
            reply = replies.pop(client)
            selector.unregister(client)
            client.close()
            outcome.answers[int(reply.split()[1]) if reply.startswith(b"HTTP/") else "closed"] += 1
            if progress:
                progress(1)
    selector.close()
    return outcome


@dataclass
class Health:
    """The answers to `/healthz` asked again and again: each one's status (or the
    error met) and latency in seconds."""

    statuses: Counter = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)


def ask_health(port: int, stop: threading.Event, every: float = 0.02) -> Health:
    """Ask `GET /healthz` on a new connection every `every` seconds until `stop`."""
    health = Health()
    while not stop.is_set():
        started = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            connection.request("GET", "/healthz")
            response = connection.getresponse()
            response.read()
            health.statuses[response.status] += 1
        except OSError as error:
            health.statuses[type(error).__name__] += 1
        finally:
            connection.close()
        health.latencies.append(time.perf_counter() - started)
        stop.wait(every)
    return health


def under_slow_bodies(port: int, source: str, count: int, progress=None) -> tuple[Outcome, Health]:
    """`slow_bodies` from `source`, and `/healthz` asked from 127.0.0.1 meanwhile."""
    stop, asked = threading.Event(), []
    asking = threading.Thread(target=lambda: asked.append(ask_health(port, stop)))
    asking.start()
    try:
        outcome = slow_bodies(port, source, count, progress=progress)
    finally:
        stop.set()
        asking.join()
    return outcome, asked[0]
