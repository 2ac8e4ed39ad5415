"""A child started to end with its parent ends with it, even when the SIGTERM it is
sent then is lost (as RQ's stop once was, raised inside a logging call)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from tests.processes import alive
from tests.runtime.test_serve import ROOT

GIVE_UP = 60  # seconds

# A child that loses its SIGTERM (it ignores it), watching its parent.
CHILD = """
import signal, time
from service.runtime.processes import end_surely_with_parent
end_surely_with_parent(grace=0.5)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("ready", flush=True)
time.sleep(600)
"""

# Its parent, which says the child's pid once the child watches it.
PARENT = f"""
import subprocess, sys, time
from service.runtime.processes import ending_with_this_process
child = subprocess.Popen(
    [sys.executable, "-c", {CHILD!r}],
    preexec_fn=ending_with_this_process(),
    stdout=subprocess.PIPE,
    text=True,
)
child.stdout.readline()
print(child.pid, flush=True)
time.sleep(600)
"""


def test_a_child_that_loses_its_sigterm_still_ends_after_its_parent_is_killed():
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(PARENT)], cwd=ROOT, stdout=subprocess.PIPE
    )
    child = int(parent.stdout.readline())
    try:
        os.kill(child, signal.SIGTERM)  # lost, as the SIGTERM of its parent's end will be
        time.sleep(0.5)
        assert alive(child)
        parent.kill()
        parent.wait()
        give_up = time.monotonic() + GIVE_UP
        while alive(child):
            assert time.monotonic() < give_up, "the child outlived its parent"
            time.sleep(0.05)
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)
        parent.stdout.close()
