"""Timers: the moment a game must be looked at again (its deadline, its reminder).

Each kind of timer keeps a sorted set, `<prefix>:{<kind>}:due`, of game id -> the Unix
time it falls due, and a hash, `<prefix>:{<kind>}:version`, of the game version each
game's timer was last set (or cleared) at: a timer is only ever set from a version as
new as that, so that two changes scheduling out of order cannot leave an older
version's timer in place of a newer one's. Both are projections of the streams
(`claim rebuild` writes them again).

Whoever fires timers (`claim worker`) claims the due ones a chunk at a time: their
score becomes the end of a lease, so that nobody else takes them meanwhile; firing
sets each game's timer anew. A timer whose firing failed, or whose worker died, falls
due again when its lease runs out.
"""

from __future__ import annotations

from datetime import datetime

import redis
from redis.commands.core import Script

from .connection import redis_errors

# KEYS: due, versions.  ARGV: game id, version, score ("" to remove).
SET = """
local known = tonumber(redis.call('HGET', KEYS[2], ARGV[1]))
if known and known > tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
"""

# KEYS: due, versions.  ARGV: now, how many at most, the end of the lease.
# Answers game id, version, game id, version...
CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
local claimed = {}
for _, id in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[3], id)
  table.insert(claimed, id)
  table.insert(claimed, redis.call('HGET', KEYS[2], id) or '0')
end
return claimed
"""
_set, _claim = Script(None, SET.encode()), Script(None, CLAIM.encode())  # any client


class Timers:
    """The timers of one `kind` (`deadlines`, `reminders`)."""

    def __init__(self, client: redis.Redis, prefix: str, kind: str):
        self.kind = kind
        self._redis = client
        self._keys = [f"{prefix}:{{{kind}}}:due", f"{prefix}:{{{kind}}}:version"]

    def set(self, game_id: str, version: int, at: datetime | None) -> bool:
        """Set the game's timer to `at` (None: no timer), as of `version`; False if it
        was set from a newer version already, and stays as it is."""
        score = "" if at is None else at.timestamp()
        with redis_errors():
            return bool(_set(keys=self._keys, args=[game_id, version, score], client=self._redis))

    def claim(self, now: datetime, count: int, lease: float) -> list[tuple[str, int]]:
        """Up to `count` timers due at `now`, leased for `lease` seconds: each game id
        with the version its timer was set at."""
        moment = now.timestamp()
        with redis_errors():
            claimed = _claim(
                keys=self._keys, args=[moment, count, moment + lease], client=self._redis
            )
        pairs = zip(claimed[::2], claimed[1::2], strict=True)
        return [(game_id.decode(), int(version)) for game_id, version in pairs]

    def due(self) -> dict[str, float]:
        """Every timer: game id -> the Unix time it falls due (or its lease ends)."""
        with redis_errors():
            entries = self._redis.zrange(self._keys[0], 0, -1, withscores=True)
        return {game_id.decode(): score for game_id, score in entries}

    def count(self) -> int:
        """How many games have a timer."""
        with redis_errors():
            return self._redis.zcard(self._keys[0])

    def version(self, game_id: str) -> int | None:
        """The version the game's timer was last set or cleared at."""
        with redis_errors():
            version = self._redis.hget(self._keys[1], game_id)
        return None if version is None else int(version)
