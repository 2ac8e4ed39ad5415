"""`claim serve` as the supervisor of what it starts, on its embedded Redis: a dead
worker or Redis is started again and the API stays up; nothing it started outlives
it, even a `kill -9` of its process group, twenty times over; a restart straight after
comes up the first time; a stop is graceful and quiet; more workers find its Redis."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from service.runtime.embedded_redis import EmbeddedRedis, socket_of
from tests.processes import alive, children, command, descendants, mentioning
from tests.runtime.test_serve import ROOT, free_port, stop, wait_for_health
from tests.sizes import sized

GIVE_UP = 60  # seconds


class Serve:
    """A `claim serve` on its embedded Redis in `data_dir`, on `port`, fsyncing its
    append-only file as `fsync` says (every second: faster, for tests that lose no
    store)."""

    def __init__(self, data_dir: Path, log: Path, port: int | None = None, fsync="everysec"):
        self.data_dir, self.log, self.port = data_dir, log, port or free_port()
        self.fsync = fsync
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> Serve:
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CLAIM_PREFIX")}
        env.update(CLAIM_DATA_DIR=str(self.data_dir), CLAIM_FSYNC=self.fsync)
        command_line = [sys.executable, "-m", "service.cli", "serve", "--port", str(self.port)]
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(
                command_line, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT,
                start_new_session=True,  # a group of its own, as a terminal or systemd gives
            )  # fmt: skip
        wait_for_health(self.url, self.process, self.log)
        return self

    def child(self, marker: str) -> int:
        """The one child of claim serve whose command holds `marker`, waiting for it
        to be there."""
        give_up = time.monotonic() + GIVE_UP
        while True:
            found = [
                pid for pid in children(self.process.pid) if marker in command(pid) and alive(pid)
            ]
            if len(found) == 1:
                return found[0]
            assert time.monotonic() < give_up, f"{marker}: {found}\n{self.log.read_text()}"
            time.sleep(0.05)


@pytest.fixture
def serve(tmp_path):
    started = []

    def start(port: int | None = None, fsync="everysec") -> Serve:
        server = Serve(tmp_path / "data", tmp_path / "serve.log", port, fsync).start()
        started.append(server)
        return server

    yield start
    for server in started:
        stop(server.process)


def _until(condition, what: str, log: Path):
    """Wait until `condition()` answers something true, and answer it."""
    give_up = time.monotonic() + GIVE_UP
    while not (answer := condition()):
        assert time.monotonic() < give_up, f"gave up waiting for {what}:\n{log.read_text()}"
        time.sleep(0.05)
    return answer


def _health(url: str) -> int:
    try:
        return requests.get(f"{url}/healthz", timeout=2).status_code
    except requests.RequestException:
        return 0


def test_a_killed_worker_is_started_again_and_the_api_answers_throughout(serve):
    server = serve()
    worker = server.child("service.cli worker")
    # RQ's scheduler, forked once the worker is up (waited for: a loaded machine is slow)
    forked = _until(lambda: descendants(worker), "the worker's scheduler", server.log)
    os.kill(worker, signal.SIGKILL)
    statuses = []
    give_up = time.monotonic() + GIVE_UP
    while (again := _worker_other_than(server, [worker, *forked])) is None:
        statuses.append(_health(server.url))
        assert time.monotonic() < give_up, server.log.read_text()
        time.sleep(0.05)
    assert set(statuses) <= {200}
    _until(lambda: not any(alive(pid) for pid in forked), "what it forked to end", server.log)
    created = requests.post(
        f"{server.url}/games",
        json={"players": 2, "seats": [{"kind": "ai", "level": "random"}] * 2},
        timeout=10,
    ).json()
    _until(  # the new worker plays the AI seats
        lambda: (
            requests.get(f"{server.url}/games/{created['game_id']}", timeout=10).json()["status"]
            == "finished"
        ),
        "the AI game to end",
        server.log,
    )
    assert alive(again)


def _worker_other_than(server: Serve, old: list[int]) -> int | None:
    """A worker that claim serve started, not one of `old` (the dead worker, and what it
    forked, which claim serve adopts when it dies)."""
    for pid in children(server.process.pid):
        if pid not in old and alive(pid) and "service.cli worker" in command(pid):
            return pid
    return None


def test_a_killed_embedded_redis_is_started_again_on_the_same_data(serve):
    server = serve(fsync="always")  # every second: a write in the last one may be lost
    game = requests.post(f"{server.url}/games", json={"players": 2}, timeout=10).json()
    os.kill(server.child("redis-server"), signal.SIGKILL)
    _until(lambda: _health(server.url) == 503, "the API to see the store gone", server.log)
    _until(lambda: _health(server.url) == 200, "the store to come back", server.log)
    view = requests.get(f"{server.url}/games/{game['game_id']}", timeout=10)
    assert view.status_code == 200 and view.json()["version"] == 1


# Once in twelve, a worker's SIGTERM was lost and it lived on: 8 kills (`--full`) have
# one chance in two to catch that again; the suite's 2 show the rest, every run adding
# its own.
KILLS = 8


def test_nothing_outlives_a_kill_9_of_its_group_and_a_restart_comes_up_at_once(serve):
    port, game = free_port(), None
    for kill in range(1, sized(2, KILLS) + 1):
        server = serve(port)  # the same data, the same port: the first time
        if game is None:
            game = requests.post(f"{server.url}/games", json={"players": 2}, timeout=10).json()
        view = requests.get(f"{server.url}/games/{game['game_id']}", timeout=10)
        assert view.status_code == 200
        server.child("service.cli worker")
        assert len(mentioning(str(server.data_dir))) >= 5  # Redis, gunicorn and its workers...
        os.killpg(server.process.pid, signal.SIGKILL)
        server.process.wait()
        give_up = time.monotonic() + GIVE_UP
        while left := [command(pid) for pid in mentioning(str(server.data_dir))]:
            assert time.monotonic() < give_up, f"kill {kill}: {left} lived on"
            time.sleep(0.05)


@pytest.mark.parametrize(
    ("stop_signal", "to_group"),
    [(signal.SIGTERM, False), (signal.SIGINT, True)],
    ids=["sigterm", "ctrl-c-to-its-group"],
)
def test_a_stop_ends_everything_in_order_quietly_and_exits_0(serve, stop_signal, to_group):
    server = serve()
    server.child("service.cli worker")
    schedulers = lambda: server.log.read_text().count("Scheduler for") == 3  # noqa: E731
    _until(schedulers, "RQ's schedulers (of the worker and its two lanes)", server.log)
    if to_group:
        os.killpg(server.process.pid, stop_signal)
    else:
        server.process.send_signal(stop_signal)
    assert server.process.wait(timeout=GIVE_UP) == 0
    assert not mentioning(str(server.data_dir))
    assert not socket_of(server.data_dir).exists() or not EmbeddedRedis(server.data_dir).answers()
    log = server.log.read_text()
    assert "Traceback" not in log and "Logging error" not in log, log
    assert "Scheduler stopping, releasing locks" in log  # the worker stopped before its Redis


def _worker(data_dir: Path, *options: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CLAIM_PREFIX")}
    env["CLAIM_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "worker", *options],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=GIVE_UP,
    )


def test_another_worker_finds_the_embedded_redis_of_a_running_serve(serve, tmp_path):
    server = serve()
    assert _worker(server.data_dir, "--burst").returncode == 0


def test_a_worker_without_a_redis_says_so_and_exits(tmp_path):
    done = _worker(tmp_path / "nothing-here", "--burst")
    assert done.returncode == 1
    assert "no Redis" in done.stderr


def test_a_serve_whose_port_is_taken_says_so_and_exits_before_saying_it_serves(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CLAIM_PREFIX")}
        env["CLAIM_DATA_DIR"] = str(tmp_path / "data")
        done = subprocess.run(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=GIVE_UP,
        )  # fmt: skip
    assert done.returncode == 2
    assert f"port {port} of 127.0.0.1 is in use: choose another with --port" in done.stderr
    assert "serving on" not in done.stderr


def test_a_serve_says_it_serves_once_its_port_answers(serve):
    server = serve()  # started when /healthz answers
    _until(lambda: "serving on" in server.log.read_text(), "the line", server.log)
    with socket.create_connection(("127.0.0.1", server.port), timeout=5):
        pass
