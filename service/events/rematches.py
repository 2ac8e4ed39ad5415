"""Rematches: the link from a finished game to its rematch, and the server's secret
that derives a rematch's id and invites (so that racing callers land on one game and
no invite is stored in the clear), and the codes of sign-in links
(`service/games/sign_in.py`).

Keys: `<prefix>:game:{<id>}:rematch` (the rematch's id, beside the game's stream) and
`<prefix>:server-secret` (made on first use).
"""

from __future__ import annotations

import secrets

import redis

from .connection import redis_errors


class Rematches:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._prefix = prefix

    def _link(self, game_id: str) -> str:
        return f"{self._prefix}:game:{{{game_id}}}:rematch"

    def link(self, game_id: str, rematch_id: str) -> None:
        with redis_errors():
            self._redis.set(self._link(game_id), rematch_id)

    def of(self, game_id: str) -> str | None:
        """The id of the game's rematch, once someone asked for it."""
        with redis_errors():
            linked = self._redis.get(self._link(game_id))
        return linked.decode() if linked else None

    def secret(self) -> bytes:
        """The server's secret, made on first use."""
        key = f"{self._prefix}:server-secret"
        with redis_errors():
            self._redis.set(key, secrets.token_hex(32), nx=True)
            return bytes.fromhex(self._redis.get(key).decode())
