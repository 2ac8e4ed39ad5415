"""Rematches: the server's secret, from which a rematch's id and invites are derived
(so that racing callers land on one game, a finished game's rematch is found without
a link stored beside it, and no invite is stored in the clear), and which signs the
codes of sign-in links (`service/games/sign_in.py`).

Keys: `<prefix>:server-secret` (made on first use); `<prefix>:game:{<id>}:rematch`, a
finished game's link to its rematch as earlier versions kept it, deleted when the game
is archived.
"""

from __future__ import annotations

import secrets

import redis

from .connection import redis_errors


class Rematches:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._prefix = prefix
        self._secret: bytes | None = None

    def secret(self) -> bytes:
        """The server's secret, made on first use (and read once per process: it never
        changes)."""
        if self._secret is None:
            key = f"{self._prefix}:server-secret"
            with redis_errors():
                self._redis.set(key, secrets.token_hex(32), nx=True)
                self._secret = bytes.fromhex(self._redis.get(key).decode())
        return self._secret

    def adopt(self, secret: bytes) -> bool:
        """Make `secret` the server's (a deployment restored from a backup); False if
        the server has another one already."""
        key = f"{self._prefix}:server-secret"
        with redis_errors():
            self._redis.set(key, secret.hex(), nx=True)
            kept = bytes.fromhex(self._redis.get(key).decode())
        self._secret = kept
        return kept == secret

    def forget(self, game_ids: list[str]) -> None:
        """Delete the links that earlier versions kept beside the games `game_ids`."""
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.delete(f"{self._prefix}:game:{{{game_id}}}:rematch")
            pipe.execute()
