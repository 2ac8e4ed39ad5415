"""What the benchmarks share: a Redis to measure on, and finding worker processes."""

from __future__ import annotations

import contextlib
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

import redis

from service.events.connection import embedded


@contextmanager
def redis_url():
    """REDIS_URL, else the URL of an embedded Redis in a temporary directory."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    with tempfile.TemporaryDirectory(prefix="claim-bench-") as directory:
        server = embedded(Path(directory))
        try:
            yield f"unix://{server.socket_file}"
        finally:
            server.shutdown()


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, found by parent: RQ's work horses leave their
    parent's process group."""
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


def delete_keys(connection: redis.Redis, prefix: str) -> None:
    """Delete every key under `prefix:`, a thousand at a time."""
    keys = list(connection.scan_iter(match=f"{prefix}:*", count=1000))
    for at in range(0, len(keys), 1000):
        connection.delete(*keys[at : at + 1000])
