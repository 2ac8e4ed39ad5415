"""The expert's analyses of ended games: a projection of the streams, computed by the
workers (`service/games/analyses.py`), kept per game and analysis version.

Key: `<prefix>:game:{<id>}:analysis:<version>`, a hash: `status` (queued, running,
done, failed), `total` (the game's decisions), `touched` (when it was asked for or
last advanced, Unix time), `own` (1 once a player of the game asked for it), `part`
(the first decision of the part queued last), and one field per decision judged, its
index -> its judgement as JSON. It stays in Redis when the game moves to the
archive (a few kilobytes a game); `claim rebuild` drops every one and asks for it again.

And `<prefix>:player:<id>:analyses`, a sorted set of the games whose analysis the
player asked for, by when, while it is under way: the player's places (`reserve`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import redis

from .connection import redis_errors

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
_META = (b"status", b"total", b"touched", b"own", b"part")

# KEYS: the analysis.  ARGV: the game's number of decisions, now, the time before which
# an analysis under way is stale, 1 if asked by a player of the game (else 0).  Answers
# 1 if this call asked for it (none yet, the last one failed, or it has not advanced
# since the stale time: `under_way` tells the same), else 0.
ASK = """
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'done' then return 0 end
local touched = tonumber(redis.call('HGET', KEYS[1], 'touched') or '0')
if status and status ~= 'failed' and touched >= tonumber(ARGV[3]) then return 0 end
redis.call('DEL', KEYS[1])
local new = ARGV[1] == '0' and 'done' or 'queued'
redis.call('HSET', KEYS[1], 'status', new, 'total', ARGV[1], 'touched', ARGV[2],
  'own', ARGV[4], 'part', 0)
return 1
"""
# KEYS: the analysis.  Marks an analysis under way as asked for by a player of the
# game; answers the first decision of its part queued last, or false if it was marked
# already (or is done, or was never asked for).
HURRY = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'done' or status == 'failed' then return false end
if redis.call('HGET', KEYS[1], 'own') == '1' then return false end
redis.call('HSET', KEYS[1], 'own', 1)
return redis.call('HGET', KEYS[1], 'part')
"""
# KEYS: the player's places.  ARGV: the game, the most places, now.  Answers 1 if the
# game holds a place (already, or now), 0 if the player's places are all held.
RESERVE = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('EXPIRE', KEYS[1], 86400)
return 1
"""
# KEYS: the analysis.  ARGV: the new status, now.  Only an analysis asked for and not
# done.
SET_STATUS = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'done' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'touched', ARGV[2])
return 1
"""


class StoredAnalysis(NamedTuple):
    status: str
    total: int
    judged: dict[int, bytes]  # decision index -> its judgement (JSON)
    own: bool  # asked for by a player of the game


class Analyses:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._prefix = prefix
        self._ask = client.register_script(ASK)
        self._set_status = client.register_script(SET_STATUS)
        self._hurry = client.register_script(HURRY)
        self._reserve = client.register_script(RESERVE)

    def _key(self, game_id: str, version: int) -> str:
        return f"{self._prefix}:game:{{{game_id}}}:analysis:{version}"

    def _places(self, player_id: str) -> str:
        return f"{self._prefix}:player:{player_id}:analyses"

    def ask(
        self, game_id: str, version: int, total: int, now: float, stale: float, own: bool
    ) -> bool:
        """Ask at `now` for the analysis of a game of `total` decisions (`own`: by a
        player of the game): True if this call did (it was never asked, it failed, or
        it has not advanced for `stale` seconds: its job lost), False if it is under
        way or done. A game without decisions is done at once."""
        with redis_errors():
            key = self._key(game_id, version)
            return bool(self._ask(keys=[key], args=[total, now, now - stale, int(own)]))

    def under_way(self, game_id: str, version: int, now: float, stale: float) -> bool:
        """Whether the analysis is done, or queued or running and not stale: `ask`
        would not ask for it."""
        return self._progress(game_id, version, now, stale) in (DONE, QUEUED)

    def _progress(self, game_id: str, version: int, now: float, stale: float) -> str | None:
        """DONE, QUEUED (queued or running, and not stale), or None (anything else)."""
        with redis_errors():
            status, touched = self._redis.hmget(self._key(game_id, version), "status", "touched")
        if status == b"done":
            return DONE
        fresh = float(touched or 0) >= now - stale
        return QUEUED if status in (b"queued", b"running") and fresh else None

    def hurry(self, game_id: str, version: int) -> int | None:
        """Mark the analysis under way as asked for by a player of the game: the first
        decision of its part queued last, None if it was marked already (or is not
        under way)."""
        with redis_errors():
            part = self._hurry(keys=[self._key(game_id, version)])
        return None if part is None else int(part)

    def queued_part(self, game_id: str, version: int, start: int) -> None:
        """The analysis's part from decision `start` is queued."""
        with redis_errors():
            self._redis.hset(self._key(game_id, version), "part", start)

    def reserve(
        self, player_id: str, game_id: str, version: int, most: int, now: float, stale: float
    ) -> bool:
        """Hold one of the player's `most` places for the analysis of `game_id`, the
        places of analyses no longer under way freed first: whether one is held."""
        key = self._places(player_id)
        with redis_errors():
            held = [raw.decode() for raw in self._redis.zrange(key, 0, -1)]
            over = [g for g in held if self._progress(g, version, now, stale) != QUEUED]
            if over:
                self._redis.zrem(key, *over)
            return bool(self._reserve(keys=[key], args=[game_id, most, now]))

    def set_status(self, game_id: str, version: int, status: str, now: float) -> bool:
        """`status` at `now` for an analysis asked for and not done; whether it was set."""
        with redis_errors():
            key = self._key(game_id, version)
            return bool(self._set_status(keys=[key], args=[status, now]))

    def judged(self, game_id: str, version: int, index: int, judgement: bytes, now: float):
        """Keep at `now` the judgement of the decision `index` (the same again: no
        change)."""
        with redis_errors():
            mapping = {str(index): judgement, "touched": now}
            self._redis.hset(self._key(game_id, version), mapping=mapping)

    def read(self, game_id: str, version: int) -> StoredAnalysis | None:
        """The analysis as far as it went, or None if it was never asked for."""
        with redis_errors():
            fields = self._redis.hgetall(self._key(game_id, version))
        if not fields:
            return None
        judged = {int(name): value for name, value in fields.items() if name not in _META}
        own = fields.get(b"own") == b"1"
        return StoredAnalysis(fields[b"status"].decode(), int(fields[b"total"]), judged, own)

    def every(self) -> Iterator[tuple[str, int]]:
        """(game id, version) of every analysis stored, in no particular order."""
        pattern = f"{self._prefix}:game:*:analysis:*"
        with redis_errors():
            for key in self._redis.scan_iter(match=pattern, count=1000, _type="hash"):
                text = key.decode()
                game_id = text.split("{", 1)[1].split("}", 1)[0]
                yield game_id, int(text.rsplit(":", 1)[1])

    def drop(self, game_id: str, version: int) -> None:
        with redis_errors():
            self._redis.delete(self._key(game_id, version))
