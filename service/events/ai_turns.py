"""The games waiting on an AI seat, scored by when they began to wait: a projection of
the streams, for the sweep that enqueues again an AI turn whose job was lost.

Keys: `<prefix>:{turns}:ai` (the sorted set) and `<prefix>:sweep-lock` (one sweeper
of all workers in each period).
"""

from __future__ import annotations

from datetime import UTC, datetime

import redis

from .connection import redis_errors


class AiTurns:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._waiting = f"{prefix}:{{turns}}:ai"
        self._lock = f"{prefix}:sweep-lock"

    def waiting(self, game_id: str, since: datetime) -> None:
        """The game waits on an AI from `since`."""
        with redis_errors():
            self._redis.zadd(self._waiting, {game_id: since.timestamp()})

    def done(self, game_id: str) -> None:
        """The game waits on no AI."""
        with redis_errors():
            self._redis.zrem(self._waiting, game_id)

    def since(self, game_id: str) -> datetime | None:
        """When the game began to wait on an AI, or None."""
        with redis_errors():
            score = self._redis.zscore(self._waiting, game_id)
        return None if score is None else datetime.fromtimestamp(score, UTC)

    def waiting_since(self, before: datetime) -> list[str]:
        """The games waiting on an AI since `before` or earlier."""
        with redis_errors():
            raw = self._redis.zrangebyscore(self._waiting, "-inf", before.timestamp())
        return [game_id.decode() for game_id in raw]

    def take_sweep(self, seconds: float) -> bool:
        """Whether this caller sweeps now: the first to ask in each `seconds`."""
        with redis_errors():
            return bool(self._redis.set(self._lock, "1", nx=True, px=max(1, int(seconds * 1000))))
