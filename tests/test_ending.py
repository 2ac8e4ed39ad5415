"""A test run ended from outside (CI's time limit: SIGTERM, then SIGKILL) leaves no
process behind: its xdist workers and what their tests started end with it
(`tests/ending.py`)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.processes import alive

ROOT = Path(__file__).parent.parent
ENDS = 20  # seconds the processes left have to end
HANGING = """
import os, subprocess, sys, time
from pathlib import Path

def test_that_starts_a_server_and_hangs():
    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    Path({out!r}).write_text(f"{{os.getpid()}} {{server.pid}}")
    time.sleep(600)
"""


@pytest.mark.parametrize("ending", [signal.SIGTERM, signal.SIGKILL])
def test_a_run_ended_from_outside_leaves_no_process(tmp_path, ending):
    out = tmp_path / "pids"
    (tmp_path / "test_hanging.py").write_text(HANGING.format(out=str(out)))
    command = [sys.executable, "-m", "pytest", "-p", "tests.ending", "-n", "1", "-q"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen([*command, "-p", "no:cacheprovider"], cwd=tmp_path, env=env)
    try:
        until = time.monotonic() + 120
        while not out.exists() or len(out.read_text().split()) < 2:
            assert run.poll() is None and time.monotonic() < until, "the test did not start"
            time.sleep(0.1)
        worker, server = map(int, out.read_text().split())
        assert alive(worker) and alive(server)
        run.send_signal(ending)
        run.wait(ENDS)
        until = time.monotonic() + ENDS
        while (alive(worker) or alive(server)) and time.monotonic() < until:
            time.sleep(0.1)
        assert not alive(worker), "the xdist worker outlived the run"
        assert not alive(server), "what its test started outlived the run"
    finally:
        run.kill()
