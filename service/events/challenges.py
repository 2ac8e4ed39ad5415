"""Challenges: one player asks another (or an AI level) for a game with given
settings; the other accepts or declines, the challenger may cancel, and an open one
expires. A small aggregate of its own, beside the games.

Keys: `<prefix>:challenge:{<id>}`, the challenge as JSON (its status changed from
`open` by one script, once: two answers racing, one wins); `<prefix>:player:<id>:
challenges`, a sorted set of the ids of the player's challenges, sent and received,
by creation time. A challenge is kept `KEPT` seconds after it was made (then it
expires in Redis, and leaves the players' sets at their next challenge), so that a
player's stream that reconnects within that time hears of what became of it.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import asdict, dataclass, field
from datetime import datetime

import redis

from .connection import redis_errors

OPEN = "open"
ACCEPTED = "accepted"
DECLINED = "declined"
CANCELLED = "cancelled"
EXPIRED = "expired"
CHALLENGE_STATUSES = (OPEN, ACCEPTED, DECLINED, CANCELLED, EXPIRED)
KEPT = 86_400  # seconds a challenge is kept after it was made, whatever became of it

# KEYS: the challenge.  ARGV: the new status, its time, the game id ("" for none).
# Answers the challenge as it is after (changed, or not: it was not open).
CLOSE = """
local text = redis.call('GET', KEYS[1])
if not text then return false end
local challenge = cjson.decode(text)
if challenge['status'] ~= 'open' then return text end
challenge['status'] = ARGV[1]
challenge['updated_at'] = ARGV[2]
if ARGV[3] ~= '' then challenge['game_id'] = ARGV[3] end
text = cjson.encode(challenge)
redis.call('SET', KEYS[1], text, 'KEEPTTL')
return text
"""


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge from a player to a player or an AI level (`to`: `ai:<level>`), with
    the settings of the game it asks for."""

    id: str
    from_player: str
    to: str
    settings: dict = field(hash=False)
    status: str
    created_at: datetime
    expires_at: datetime
    updated_at: datetime
    game_id: str | None = None

    @property
    def players(self) -> tuple[str, ...]:
        """The players it concerns: the challenger, and the challenged unless an AI."""
        return (self.from_player,) if self.to.startswith("ai:") else (self.from_player, self.to)


class Challenges:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._prefix = prefix
        self._close = client.register_script(CLOSE)

    def _key(self, challenge_id: str) -> str:
        return f"{self._prefix}:challenge:{{{challenge_id}}}"

    def _of(self, player_id: str) -> str:
        return f"{self._prefix}:player:{player_id}:challenges"

    def create(
        self, from_player: str, to: str, settings: dict, at: datetime, expires_at: datetime
    ) -> Challenge:
        """A new open challenge, listed for both players."""
        challenge = Challenge(
            secrets.token_hex(8), from_player, to, settings, OPEN, at, expires_at, at
        )
        now = at.timestamp()
        with redis_errors():
            self._redis.set(self._key(challenge.id), _text(challenge), ex=KEPT)
            for player_id in challenge.players:
                with self._redis.pipeline(transaction=False) as pipe:
                    pipe.zadd(self._of(player_id), {challenge.id: now})
                    pipe.zremrangebyscore(self._of(player_id), "-inf", now - KEPT)
                    pipe.expire(self._of(player_id), KEPT)
                    pipe.execute()
        return challenge

    def get(self, challenge_id: str) -> Challenge | None:
        with redis_errors():
            text = self._redis.get(self._key(challenge_id))
        return None if text is None else _challenge(text)

    def close(
        self, challenge_id: str, status: str, at: datetime, game_id: str | None = None
    ) -> Challenge | None:
        """Move an open challenge to `status` (with its game, if accepted); answer it as
        it is after (with another status if it was not open any more), None if gone."""
        with redis_errors():
            text = self._close(
                keys=[self._key(challenge_id)], args=[status, at.isoformat(), game_id or ""]
            )
        return None if text is None else _challenge(text)

    def of(self, player_id: str) -> list[Challenge]:
        """The player's challenges (sent and received) kept, oldest first."""
        with redis_errors():
            challenge_ids = [raw.decode() for raw in self._redis.zrange(self._of(player_id), 0, -1)]
            if not challenge_ids:
                return []
            texts = self._texts(challenge_ids)
        return [_challenge(text) for text in texts if text is not None]

    def _texts(self, challenge_ids: list[str]) -> list[bytes | None]:
        """Their texts, a GET each (their keys live on different slots of a cluster)."""
        with self._redis.pipeline(transaction=False) as pipe:
            for challenge_id in challenge_ids:
                pipe.get(self._key(challenge_id))
            return pipe.execute()


def _text(challenge: Challenge) -> str:
    body = asdict(challenge)
    for name in ("created_at", "expires_at", "updated_at"):
        body[name] = body[name].isoformat()
    return json.dumps(body)


def _challenge(text: bytes | str) -> Challenge:
    body = json.loads(text)
    for name in ("created_at", "expires_at", "updated_at"):
        body[name] = datetime.fromisoformat(body[name])
    if body.get("game_id") in ("", None):  # cjson writes a missing value as nothing
        body["game_id"] = None
    return Challenge(**body)
