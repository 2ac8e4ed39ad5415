"""Looking at processes the tests start, through /proc (Linux)."""

from __future__ import annotations

import contextlib
from pathlib import Path


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command; None if there is no process."""
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return None


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie has ended)."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def state(pid: int) -> str | None:
    """The process's state letter (R, S, T, Z...), None if there is none."""
    fields = _stat(pid)
    return None if fields is None else fields[0]


def command(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return ""


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, found by parent (some leave its process group)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        fields = _stat(int(stat.parent.name))
        if fields is not None:
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid`."""
    return [child for child in descendants(pid) if (_stat(child) or ["", ""])[1] == str(pid)]


def mentioning(text: str) -> list[int]:
    """The running processes whose command line or environment holds `text` (a data
    directory: its Redis, and whatever was started on it, however late)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            held = (proc / "cmdline").read_bytes() + (proc / "environ").read_bytes()
            if text.encode() in held and alive(int(proc.name)):
                found.append(int(proc.name))
    return found
