"""How many live streams and long-polls each client address holds open, for the API's
cap on them: each holds a lease while it is open.

Key: `<prefix>:watching:<address>`, a sorted set of lease id -> the Unix time the
lease ends (when its stream must have ended, with a margin), so that a lease whose
process died without giving it back ends by itself. The key expires with its last
lease.
"""

from __future__ import annotations

import uuid

import redis
from redis.commands.core import Script

from .connection import redis_errors

MARGIN = 60.0  # seconds a lease outlives the longest its stream may last

# KEYS: the address's leases.  ARGV: now, the cap, the lease's end, the lease's id.
# Answers 1 if the lease is taken, 0 if the address holds the cap already.
TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2]
redis.call('EXPIREAT', KEYS[1], math.ceil(tonumber(last)))
return 1
"""
_take = Script(None, TAKE.encode())


class WatchLeases:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._prefix = prefix

    def _key(self, address: str) -> str:
        return f"{self._prefix}:watching:{address}"

    def take(self, address: str, cap: int, now: float, seconds: float) -> str | None:
        """A lease for a stream of `address` lasting at most `seconds` from `now`
        (Unix time); None if the address holds `cap` leases already."""
        lease = uuid.uuid4().hex
        args = [now, cap, now + seconds + MARGIN, lease]
        with redis_errors():
            taken = _take(keys=[self._key(address)], args=args, client=self._redis)
        return lease if taken else None

    def give_back(self, address: str, lease: str) -> None:
        with redis_errors():
            self._redis.zrem(self._key(address), lease)

    def held(self, address: str, now: float) -> int:
        """How many leases `address` holds at `now`."""
        with redis_errors():
            return self._redis.zcount(self._key(address), now, "+inf")
