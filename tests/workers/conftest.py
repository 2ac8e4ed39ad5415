"""Workers against a real Redis: RQ queues named after the test's key prefix, and
`claim worker` processes started by the tests and killed after them."""

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from service.api import create_app
from service.config import Config, child_environment
from service.games import Claim
from tests.processes import descendants, state


@pytest.fixture(autouse=True)
def _rq_keys(rq_cleanup):
    """RQ's keys of every test here are deleted afterwards."""


@pytest.fixture
def config(redis_url, queue_url, prefix, sqlite_archive_url) -> Config:
    return Config(
        redis_url=redis_url,
        queue_url=queue_url,
        prefix=prefix,
        rate_limit="",
        archive_url=sqlite_archive_url,
    )


@pytest.fixture
def claim(redis_client, config) -> Claim:
    claim = Claim.connect(config, client=redis_client)
    yield claim
    claim.close()


@pytest.fixture
def client(claim):
    return create_app(claim=claim).test_client()


@pytest.fixture
def store(claim):
    return claim.store


@pytest.fixture
def start_worker(config, tmp_path):
    """Start a `claim worker` process on the test's Redis and prefix; all are killed
    (with their work horses) after the test, and their logs printed (pytest shows
    them when the test failed)."""
    processes = []

    def start(*options: str, **environment: str) -> subprocess.Popen:
        env = child_environment(
            REDIS_URL=config.redis_url,
            CLAIM_PREFIX=config.prefix,
            CLAIM_ARCHIVE_URL=config.archive_url,
            **environment,
        )
        if config.queue_url:
            env["CLAIM_QUEUE_URL"] = config.queue_url
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
    """`kill -9` the process and every process it started (RQ's work horses and its
    scheduler run in processes of their own, so the group is not enough)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGSTOP)  # it starts no new horse while we look
        _wait_stopped(process.pid)  # (a fork under way when the signal came completes)
    for pid in [*descendants(process.pid), process.pid]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    process.wait()


def _wait_stopped(pid: int) -> None:
    """Wait until the process is stopped: a signal is delivered after `kill` returns."""
    while state(pid) not in ("T", "Z", None):
        time.sleep(0.001)
