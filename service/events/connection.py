"""The one place that connects to Redis: `Config.redis_url` if set, else the embedded
Redis that `claim serve` runs on the data directory (`service.runtime.embedded_redis`); and the
translation of Redis's errors into `StoreUnavailable`.

A URL may name any node of a Redis Cluster: `connect` asks the node and then answers
redis-py's cluster client, which finds the other nodes and follows the slots as they
move. Every script, transaction and pipeline of the service touches keys of one hash
tag, hence one slot; RQ does not support a cluster, so its queues then need a Redis of
their own (`CLAIM_QUEUE_URL`, `service.games.claim`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from service.config import Config
from service.runtime.embedded_redis import socket_of

from .errors import StoreUnavailable

# Redis's failures; a cluster's client has some of its own (a slot no node serves,
# during a failover) that are not RedisErrors.
FAILURES = (redis.RedisError, redis.exceptions.RedisClusterException)
MAX_CONNECTIONS = 64  # per process: gevent lets many requests ask Redis at once


def connect(config: Config, url: str | None = None) -> redis.Redis | redis.RedisCluster:
    """A client of the Redis at `url`, by default the games' of `config`: its URL, else
    the embedded Redis's socket; a cluster client if that Redis is a cluster's node. It
    holds at most `MAX_CONNECTIONS` (per node of a cluster), a request waiting for one
    when all are busy."""
    url = url or config.redis_url or f"unix://{socket_of(config.data_dir)}"
    if is_cluster(url):
        return redis.RedisCluster.from_url(
            url, max_connections=MAX_CONNECTIONS, connection_pool_class=redis.BlockingConnectionPool
        )
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=MAX_CONNECTIONS, timeout=20)
    return redis.Redis(connection_pool=pool)


def is_cluster(url: str) -> bool:
    """Whether the Redis at `url` is a node of a cluster (StoreUnavailable if it does
    not answer). A unix socket is the embedded Redis's, never a cluster's."""
    if url.startswith("unix:"):
        return False
    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
    try:
        with redis_errors():
            return client.info("cluster").get("cluster_enabled") == 1
    finally:
        client.close()


def relearn(client: redis.Redis | redis.RedisCluster) -> None:
    """After a failure on a cluster: ask it again which node serves which slots (a
    failover moves them), for the next try to find the node that took over. A single
    Redis: nothing to do."""
    if isinstance(client, redis.RedisCluster):
        with contextlib.suppress(*FAILURES):
            client.nodes_manager.initialize()


@contextmanager
def redis_errors() -> Iterator[None]:
    """Any Redis failure inside the block raised as `StoreUnavailable`."""
    try:
        yield
    except FAILURES as error:
        raise StoreUnavailable(f"Redis failed: {error}") from error
