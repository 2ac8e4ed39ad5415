"""Clients that are slow to send, against `claim serve` as the README starts it: they
cost little, are answered, and leave everyone else served (`service.runtime.http_worker`)."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from tests.runtime.test_serve import start, stop, wait_for_health
from tests.slow_clients import SLOW_BODY, under_slow_bodies

ATTACKER = "127.0.0.2"  # a loopback address of its own: one client address
SLOW_ONES = 20_000
SENDING_CAP = 16


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> tuple[int, Path]:
    """`claim serve` on its embedded Redis with short deadlines: its port and its log."""
    unset = ("REDIS_URL", "CLAIM_PREFIX", "CLAIM_RATE_LIMIT")
    env = {name: value for name, value in os.environ.items() if name not in unset}
    env.update(
        CLAIM_DATA_DIR=str(tmp_path_factory.mktemp("claim-data")),
        CLAIM_BODY_TIMEOUT="5",  # all the slow ones of a test connected by then
        CLAIM_HEADER_TIMEOUT="1",
        CLAIM_SENDING_CAP=str(SENDING_CAP),
    )
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    process, port = start(env, log)
    wait_for_health(f"http://127.0.0.1:{port}", process, log)
    yield port, log
    stop(process)


def exchange(port: int, request: bytes, source: str = "127.0.0.1") -> tuple[int, dict | bytes]:
    """Send `request` raw; answer the status and the problem (or the body) answered,
    once the server has closed the connection (status 0: closed with no answer)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0)) as c:
        c.sendall(request)
        reply = b""
        while chunk := c.recv(65536):
            reply += chunk
    if not reply:
        return 0, b""
    head, _, body = reply.partition(b"\r\n\r\n")
    status = int(head.split()[1])
    return status, json.loads(body) if b"application/problem+json" in head else body


def post_players(framing: bytes, body: bytes) -> bytes:
    return (
        b"POST /players HTTP/1.1\r\nHost: claim\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\n" + framing + b"\r\n" + body
    )


def test_twenty_thousand_slow_bodies_from_one_address_leave_others_served(server):
    port, log = server
    outcome, health = under_slow_bodies(port, ATTACKER, SLOW_ONES)
    # each slow one was answered: at once when its address held the cap, else at its
    # body's deadline; none waited for more, none got a 5xx
    assert set(outcome.answers) <= {408, 429}, outcome.answers
    assert outcome.answers[408] >= SENDING_CAP and outcome.answers.total() == SLOW_ONES
    # every /healthz of another address meanwhile answered, and nothing went wrong
    assert health.latencies and set(health.statuses) == {200}, health.statuses
    text = log.read_text(errors="replace")
    assert "Traceback" not in text and '" 500 ' not in text
    status, body = exchange(port, post_players(b"Content-Length: 15\r\n", b'{"name": "Ann"}'))
    assert status == 201, body


def test_a_body_not_whole_in_time_is_a_408_problem_and_the_connection_closed(server):
    port, _ = server
    for framing, start_of_body in (
        (b"Content-Length: 15\r\n", b'{"name"'),
        (b"Transfer-Encoding: chunked\r\n", b"f\r\n{"),
    ):
        status, problem = exchange(port, post_players(framing, start_of_body))
        assert status == 408 and problem["type"] == "/problems/request-timeout"
        assert problem["status"] == 408 and "in 5 s" in problem["detail"]


def test_headers_not_whole_in_time_end_the_connection(server):
    port, _ = server
    assert exchange(port, b"GET /healthz HTTP/1.1\r\nHost: cl") == (0, b"")


def test_malformed_chunking_is_a_400_problem(server):
    port, _ = server
    for body in (b"zz\r\n{}\r\n0\r\n\r\n", b"2\r\n{}XX0\r\n\r\n", b"2;a=\x01\r\n{}\r\n0\r\n\r\n"):
        status, problem = exchange(port, post_players(b"Transfer-Encoding: chunked\r\n", body))
        assert status == 400 and problem["type"] == "/problems/validation-error", problem
        assert problem["detail"].startswith("a malformed body")


def test_a_body_over_the_limit_is_a_413_problem_unread(server):
    port, _ = server
    for framing in (
        b"Content-Length: 1000000\r\n",
        b"Content-Length: 70000\r\nExpect: 100-continue\r\n",
    ):
        status, problem = exchange(port, post_players(framing, b""))  # never a 100 first
        assert status == 413 and problem["type"] == "/problems/payload-too-large"
    chunked = b"10001\r\n" + b" " * 0x10001 + b"\r\n0\r\n\r\n"
    status, problem = exchange(port, post_players(b"Transfer-Encoding: chunked\r\n", chunked))
    assert status == 413 and problem["type"] == "/problems/payload-too-large"


def test_a_body_read_ahead_reaches_the_app_whole_chunked_or_not(server):
    port, _ = server
    name = b'{"name": "Ann"}'
    for framing, body in (
        (b"Content-Length: 15\r\n", name),
        (b"Transfer-Encoding: chunked\r\n", b"f\r\n" + name + b"\r\n0\r\n\r\n"),
        (b"Content-Length: 15\r\nExpect: 100-continue\r\n", name),
    ):
        status, body = exchange(port, post_players(framing, body))
        assert status in (100, 201), body  # 100 Continue comes first when asked for
        if status == 100:
            assert b"201 CREATED" in body


def test_an_address_over_its_cap_of_connections_still_sending_gets_429_problems(server):
    port, _ = server
    held = []
    for _ in range(4 * SENDING_CAP):  # twice what the two processes take
        connection = socket.create_connection(("127.0.0.1", port), source_address=(ATTACKER, 0))
        connection.sendall(SLOW_BODY)
        held.append(connection)
    # another address is not held to it
    assert exchange(port, b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n")[0] == 200
    answers = []
    for connection in held:
        with connection:
            connection.settimeout(30)
            answers.append(connection.makefile("rb").read())
    statuses = [int(answer.split()[1]) for answer in answers]
    assert set(statuses) == {408, 429} and statuses.count(429) >= 2 * SENDING_CAP
    refusal = next(answer for answer in answers if b" 429 " in answer.split(b"\r\n")[0])
    problem = json.loads(refusal.partition(b"\r\n\r\n")[2])
    assert problem["type"] == "/problems/too-many-sending" and problem["status"] == 429
