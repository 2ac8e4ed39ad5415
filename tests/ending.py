"""Nothing the tests start outlives them (a pytest plugin, loaded by the root conftest):
a run ended by SIGTERM or SIGKILL, as CI's time limit ends it, leaves no process.

Each test process ends with its parent: an xdist worker with the session's first
process, and every process a test starts (`subprocess.Popen` from the main thread,
unless it sets a `preexec_fn` of its own) with the test process, by Linux's parent-death
signal, as `claim serve`'s own children do (`service.runtime.processes`); a `claim
serve` so ended stops its children in turn. (A parent-death signal comes when the
thread that started the child ends: one started from another thread is left as it is.)
"""

from __future__ import annotations

import functools
import os
import subprocess
import threading

from service.runtime.processes import end_with_parent, ending_with_this_process


def pytest_configure(config) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: the session's first process started it
        end_with_parent(os.getppid())
    if not hasattr(subprocess.Popen.__init__, "ending_with_the_tests"):
        subprocess.Popen.__init__ = _ending_with_this_process(subprocess.Popen.__init__)


def _ending_with_this_process(start):
    @functools.wraps(start)
    def __init__(self, *args, preexec_fn=None, **kwargs):
        if preexec_fn is None and threading.current_thread() is threading.main_thread():
            preexec_fn = ending_with_this_process()
        start(self, *args, preexec_fn=preexec_fn, **kwargs)

    __init__.ending_with_the_tests = True
    return __init__
