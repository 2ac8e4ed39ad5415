"""Requests counted per client address in fixed windows, for the API's rate limit.

One Lua call counts a request and answers the count and the time left in the window,
so the limit costs each request one round trip, its `X-RateLimit-*` headers included.
Keys: `<prefix>:limits:address:<address>`, each expiring with its window.
"""

from __future__ import annotations

import redis
from redis.commands.core import Script

from .connection import redis_errors

# KEYS: the counter.  ARGV: the window in ms.  Answers the count and the ms left.
COUNT = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
"""
_count = Script(None, COUNT.encode())


class RequestCounts:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._prefix = prefix

    def count(self, address: str, window_ms: int) -> tuple[int, int]:
        """Count one request from `address`: the requests of its window so far, this
        one included, and the milliseconds left in the window."""
        key = f"{self._prefix}:limits:address:{address}"
        with redis_errors():
            counted, left_ms = _count(keys=[key], args=[window_ms], client=self._redis)
        return counted, left_ms
