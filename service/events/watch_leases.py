"""How many live streams and long-polls each client address holds open, for the API's
cap on them: each holds a lease while it is open.

Key: `<prefix>:watching:<address>`, a sorted set of lease id -> the Unix time the
lease ends. A lease lasts `TTL` seconds; the process that took it renews every lease
it holds each `RENEW` seconds (one pipeline, in the background) until it gives it
back, so that the lease of a process that died ends by itself within `TTL` seconds.
The key expires with its last lease.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import redis
from redis.commands.core import Script

from .connection import redis_errors
from .errors import StoreUnavailable

log = logging.getLogger(__name__)
TTL = 15.0  # seconds a lease lasts unless renewed
RENEW = 5.0  # seconds between two renewals: a lease outlives two that failed

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


@dataclass(frozen=True, slots=True)
class WatchLease:
    """One open stream's or long-poll's place among its address's."""

    address: str
    id: str


class WatchLeases:
    """The leases of every process, and the ones this process holds and renews."""

    def __init__(self, client: redis.Redis, prefix: str, clock: Callable[[], datetime]):
        self._redis = client
        self._prefix = prefix
        self._clock = clock
        self._held: set[WatchLease] = set()
        self._lock = threading.Lock()
        self._renewing_in: int | None = None  # the process whose renewer runs
        self._closed = threading.Event()

    def _key(self, address: str) -> str:
        return f"{self._prefix}:watching:{address}"

    def take(self, address: str, cap: int) -> WatchLease | None:
        """A lease for a stream of `address`, held (and renewed) until given back; None
        if the address holds `cap` leases already."""
        self._renew_in_background()
        lease, now = WatchLease(address, uuid.uuid4().hex), self._clock().timestamp()
        with redis_errors():
            taken = _take(
                keys=[self._key(address)], args=[now, cap, now + TTL, lease.id], client=self._redis
            )
        if not taken:
            return None
        with self._lock:
            self._held.add(lease)
        return lease

    def give_back(self, lease: WatchLease) -> None:
        with self._lock:
            self._held.discard(lease)
        with redis_errors():
            self._redis.zrem(self._key(lease.address), lease.id)

    def renew(self) -> None:
        """Every lease this process holds ends `TTL` seconds from now; one given back
        meanwhile stays given back."""
        with self._lock:
            held = list(self._held)
        if not held:
            return
        by_address: dict[str, list[str]] = {}
        for lease in held:
            by_address.setdefault(lease.address, []).append(lease.id)
        end = self._clock().timestamp() + TTL
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for address, ids in by_address.items():
                pipe.zadd(self._key(address), dict.fromkeys(ids, end), xx=True)
                pipe.expireat(self._key(address), math.ceil(end))
            pipe.execute()

    def held(self, address: str) -> int:
        """How many leases `address` holds now, in every process."""
        with redis_errors():
            return self._redis.zcount(self._key(address), self._clock().timestamp(), "+inf")

    def close(self) -> None:
        """Stop renewing (the leases still held end `TTL` seconds after their last
        renewal)."""
        self._closed.set()

    def _renew_in_background(self) -> None:
        """Start the renewer, once per process (a forked child starts its own)."""
        with self._lock:
            if self._renewing_in == os.getpid():
                return
            self._renewing_in = os.getpid()
        threading.Thread(target=self._renew_forever, name="watch-leases", daemon=True).start()

    def _renew_forever(self) -> None:
        while not self._closed.wait(RENEW):
            try:
                self.renew()
            except StoreUnavailable as error:  # again at the next turn, well before they end
                log.warning("the watch leases were not renewed: %s", error)
