"""Workers against a real Redis: RQ queues named after the test's key prefix, and
`claim worker` processes started by the tests and killed after them."""

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from service.api import create_app


@pytest.fixture
def app(redis_client, prefix):
    return create_app({"REDIS": redis_client, "CLAIM_PREFIX": prefix, "CLAIM_RATE_LIMIT": ""})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def store(app):
    return app.extensions["claim"].store


@pytest.fixture(autouse=True)
def _rq_keys(redis_client, prefix):
    """Delete RQ's keys of the test's queues (named after its prefix) afterwards: its
    queues, jobs and their results, and its workers."""
    yield
    mine = prefix.encode()
    doomed, workers = [], []
    for key in redis_client.scan_iter(match="rq:*"):
        if mine in key:
            doomed.append(key)
        elif redis_client.type(key) == b"hash":
            origin, queues = redis_client.hmget(key, "origin", "queues")
            if mine in (origin or b"") + (queues or b""):
                doomed.append(key)
                name = key.split(b":", 2)[2]
                doomed.append(b"rq:results:" + name)
                if key.startswith(b"rq:worker:"):
                    workers.append(name)
    if doomed:
        redis_client.delete(*doomed)
    queues = [q for q in redis_client.smembers("rq:queues") if mine in q]
    if queues:
        redis_client.srem("rq:queues", *queues)
    if workers:
        redis_client.srem("rq:workers", *workers)


@pytest.fixture
def start_worker(redis_url, prefix, tmp_path):
    """Start a `claim worker` process on the test's Redis and prefix; all are killed
    (with their work horses) after the test, and their logs printed (pytest shows
    them when the test failed)."""
    processes = []

    def start(*options: str) -> subprocess.Popen:
        env = {**os.environ, "REDIS_URL": redis_url, "CLAIM_PREFIX": prefix}
        with (tmp_path / f"worker-{len(processes)}.log").open("w") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "worker", *options],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        processes.append(process)
        return process

    yield start
    for n, process in enumerate(processes):
        kill(process)
        print(f"--- worker {n} ---", (tmp_path / f"worker-{n}.log").read_text(), sep="\n")


def kill(process: subprocess.Popen) -> None:
    """`kill -9` the process and every process it started (RQ's work horses run in a
    process group of their own, so the group is not enough)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGSTOP)  # it starts no new horse while we look
    for pid in [*_descendants(process.pid), process.pid]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    process.wait()


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found
