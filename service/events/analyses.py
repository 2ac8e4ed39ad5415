"""The expert's analyses of ended games: a projection of the streams, computed by the
workers (`service/games/analyses.py`), kept per game and analysis version.

Key: `<prefix>:game:{<id>}:analysis:<version>`, a hash: `status` (queued, running,
done, failed), `total` (the game's decisions), `touched` (when it was asked for or
last advanced, Unix time), and one field per decision judged, its index -> its
judgement as JSON. It stays in Redis when the game moves to the
archive (a few kilobytes a game); `claim rebuild` drops every one and asks for it again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import redis

from .connection import redis_errors

RUNNING, DONE, FAILED = "running", "done", "failed"  # and "queued", set by `ASK`
_META = (b"status", b"total", b"touched")

# KEYS: the analysis.  ARGV: the game's number of decisions, now, the time before which
# an analysis under way is stale.  Answers 1 if this call asked for it (none yet, the
# last one failed, or it has not advanced since the stale time), else 0.
ASK = """
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'done' then return 0 end
local touched = tonumber(redis.call('HGET', KEYS[1], 'touched') or '0')
if status and status ~= 'failed' and touched >= tonumber(ARGV[3]) then return 0 end
redis.call('DEL', KEYS[1])
local new = ARGV[1] == '0' and 'done' or 'queued'
redis.call('HSET', KEYS[1], 'status', new, 'total', ARGV[1], 'touched', ARGV[2])
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


class Analyses:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._prefix = prefix
        self._ask = client.register_script(ASK)
        self._set_status = client.register_script(SET_STATUS)

    def _key(self, game_id: str, version: int) -> str:
        return f"{self._prefix}:game:{{{game_id}}}:analysis:{version}"

    def ask(self, game_id: str, version: int, total: int, now: float, stale: float) -> bool:
        """Ask at `now` for the analysis of a game of `total` decisions: True if this
        call did (it was never asked, it failed, or it has not advanced for `stale`
        seconds: its job lost), False if it is under way or done. A game without
        decisions is done at once."""
        with redis_errors():
            key = self._key(game_id, version)
            return bool(self._ask(keys=[key], args=[total, now, now - stale]))

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
        return StoredAnalysis(fields[b"status"].decode(), int(fields[b"total"]), judged)

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
