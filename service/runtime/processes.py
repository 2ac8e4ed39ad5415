"""What the processes that `claim` starts have in common: none outlives its parent.

A process killed with `kill -9` cannot stop its children; the kernel can (Linux's
`PR_SET_PDEATHSIG`): each child asks for SIGTERM when its parent ends, and ends the
way it ends on SIGTERM (gunicorn and RQ gracefully, Redis after writing its file). A
supervisor adopts the orphans of its descendants and reaps them.

A SIGTERM can be lost in a Python process, though: Python runs the handler between
two steps of the main thread, and the exception by which a handler stops the work
(RQ's `StopRequested`) lands wherever that thread was, in any `except Exception`: in
a logging call, once in twelve kills, and the worker lived on without its parent. So
a Python child also watches its parent from a thread (`end_surely_with_parent`), and
kills itself when its parent has been gone for longer than a graceful stop takes.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Collection

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PR_GET_PDEATHSIG = 2
LOOK_EVERY = 0.5  # seconds between two looks at whether the parent is there


def end_with_parent(parent: int) -> None:
    """In a child of `parent`: be sent SIGTERM when the parent ends, and end now if it
    has ended already (before this could ask). Elsewhere than on Linux: nothing."""
    if not sys.platform.startswith("linux"):
        return
    _libc().prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)


def ending_with_this_process() -> Callable[[], None]:
    """For `subprocess.Popen(preexec_fn=...)`: the child ends with the process that
    starts it."""
    _libc()  # loaded here: the child, forked from a process with threads, loads nothing
    return functools.partial(end_with_parent, os.getpid())


def forks_end_with_their_parent() -> None:
    """From now on, every process forked from this one, or from a process forked from
    it (RQ's work horses and schedulers, a worker's lanes), ends with the process that
    forked it: the fork's parent is the one that forks, whoever that is. Once per
    process and its descendants."""
    global _forks_end
    if _forks_end:
        return
    _libc()
    forking: list[int] = []
    os.register_at_fork(
        before=lambda: forking.append(os.getpid()),
        after_in_parent=forking.pop,
        after_in_child=lambda: end_with_parent(forking.pop()),
    )
    _forks_end = True


_forks_end = False  # whether `forks_end_with_their_parent` has been called (inherited)


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def end_surely_with_parent(grace: float) -> None:
    """In a child asked to end with its parent (`end_with_parent`, which an exec
    keeps): a thread that SIGKILLs this process if it still runs `grace` seconds after
    its parent ended, its SIGTERM lost. Call it before handling SIGTERM. Elsewhere (a
    process started by hand, or not on Linux): nothing."""
    if not _asked_to_end_with_parent():
        return
    # Had the parent ended already, its SIGTERM would have ended this process, which
    # has no handler for it yet: the parent now is the one to watch.
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(LOOK_EVERY)
        time.sleep(grace)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def _asked_to_end_with_parent() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    asked = ctypes.c_int(0)
    _libc().prctl(PR_GET_PDEATHSIG, ctypes.byref(asked))
    return asked.value != 0


PR_SET_CHILD_SUBREAPER = 36


def adopt_orphans() -> None:
    """Become the parent of every orphan among this process's descendants (Linux), so
    that they are reaped here (`reap_orphans`) rather than left as zombies to an init
    that may not reap them."""
    if sys.platform.startswith("linux"):
        _libc().prctl(PR_SET_CHILD_SUBREAPER, 1)


def reap_orphans(children: Collection[int]) -> None:
    """Reap every adopted process that has ended, but `children`: those of this
    process's own, whose `Popen` reaps them."""
    while True:
        try:
            ended = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return
        if ended is None or ended.si_pid in children:
            return
        os.waitpid(ended.si_pid, 0)
