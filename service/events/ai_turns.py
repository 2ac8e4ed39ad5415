"""The games waiting on an AI seat, scored by when they began to wait: a projection of
the streams, for the sweep that enqueues again an AI turn whose job was lost.

Keys: `<prefix>:{turns:<n>}:ai`, a sorted set per shard (`shards.py`), and
`<prefix>:sweep-lock` (one sweeper of all workers in each period).
"""

from __future__ import annotations

from datetime import UTC, datetime

import redis

from .connection import redis_errors
from .shards import shard_of, tags


class AiTurns:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._shards = [f"{prefix}:{tag}:ai" for tag in tags("turns")]
        self._lock = f"{prefix}:sweep-lock"

    def _waiting(self, game_id: str) -> str:
        return self._shards[shard_of(game_id)]

    def waiting(self, game_id: str, since: datetime) -> None:
        """The game waits on an AI from `since`."""
        with redis_errors():
            self._redis.zadd(self._waiting(game_id), {game_id: since.timestamp()})

    def done(self, game_id: str) -> None:
        """The game waits on no AI."""
        with redis_errors():
            self._redis.zrem(self._waiting(game_id), game_id)

    def since(self, game_id: str) -> datetime | None:
        """When the game began to wait on an AI, or None."""
        with redis_errors():
            score = self._redis.zscore(self._waiting(game_id), game_id)
        return None if score is None else datetime.fromtimestamp(score, UTC)

    def waiting_since(self, before: datetime) -> list[str]:
        """The games waiting on an AI since `before` or earlier."""
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for shard in self._shards:
                pipe.zrangebyscore(shard, "-inf", before.timestamp())
            shards = pipe.execute()
        return [game_id.decode() for raw in shards for game_id in raw]

    def take_sweep(self, seconds: float) -> bool:
        """Whether this caller sweeps now: the first to ask in each `seconds`."""
        with redis_errors():
            return bool(self._redis.set(self._lock, "1", nx=True, px=max(1, int(seconds * 1000))))
