"""`claim serve`: the API under gunicorn, on `REDIS_URL` or on an embedded Redis that it
starts (`service.runtime.embedded_redis`), with one `claim worker` beside it there; and the
supervisor of what it starts:

- gunicorn runs gevent workers (`service.runtime.http_worker`) and restarts them itself;
  if its master ends, `claim serve` stops the rest and exits non-zero, for systemd or
  a container runtime to act.
- The RQ worker, when it dies, is started again after a pause that doubles from one
  second to a minute (back to one second once it has run a minute); what it had
  forked (its scheduler, a work horse) ends with it.
- The embedded Redis, when it dies, is started again on the same data (its
  append-only file); when it cannot be, `claim serve` exits non-zero.
- Everything it starts ends with it, even if it is killed with `kill -9`
  (`service.runtime.processes`). Stopped by SIGTERM or Ctrl-C, it stops gunicorn and the
  worker gracefully, then the Redis, and exits 0. Each process it starts is in a process
  group of its own, so that a signal to the group of `claim serve` (Ctrl-C in a
  terminal) reaches `claim serve` alone, which stops them in that order.

More workers beside a running `claim serve`: `claim worker` in the same directory
(with `REDIS_URL` unset it finds the embedded Redis at `<CLAIM_DATA_DIR>/redis.sock`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from urllib.parse import urlsplit, urlunsplit

from service.config import Config, child_environment
from service.runtime.embedded_redis import EmbeddedRedis, EmbeddedRedisError
from service.runtime.processes import adopt_orphans, ending_with_this_process, reap_orphans

log = logging.getLogger("claim.serve")
TICK = 0.2  # seconds between two looks at the processes
PAUSES = (1.0, 60.0)  # seconds before starting a dead worker again: first, longest
STEADY = 60.0  # seconds a worker must run for its next pause to be the first again
GROUP_GRACE = 3.0  # seconds what a dead worker forked is given to end by itself
REDIS_RESTARTS = 5  # times in a row the embedded Redis may die before claim serve gives up
# Seconds a stopping gunicorn worker gives its open requests: a move is answered well
# within it; a long-poll or a live stream is cut then, and its client asks again.
HTTP_GRACE = 5


def gunicorn_command(
    host: str, port: int, workers: int, connections: int, config: Config
) -> list[str]:
    """gunicorn's command line; the keep-alive timeout bounds the wait for every
    request's headers, the first's included (`service.runtime.http_worker`)."""
    return [
        sys.executable,
        *("-m", "gunicorn", "--bind", f"{host}:{port}", "--workers", str(workers)),
        *("--worker-class", "service.runtime.http_worker.ProblemWorker"),
        *("--worker-connections", str(connections)),
        *("--graceful-timeout", str(HTTP_GRACE)),
        *("--keep-alive", str(config.header_timeout)),
        *("--access-logfile", "-", "--no-control-socket"),
        "service.api:create_app()",
    ]


WORKER_COMMAND = [sys.executable, "-m", "service.cli", "worker"]


class Stop(BaseException):
    """SIGTERM or SIGINT came: stop everything and exit 0. A BaseException, as
    KeyboardInterrupt is, so that an `except Exception` it lands in (a logging call's)
    does not lose it."""


def serve(
    config: Config, host: str, port: int, workers: int, connections: int, rq_worker: bool | None
) -> int:
    """Run the API until stopped; answer the exit status. `rq_worker`: start one RQ
    worker beside it (None: only on the embedded Redis)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s claim serve: %(message)s")
    if rq_worker is None:
        rq_worker = not config.redis_url
    _allow_open_files(connections * workers + 1024)
    adopt_orphans()  # what a dead worker forked comes here to be reaped
    embedded = None if config.redis_url else EmbeddedRedis(config.data_dir, config.fsync)

    def stop(signum, frame):
        raise Stop

    if _taken(host, port):
        log.error("port %s of %s is in use: choose another with --port", port, host)
        return 2

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    api = None
    worker = Restarted(lambda: _start(WORKER_COMMAND, env))
    try:
        if embedded is not None:
            embedded.start(preexec_fn=ending_with_this_process())
        url = embedded.url if embedded is not None else config.redis_url
        env = child_environment(REDIS_URL=url)
        api = _start(gunicorn_command(host, port, workers, connections, config), env)
        if rq_worker:
            worker.start()
        redis_deaths, listening = 0, False
        while True:
            time.sleep(TICK)
            reap_orphans(_pids(api, worker.process, embedded and embedded.process))
            if api.poll() is not None:
                log.error("gunicorn ended (%s): stopping", api.returncode)
                return api.returncode or 1
            if not listening and (listening := _answers(host, port)):
                log.info("serving on http://%s:%s (Redis at %s)", host, port, _shown(url))
            if rq_worker:
                worker.look()
            if embedded is not None and not embedded.running():
                redis_deaths += 1
                log.error("the embedded Redis ended (%s)", embedded.process.returncode)
                if redis_deaths > REDIS_RESTARTS:
                    log.error("the embedded Redis died %s times in a row: stopping", redis_deaths)
                    return 1
                embedded.start(preexec_fn=ending_with_this_process())
                log.info("the embedded Redis is back on %s", embedded.data_dir)
            elif embedded is not None:
                redis_deaths = 0
    except Stop:
        return 0
    except EmbeddedRedisError as error:
        log.error("%s", error)
        return 1
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _stop_all(api, worker.process)
        if embedded is not None:
            embedded.stop()


def _taken(host: str, port: int) -> bool:
    """Whether another process listens on `port` of `host` already (gunicorn would
    retry its bind for a while, then fail)."""
    with socket.socket(_family(host)) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


def _answers(host: str, port: int) -> bool:
    """Whether gunicorn accepts connections: then `claim serve` says it serves."""
    address = "127.0.0.1" if host == "0.0.0.0" else "::1" if host == "::" else host
    with socket.socket(_family(host)) as probe:
        probe.settimeout(TICK)
        return probe.connect_ex((address, port)) == 0


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


class Restarted:
    """A process started again whenever it ends, after a pause that grows while it
    keeps ending soon after its start."""

    def __init__(self, start):
        self._start = start
        self.process: subprocess.Popen | None = None
        self._started_at = 0.0
        self._pause = PAUSES[0]
        self._again_at: float | None = None

    def start(self) -> subprocess.Popen:
        self.process, self._started_at = self._start(), time.monotonic()
        return self.process

    def look(self) -> None:
        """Start the process again if it ended and its pause is over."""
        now = time.monotonic()
        if self._again_at is None:
            if self.process.poll() is None:
                return
            _end_group(self.process)  # what it forked ends with it
            if now - self._started_at >= STEADY:
                self._pause = PAUSES[0]
            ended = self.process.returncode
            log.error("the worker ended (%s): again in %.0f s", ended, self._pause)
            self._again_at = now + self._pause
            self._pause = min(self._pause * 2, PAUSES[1])
        if now >= self._again_at:
            self._again_at = None
            self.start()


def _start(command: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        preexec_fn=ending_with_this_process(),
        process_group=0,
    )


def _end_group(process: subprocess.Popen, grace: float = GROUP_GRACE) -> None:
    """End what is left of the process group that `process` led: given `grace` seconds
    to end by itself (what a worker forked is sent SIGTERM when the worker dies, and
    RQ's scheduler then gives back its locks), then killed."""
    until = time.monotonic() + grace
    with contextlib.suppress(ProcessLookupError, PermissionError):
        while time.monotonic() < until:
            reap_orphans({process.pid})  # the group's processes, once ended and adopted
            os.killpg(process.pid, 0)  # ProcessLookupError once the group is empty
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGKILL)


def _stop_all(
    api: subprocess.Popen | None, worker: subprocess.Popen | None, grace: float = 30.0
) -> None:
    """SIGTERM to each still running (gunicorn and RQ end gracefully), then SIGKILL to
    what is left after `grace` seconds, and to what the worker forked."""
    running = [p for p in (api, worker) if p is not None and p.poll() is None]
    for process in running:
        process.terminate()
    until = time.monotonic() + grace
    for process in running:
        try:
            process.wait(max(0.0, until - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if worker is not None and worker in running:
        _end_group(worker)


def _pids(*processes: subprocess.Popen | None) -> set[int]:
    return {process.pid for process in processes if process is not None}


def _allow_open_files(wanted: int) -> None:
    """Raise this process's (and so its children's) limit of open files towards
    `wanted`, as far as the hard limit allows: every idle stream holds a socket."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


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
