"""Registered players: a name, an optional email and webhook URL, a key stored hashed,
and the log of the notifications sent to them. (The games each has joined are a
projection of the streams: `player_games.py`.)

Keys: `<prefix>:player:<id>` (a hash), `<prefix>:player-keys` (key digest -> id),
`<prefix>:player:<id>:deliveries` (the notifications sent, newest first, capped). The
key is shown once, at registration or rotation; only its SHA-256 is kept. The webhook
secret signs the notifications sent to the player's URL, so it is kept as it is.

The index of keys and a player's hash may be on two nodes of a cluster, so they are
written one after the other, never in one transaction: the player's `key_hash` is the
truth, and a key that the index maps to a player whose hash holds another opens
nothing (`by_key`). A crash between two writes leaves at worst an entry that opens
nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import asdict, dataclass
from datetime import datetime

import redis

from .connection import redis_errors
from .errors import UnknownPlayer
from .store import utc_now


def digest(secret: str) -> str:
    """The SHA-256 of a secret in hex: all that is stored of a key or token."""
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    """A fresh random secret: 256 bits, URL-safe text."""
    return secrets.token_urlsafe(32)


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    email: str | None
    webhook_url: str | None
    webhook_secret: str
    created_at: datetime


# What became of one attempt to deliver a notification.
DELIVERED = "delivered"
FAILED = "failed"  # an answer other than 2xx, or no answer: tried again later
BLOCKED = "blocked"  # the operator does not allow the destination: not tried
DELIVERY_LOG_LENGTH = 100  # the newest attempts kept per player


@dataclass(frozen=True, slots=True)
class Delivery:
    """One attempt to deliver a notification, as the player's delivery log keeps it:
    no body, no URL but its host."""

    delivery_id: str
    channel: str  # "webhook" or "email"
    kind: str
    game_id: str
    version: int
    host: str | None  # the webhook URL's host, or the email address's domain
    outcome: str  # DELIVERED, FAILED or BLOCKED
    status_code: int | None
    error: str | None
    attempt: int
    at: datetime


class PlayerStore:
    """Players in Redis, next to the games of a `GameStore` with the same prefix."""

    def __init__(self, client: redis.Redis, prefix: str, clock=utc_now):
        self._redis = client
        self._prefix = prefix
        self._clock = clock
        self._keys = f"{prefix}:player-keys"

    def _key(self, player_id: str, *suffix: str) -> str:
        return ":".join((f"{self._prefix}:player:{player_id}", *suffix))

    def register(
        self, name: str, email: str | None = None, webhook_url: str | None = None
    ) -> tuple[Player, str]:
        """A new player and its key (shown once)."""
        player = Player(
            id=secrets.token_hex(8),
            name=name,
            email=email,
            webhook_url=webhook_url,
            webhook_secret=new_secret(),
            created_at=self._clock(),
        )
        key = new_secret()
        fields = {
            "name": name,
            "email": email or "",
            "webhook_url": webhook_url or "",
            "webhook_secret": player.webhook_secret,
            "key_hash": digest(key),
            "created_at": player.created_at.isoformat(),
        }
        with redis_errors():  # the player first: a key that finds nobody opens nothing
            self._redis.hset(self._key(player.id), mapping=fields)
            self._redis.hset(self._keys, digest(key), player.id)
        return player, key

    def get(self, player_id: str) -> Player:
        with redis_errors():
            fields = self._redis.hgetall(self._key(player_id))
        if not fields:
            raise UnknownPlayer(player_id)
        fields = {name.decode(): value.decode() for name, value in fields.items()}
        return Player(
            id=player_id,
            name=fields["name"],
            email=fields["email"] or None,
            webhook_url=fields["webhook_url"] or None,
            webhook_secret=fields["webhook_secret"],
            created_at=datetime.fromisoformat(fields["created_at"]),
        )

    def names(self, player_ids: list[str]) -> dict[str, str]:
        """The names of those of `player_ids` who are registered."""
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hget(self._key(player_id), "name")
            names = pipe.execute()
        return {p: name.decode() for p, name in zip(player_ids, names, strict=True) if name}

    def by_key(self, key: str) -> Player | None:
        """The player whose key this is, or None."""
        hashed = digest(key)
        with redis_errors():
            player_id = self._redis.hget(self._keys, hashed)
            stored = player_id and self._redis.hget(self._key(player_id.decode()), "key_hash")
        if not stored or not hmac.compare_digest(stored.decode(), hashed):
            return None
        return self.get(player_id.decode())

    def update(self, player_id: str, **changes: str | None) -> Player:
        """Change name, email or webhook URL (None clears email and URL)."""
        fields = {name: value or "" for name, value in changes.items()}
        if fields:
            with redis_errors():
                self._redis.hset(self._key(player_id), mapping=fields)
        return self.get(player_id)

    def rotate_key(self, player_id: str) -> str:
        """A new key for the player; the old one opens nothing any more."""
        key = new_secret()
        with redis_errors():
            old = self._redis.hget(self._key(player_id), "key_hash")
            self._redis.hset(self._keys, digest(key), player_id)
            self._redis.hset(self._key(player_id), "key_hash", digest(key))  # the switch
            if old:
                self._redis.hdel(self._keys, old)
        return key

    def log_delivery(self, player_id: str, delivery: Delivery) -> None:
        """Add an attempt to the player's delivery log, dropping the oldest beyond
        DELIVERY_LOG_LENGTH."""
        entry = json.dumps({**asdict(delivery), "at": delivery.at.isoformat()})
        key = self._key(player_id, "deliveries")
        with redis_errors(), self._redis.pipeline(transaction=True) as pipe:
            pipe.lpush(key, entry)
            pipe.ltrim(key, 0, DELIVERY_LOG_LENGTH - 1)
            pipe.execute()

    def deliveries(self, player_id: str) -> list[Delivery]:
        """The player's delivery log, newest first."""
        with redis_errors():
            raw = self._redis.lrange(self._key(player_id, "deliveries"), 0, -1)
        return [_delivery(json.loads(entry)) for entry in raw]


def _delivery(fields: dict) -> Delivery:
    return Delivery(**{**fields, "at": datetime.fromisoformat(fields["at"])})
