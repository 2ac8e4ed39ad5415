"""The one place that connects to Redis: `Config.redis_url` if set, else the embedded
Redis that `claim serve` runs on the data directory (`service.embedded_redis`); and the
translation of Redis's errors into `StoreUnavailable`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import redis

from service.config import Config
from service.embedded_redis import socket_of

from .errors import StoreUnavailable

MAX_CONNECTIONS = 64  # per process: gevent lets many requests ask Redis at once


def connect(config: Config, url: str | None = None) -> redis.Redis:
    """A client of the Redis at `url`, by default the games' of `config`: its URL, else
    the embedded Redis's socket. It holds at most `MAX_CONNECTIONS`, a request waiting
    for one when all are busy."""
    url = url or config.redis_url or f"unix://{socket_of(config.data_dir)}"
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=MAX_CONNECTIONS, timeout=20)
    return redis.Redis(connection_pool=pool)


@contextmanager
def redis_errors() -> Iterator[None]:
    """Any Redis failure inside the block raised as `StoreUnavailable`."""
    try:
        yield
    except redis.exceptions.RedisError as error:
        raise StoreUnavailable(f"Redis failed: {error}") from error
