"""Each registered player's games, newest joined first: a projection of the streams
(the `SeatJoined` events that name a player, and `SeatRegistered`), for the
play-by-mail inbox.

Key: `<prefix>:player:<id>:games`, a sorted set of game id -> when the player joined.
Adding a game again changes nothing, so the live path and `claim rebuild` may both
write it.
"""

from __future__ import annotations

from datetime import datetime

import redis

from .connection import redis_errors


class PlayerGames:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._prefix = prefix

    def _key(self, player_id: str) -> str:
        return f"{self._prefix}:player:{player_id}:games"

    def add(self, player_id: str, game_id: str, joined_at: datetime) -> None:
        with redis_errors():
            self._redis.zadd(self._key(player_id), {game_id: joined_at.timestamp()})

    def joined(self, player_id: str) -> list[tuple[str, float]]:
        """The player's games, newest joined first, each with when they joined (Unix time)."""
        with redis_errors():
            entries = self._redis.zrevrange(self._key(player_id), 0, -1, withscores=True)
        return [(raw.decode(), joined_at) for raw, joined_at in entries]

    def of(self, player_id: str) -> list[str]:
        """The ids of the player's games, newest joined first."""
        with redis_errors():
            return [raw.decode() for raw in self._redis.zrevrange(self._key(player_id), 0, -1)]

    def forget(self, player_id: str, game_ids: list[str]) -> None:
        """Take `game_ids` off the player's games: the archive lists them now."""
        with redis_errors():
            self._redis.zrem(self._key(player_id), *game_ids)
