"""Seals: an ended game's final version and hash, signed with the server's key.

    message = b"claim-seal/1\n" + {"game_id":...,"hash":...,"version":...}  (keys sorted)

A seal is made once, when the game ends (`service.games.changes`), and kept under the
game's hash tag (`<prefix>:game:{<id>}:seal`), so that a log changed since no longer
matches it, with the facts its archive row will hold (`archive.row_facts`: the move to
the archive checks the log against the seal instead of folding it); an archived game's
is in its row (`archive.py`). A game that ended before seals existed is sealed at its
first export.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

import orjson
import redis

from .archive import Archive
from .connection import redis_errors
from .keys import PublicKey
from .shapes import check_fields

SEAL_CONTEXT = b"claim-seal/1\n"
SEAL_FIELDS = {"game_id": str, "version": int, "hash": str, "key_id": str, "signature": str}
FACTS = "facts"  # beside a seal kept in Redis: its archive row's facts


@dataclass(frozen=True, slots=True)
class Seal:
    game_id: str
    version: int
    hash: str  # the chain's hash (hex) at `version`, the game's last
    key_id: str
    signature: bytes

    @staticmethod
    def message(game_id: str, version: int, chain_hash: str) -> bytes:
        """What is signed."""
        fields = {"game_id": game_id, "hash": chain_hash, "version": version}
        return SEAL_CONTEXT + orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)

    def body(self) -> dict:
        return {
            "game_id": self.game_id,
            "version": self.version,
            "hash": self.hash,
            "key_id": self.key_id,
            "signature": base64.b64encode(self.signature).decode(),
        }

    @classmethod
    def parse(cls, body: dict) -> Seal:
        """A seal from `body()`'s form, with no other field (ValueError saying what is
        wrong if it is none)."""
        try:
            check_fields(body, SEAL_FIELDS)
        except ValueError as error:
            raise ValueError(f"not a seal: {error}") from None
        try:
            signature = base64.b64decode(body["signature"], validate=True)
        except binascii.Error:
            raise ValueError("not a seal: its signature is not base64") from None
        return cls(body["game_id"], body["version"], body["hash"], body["key_id"], signature)

    def signed_by(self, keys: dict[str, PublicKey]) -> bool:
        """Whether one of `keys` (by id) made this seal."""
        key = keys.get(self.key_id)
        message = self.message(self.game_id, self.version, self.hash)
        return key is not None and key.verifies(self.signature, message)


class Seals:
    """The seals of ended games, one per game, written once; those of archived games
    read from `archive`. And the public halves of every key that sealed a game here
    (`<prefix>:seal-keys`, key id -> the key as `/.well-known/claim-keys` lists it), so
    that a seal stays checkable after the key changed or the games moved here."""

    def __init__(self, client: redis.Redis, prefix: str, archive: Archive | None = None):
        self._redis = client
        self._prefix = prefix
        self._archive = archive
        self._keys = f"{prefix}:seal-keys"
        self._known: set[str] = set()  # the key ids this process wrote to `_keys`

    def _key(self, game_id: str) -> str:
        return f"{self._prefix}:game:{{{game_id}}}:seal"

    def keep(self, seal: Seal, facts: dict | None = None) -> Seal:
        """Keep `seal`, with the `facts` of the game's archive row (`archive.row_facts`),
        unless the game has one already; answer the game's seal."""
        body = seal.body() if facts is None else seal.body() | {FACTS: facts}
        key, body = self._key(seal.game_id), orjson.dumps(body)
        with redis_errors():
            if self._redis.set(key, body, nx=True):
                return seal
        return self.get(seal.game_id) or seal

    def kept(self, game_ids: list[str]) -> dict[str, tuple[Seal, dict | None]]:
        """The seals kept in Redis of those of `game_ids` that have one, each with the
        facts of its game's archive row (None if kept without; one round trip; an
        archived game's is not looked for)."""
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.get(self._key(game_id))
            bodies = pipe.execute()
        parsed = {
            game_id: orjson.loads(body)
            for game_id, body in zip(game_ids, bodies, strict=True)
            if body is not None
        }
        return {game_id: _kept(body) for game_id, body in parsed.items()}

    def get(self, game_id: str) -> Seal | None:
        with redis_errors():
            body = self._redis.get(self._key(game_id))
        if body is not None:
            return _kept(orjson.loads(body))[0]
        archived = self._archive.get([game_id]).get(game_id) if self._archive else None
        if archived is None:
            return None
        chain_hash, signature = archived.hash.hex(), archived.signature
        return Seal(game_id, archived.version, chain_hash, archived.key_id, signature)

    def know(self, key: PublicKey) -> None:
        """Keep `key` among those that sealed games here (once per process)."""
        if key.key_id not in self._known:
            with redis_errors():
                self._redis.hset(self._keys, key.key_id, orjson.dumps(key.listed()))
            self._known.add(key.key_id)

    def known(self) -> list[PublicKey]:
        """Every key kept by `know`, by id."""
        with redis_errors():
            listed = self._redis.hvals(self._keys)
        return sorted((PublicKey.parse(orjson.loads(text)) for text in listed), key=_key_id)

    def forget(self, game_ids: list[str]) -> None:
        """Delete the seals of `game_ids`, archived with them already."""
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.delete(self._key(game_id))
            pipe.execute()


def _kept(body: dict) -> tuple[Seal, dict | None]:
    """A seal as `Seals.keep` kept it, and the facts kept beside it (None if none)."""
    facts = body.pop(FACTS, None)
    return Seal.parse(body), facts


def _key_id(key: PublicKey) -> str:
    return key.key_id
