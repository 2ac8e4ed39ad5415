"""Timers: the moment a game must be looked at again (its deadline, its reminder).

Each kind of timer keeps, in each shard (`shards.py`), a sorted set
`<prefix>:{<kind>:<n>}:due` of game id -> the Unix time it falls due, and a hash
`<prefix>:{<kind>:<n>}:version` of the game version each game's timer was last set (or
cleared) at: a timer is only ever set from a version as
new as that, so that two changes scheduling out of order cannot leave an older
version's timer in place of a newer one's. Both are projections of the streams
(`claim rebuild` writes them again).

Whoever fires timers (`claim worker`) claims the due ones a chunk at a time, the
earliest of all shards first: their
score becomes the end of a lease, so that nobody else takes them meanwhile; firing
sets each game's timer anew. A timer whose firing failed, or whose worker died, falls
due again when its lease runs out.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

import redis
from redis.commands.core import Script

from .connection import redis_errors
from .shards import shard_of, tags

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
        self._shards = [[f"{prefix}:{tag}:due", f"{prefix}:{tag}:version"] for tag in tags(kind)]

    def set(self, game_id: str, version: int, at: datetime | None) -> bool:
        """Set the game's timer to `at` (None: no timer), as of `version`; False if it
        was set from a newer version already, and stays as it is."""
        score = "" if at is None else at.timestamp()
        keys = self._shards[shard_of(game_id)]
        with redis_errors():
            return bool(_set(keys=keys, args=[game_id, version, score], client=self._redis))

    def forget(self, game_ids: list[str]) -> None:
        """Take `game_ids`' timers and the versions they were set at away: the games
        are archived, and nothing sets their timers again."""
        by_shard = defaultdict(list)
        for game_id in game_ids:
            by_shard[shard_of(game_id)].append(game_id)
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for shard, theirs in by_shard.items():  # one key a command: on a cluster too
                due, versions = self._shards[shard]
                pipe.zrem(due, *theirs)
                pipe.hdel(versions, *theirs)
            pipe.execute()

    def claim(self, now: datetime, count: int, lease: float) -> list[tuple[str, int]]:
        """Up to `count` timers due at `now`, the earliest first, leased for `lease`
        seconds: each game id with the version its timer was set at.

        A look at every shard's earliest finds the `count` earliest of all (one round
        trip, and nothing more when nothing is due); then each shard that holds some
        leases its own up to the last of them."""
        moment = now.timestamp()
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for due, _ in self._shards:
                pipe.zrangebyscore(due, "-inf", moment, start=0, num=count, withscores=True)
            earliest = pipe.execute()
        due = {game_id: score for shard in earliest for game_id, score in shard}
        chosen = sorted((score, n) for n, shard in enumerate(earliest) for _, score in shard)
        chosen = chosen[:count]
        claimed = []
        for n in {n for _, n in chosen}:
            mine = [score for score, shard in chosen if shard == n]
            with redis_errors():
                answer = _claim(
                    keys=self._shards[n],
                    args=[mine[-1], len(mine), moment + lease],
                    client=self._redis,
                )
            pairs = zip(answer[::2], answer[1::2], strict=True)
            claimed += [(game_id, int(version)) for game_id, version in pairs]
        claimed.sort(key=lambda pair: due.get(pair[0], moment))
        return [(game_id.decode(), version) for game_id, version in claimed]

    def due(self) -> dict[str, float]:
        """Every timer: game id -> the Unix time it falls due (or its lease ends)."""
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for due, _ in self._shards:
                pipe.zrange(due, 0, -1, withscores=True)
            shards = pipe.execute()
        return {game_id.decode(): score for entries in shards for game_id, score in entries}

    def count(self) -> int:
        """How many games have a timer."""
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for due, _ in self._shards:
                pipe.zcard(due)
            return sum(pipe.execute())

    def version(self, game_id: str) -> int | None:
        """The version the game's timer was last set or cleared at."""
        with redis_errors():
            version = self._redis.hget(self._shards[shard_of(game_id)][1], game_id)
        return None if version is None else int(version)
