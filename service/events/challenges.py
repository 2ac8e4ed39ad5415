"""Challenges: one player asks another (or an AI level) for a game with given
settings; the other accepts or declines, the challenger may cancel, and an open one
expires. A small aggregate of its own, beside the games.

Keys: `<prefix>:challenge:{<id>}`, the challenge as JSON (its status changed from
`open` by one script, once: two answers racing, one wins); `<prefix>:player:<id>:
challenges`, a sorted set of the ids of the player's challenges, sent and received,
by creation time. A challenge is kept `KEPT` seconds after it was made (then it
expires in Redis, and leaves the players' sets at their next challenge), so that a
player's stream that reconnects within that time hears of what became of it.

Against floods, `<prefix>:player:<id>:challenges:held`: a hash of the challenges that
hold a place among the player's challenges sent or received, id -> `sent:<to>` (open),
`sent:<to>:game` (accepted) or `received:<from>`, each added by one script that counts
the player's first (`hold`). The application releases a place when its challenge is
declined, cancelled or expired, or once its game has ended.
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
SENT, RECEIVED = "sent:", "received:"  # a held place's direction, then the other player
PAIR, SENT_FULL, RECEIVED_FULL = "pair", "sent", "received"  # why `hold` refused

# KEYS: the player's held places.  ARGV: the challenge's id, its place (`sent:<to>` or
# `received:<from>`), the most places of that direction, the seconds to keep the hash.
# Answers "" once held, "pair" if an open challenge holds `sent:<to>` already, "full"
# if the player holds the most of that direction.
HOLD = """
local direction = string.match(ARGV[2], '^[a-z]+:')
local count = 0
for _, place in ipairs(redis.call('HVALS', KEYS[1])) do
  if direction == 'sent:' and place == ARGV[2] then return 'pair' end
  if string.sub(place, 1, #direction) == direction then count = count + 1 end
end
if count >= tonumber(ARGV[3]) then return 'full' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return ''
"""
# KEYS: the challenger's held places.  ARGV: the challenge's id, its place once accepted.
PLAYING = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
return 1
"""


class PlacesHeld(Exception):
    """No place is left for a new challenge: `reason` is `PAIR`, `SENT_FULL` or
    `RECEIVED_FULL`."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


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
        self._hold = client.register_script(HOLD)
        self._playing = client.register_script(PLAYING)

    def _key(self, challenge_id: str) -> str:
        return f"{self._prefix}:challenge:{{{challenge_id}}}"

    def _of(self, player_id: str) -> str:
        return f"{self._prefix}:player:{player_id}:challenges"

    def _held(self, player_id: str) -> str:
        return f"{self._prefix}:player:{player_id}:challenges:held"

    def hold(self, challenge_id: str, from_player: str, to: str, most: tuple[int, int]) -> str:
        """Hold a place for a new challenge among the challenger's sent (at most
        `most[0]`, one of them to `to`) and the challenged's received (at most
        `most[1]`): "" once both are held, else why not (`PAIR`, `SENT_FULL`,
        `RECEIVED_FULL`; nothing held)."""
        sent, received = f"{SENT}{to}", f"{RECEIVED}{from_player}"
        with redis_errors():
            refused = self._hold(
                keys=[self._held(from_player)], args=[challenge_id, sent, most[0], KEPT]
            ).decode()
            if refused:
                return PAIR if refused == PAIR else SENT_FULL
            if self._hold(keys=[self._held(to)], args=[challenge_id, received, most[1], KEPT]):
                self.release(from_player, [challenge_id])
                return RECEIVED_FULL
        return ""

    def playing(self, challenge: Challenge) -> None:
        """The accepted challenge's place among the challenger's holds no pair any more
        (its game runs): the challenger may challenge the same player again."""
        key = self._held(challenge.from_player)
        with redis_errors():
            self._playing(keys=[key], args=[challenge.id, f"{SENT}{challenge.to}:game"])

    def held(self, player_id: str) -> list[str]:
        """The ids of the challenges holding a place among the player's."""
        with redis_errors():
            return [raw.decode() for raw in self._redis.hkeys(self._held(player_id))]

    def release(self, player_id: str, challenge_ids: list[str]) -> None:
        """The places of `challenge_ids` among the player's are free."""
        if challenge_ids:
            with redis_errors():
                self._redis.hdel(self._held(player_id), *challenge_ids)

    def create(
        self,
        from_player: str,
        to: str,
        settings: dict,
        at: datetime,
        expires_at: datetime,
        most: tuple[int, int] | None = None,
    ) -> Challenge:
        """A new open challenge, listed for both players; with `most`, once a place is
        held for it (`hold`), else PlacesHeld and nothing kept. Written before its
        place is held, so that no count of places takes a place just held for a
        challenge that is gone."""
        challenge = Challenge(
            secrets.token_hex(8), from_player, to, settings, OPEN, at, expires_at, at
        )
        now = at.timestamp()
        with redis_errors():
            self._redis.set(self._key(challenge.id), _text(challenge), ex=KEPT)  # unlisted
            if most is not None and (refused := self.hold(challenge.id, from_player, to, most)):
                self._redis.delete(self._key(challenge.id))
                raise PlacesHeld(refused)
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
        return self.get_many(challenge_ids)

    def get_many(self, challenge_ids: list[str]) -> list[Challenge]:
        """Those of the challenges still kept, in the order of `challenge_ids`."""
        if not challenge_ids:
            return []
        with redis_errors():
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
