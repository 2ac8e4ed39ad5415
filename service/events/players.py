"""Registered players: a name, an optional email and webhook URL, the keys of their
devices stored hashed, and the log of the notifications sent to them. (The games each
has joined are a projection of the streams: `player_games.py`.)

Keys: `<prefix>:player:<id>` (a hash), `<prefix>:player-keys` (key digest -> id),
`<prefix>:player-email:<digest of the address in lower case>` (a set of player ids),
`<prefix>:player:<id>:deliveries` (the notifications sent, newest first, capped). A bot's
hash has `bot` = `1`, set at registration and never changed. A key
is shown once, when it is made; only its SHA-256 is kept. The webhook secret signs the
notifications sent to the player's URL, so it is kept as it is. `email_confirmed` holds
the digest of the address its owner confirmed (`address_digest`): the address is
confirmed while it is the player's address still (a player registered before addresses
were confirmed has none: unconfirmed).

A player's breaks (their correspondence clocks stopped, a bounded number of days a
year) are in the same hash: `break_year`, `break_days` (the days taken that year) and
`break_until` (the end of the last, in seconds since the epoch).

A player has a key per device. The one made at registration is the device `first`,
its digest in the hash's `key_hash` (as players registered before there were devices
have it); each other device `<d>` has `key_hash:<d>` and `device:<d>` (its name and
creation time, JSON) in the same hash.

The indexes (of keys, of email addresses) and a player's hash may be on two nodes of a
cluster, so they are written one after the other, never in one transaction: the
player's hash is the truth. A key opens the player the index names only if one of the
player's key fields holds its digest (`holder`), and an address finds only players
whose hash holds it (`by_email`); so an index entry is written before the hash says
so, and removed after the hash stopped saying so, and a crash between two writes
leaves at worst an entry that opens or finds nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import secrets
from collections.abc import Collection
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta

import redis

from .connection import redis_errors
from .errors import BreakRefused, UnknownDevice, UnknownPlayer
from .store import KEY_REVOKED, changes_channel, utc_now


def digest(secret: str) -> str:
    """The SHA-256 of a secret in hex: all that is stored of a key or token."""
    return hashlib.sha256(secret.encode()).hexdigest()


def address_digest(email: str) -> str:
    """The digest of an email address in lower case: what names it in keys and fields."""
    return digest(email.lower())


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
    bot: bool = False  # a program's account, marked as such everywhere; never changes
    email_confirmed: bool = False  # its owner opened the link mailed to it: mail may go
    push_subscriptions: tuple[PushSubscription, ...] = ()
    # The channels each kind of notification goes by, where the player chose (kind ->
    # channels); a kind not named goes by every channel the player has.
    channels: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PlayerBreak:
    """A player's breaks this year: the days taken of those allowed, and the end of the
    last one (None: none taken)."""

    until: datetime | None
    days_used: int
    days_allowed: int

    def running(self, at: datetime) -> bool:
        return self.until is not None and self.until > at


@dataclass(frozen=True, slots=True)
class PushSubscription:
    """A browser's Web Push subscription (`PushSubscription.toJSON()`), made with the
    key of one of the player's devices: removing the device removes it."""

    id: str  # of the endpoint: the same browser subscribing again is the same one
    endpoint: str
    p256dh: str  # the browser's public key (base64url), which the message is encrypted to
    auth: str  # the browser's authentication secret (base64url)
    device_id: str
    created_at: datetime

    def listed(self) -> dict:
        return {
            "subscription_id": self.id,
            "endpoint": self.endpoint,
            "device_id": self.device_id,
            "created_at": self.created_at,
        }


FIRST_DEVICE = "first"  # the device of the key made at registration
FIRST_DEVICE_NAME = "first key"


@dataclass(frozen=True, slots=True)
class Device:
    """A device of a player: one key (stored hashed), named by the player."""

    id: str
    name: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class KeyHolder:
    """Whose key a key is: the player's, and which of their devices."""

    player: Player
    device_id: str


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


BOTS_KEPT = 100_000  # players whose bot flag a process keeps

# KEYS: a player's hash.  ARGV: the most keys a player may hold, then the fields of the
# new device.  Answers 1 (added), 0 (as many keys as allowed already), -1 (no player).
ADD_DEVICE = """
if redis.call('HEXISTS', KEYS[1], 'name') == 0 then return -1 end
local keys = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if field == 'key_hash' or string.sub(field, 1, 9) == 'key_hash:' then keys = keys + 1 end
end
if keys >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1
"""

# KEYS[1]: the player's hash. ARGV: now and the break's end (seconds since the epoch),
# this year, the days of the break, the days a year allowed. Answers {1, days used this
# year}, or {-1, 0} for no such player, {-2, used} while a break runs, {-3, used} past
# the days allowed.
TAKE_BREAK = """
if redis.call('HEXISTS', KEYS[1], 'name') == 0 then return {-1, 0} end
local used = 0
if redis.call('HGET', KEYS[1], 'break_year') == ARGV[3] then
    used = tonumber(redis.call('HGET', KEYS[1], 'break_days') or '0')
end
if tonumber(redis.call('HGET', KEYS[1], 'break_until') or '0') > tonumber(ARGV[1]) then
    return {-2, used}
end
if used + tonumber(ARGV[4]) > tonumber(ARGV[5]) then return {-3, used} end
used = used + tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 'break_year', ARGV[3], 'break_days', used, 'break_until', ARGV[2],
  'break_length', ARGV[4])
return {1, used}
"""

# KEYS[1]: the player's hash. ARGV: now (seconds since the epoch), this year. Ends the
# break running now, giving back its days not begun (the first counts as begun);
# answers the days used this year, or -1 if no break runs.
END_BREAK = """
local now = tonumber(ARGV[1])
local ends = tonumber(redis.call('HGET', KEYS[1], 'break_until') or '0')
if ends <= now then return -1 end
local used = tonumber(redis.call('HGET', KEYS[1], 'break_days') or '0')
local length = tonumber(redis.call('HGET', KEYS[1], 'break_length') or '0')
local begun = math.max(1, math.ceil((now - (ends - length * 86400)) / 86400))
if redis.call('HGET', KEYS[1], 'break_year') == ARGV[2] then
    used = math.max(0, used - math.max(0, length - begun))
end
redis.call('HSET', KEYS[1], 'break_days', used, 'break_until', ARGV[1])
return used
"""

# KEYS[1]: a player's hash. ARGV: the cap, the subscription's field and its JSON.
# Answers 1 (added), 0 (the same endpoint's, replaced), -1 (no such player), -2 (cap).
ADD_PUSH = """
if redis.call('HEXISTS', KEYS[1], 'name') == 0 then return -1 end
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
  return 0
end
local held = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 5) == 'push:' then held = held + 1 end
end
if held >= tonumber(ARGV[1]) then return -2 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 1
"""

# KEYS: a player's hash.  ARGV: a key field, the digest it must hold, the new digest.
SWITCH_KEY = """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
"""


class PlayerStore:
    """Players in Redis, next to the games of a `GameStore` with the same prefix."""

    def __init__(self, client: redis.Redis, prefix: str, clock=utc_now):
        self._redis = client
        self._prefix = prefix
        self._clock = clock
        self._keys = f"{prefix}:player-keys"
        self._switch_key = client.register_script(SWITCH_KEY)
        self._add_device = client.register_script(ADD_DEVICE)
        self._take_break = client.register_script(TAKE_BREAK)
        self._add_push = client.register_script(ADD_PUSH)
        self._end_break = client.register_script(END_BREAK)
        self._bots: dict[str, bool] = {}  # whether each player is a bot: it never changes

    def _key(self, player_id: str, *suffix: str) -> str:
        return ":".join((f"{self._prefix}:player:{player_id}", *suffix))

    def _email_key(self, email: str) -> str:
        return f"{self._prefix}:player-email:{address_digest(email)}"

    def register(
        self,
        name: str,
        email: str | None = None,
        webhook_url: str | None = None,
        bot: bool = False,
    ) -> tuple[Player, str]:
        """A new player (a bot's account with `bot`) and its key (shown once)."""
        player = Player(
            id=secrets.token_hex(8),
            name=name,
            email=email,
            webhook_url=webhook_url,
            webhook_secret=new_secret(),
            created_at=self._clock(),
            bot=bot,
        )
        key = new_secret()
        fields = {
            "name": name,
            "email": email or "",
            "webhook_url": webhook_url or "",
            "webhook_secret": player.webhook_secret,
            "key_hash": digest(key),
            "created_at": player.created_at.isoformat(),
            **({"bot": "1"} if bot else {}),
        }
        with redis_errors():  # the indexes point at nobody until the player is written
            if email:
                self._redis.sadd(self._email_key(email), player.id)
            self._redis.hset(self._key(player.id), mapping=fields)
            self._redis.hset(self._keys, digest(key), player.id)
        return player, key

    def get(self, player_id: str) -> Player:
        with redis_errors():
            fields = self._redis.hgetall(self._key(player_id))
        if not fields:
            raise UnknownPlayer(player_id)
        return _player(player_id, _texts(fields))

    def names(self, player_ids: list[str]) -> dict[str, str]:
        """The names of those of `player_ids` who are registered."""
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hget(self._key(player_id), "name")
            names = pipe.execute()
        return {p: name.decode() for p, name in zip(player_ids, names, strict=True) if name}

    def bots(self, player_ids: Collection[str]) -> frozenset[str]:
        """Those of `player_ids` who are bots (asked once per process: it never changes)."""
        unknown = [player_id for player_id in set(player_ids) if player_id not in self._bots]
        if unknown:
            with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
                for player_id in unknown:
                    pipe.hmget(self._key(player_id), "bot", "name")
                found = pipe.execute()
            if len(self._bots) > BOTS_KEPT:
                self._bots.clear()
            for player_id, (bot, name) in zip(unknown, found, strict=True):
                if name is not None:  # a player not (yet) here is asked again
                    self._bots[player_id] = bool(bot)
        return frozenset(player_id for player_id in player_ids if self._bots.get(player_id))

    def holder(self, key: str) -> KeyHolder | None:
        """The player whose key this is and the device it is of, or None."""
        hashed = digest(key)
        with redis_errors():
            player_id = self._redis.hget(self._keys, hashed)
            fields = player_id and self._redis.hgetall(self._key(player_id.decode()))
        if not fields:
            return None
        fields = _texts(fields)
        device_id = None
        for field, value in fields.items():  # every one compared: the time tells nothing
            device = _device_of_field(field)
            if device is not None and hmac.compare_digest(value, hashed):
                device_id = device
        if device_id is None:
            return None
        return KeyHolder(_player(player_id.decode(), fields), device_id)

    def by_email(self, email: str) -> list[Player]:
        """The players whose address is `email`, in any case."""
        with redis_errors():
            player_ids = sorted(
                raw.decode() for raw in self._redis.smembers(self._email_key(email))
            )
            with self._redis.pipeline(transaction=False) as pipe:
                for player_id in player_ids:
                    pipe.hgetall(self._key(player_id))
                found = pipe.execute()
        players = [
            _player(p, _texts(fields))
            for p, fields in zip(player_ids, found, strict=True)
            if fields
        ]
        return [player for player in players if (player.email or "").lower() == email.lower()]

    def ids(self) -> list[str]:
        """Every registered player's id, sorted."""
        start = self._key("")
        with redis_errors():
            keys = self._redis.scan_iter(match=f"{start}*", count=1000, _type="hash")
            player_ids = (_text(key).removeprefix(start) for key in keys)
            return sorted(player_id for player_id in player_ids if ":" not in player_id)

    def dump(self, player_id: str) -> dict[str, str]:
        """Everything kept of the player (its hash: name, email, the digests of its
        keys, its devices...), for a backup; UnknownPlayer if none."""
        with redis_errors():
            fields = _texts(self._redis.hgetall(self._key(player_id)))
        if not fields:
            raise UnknownPlayer(player_id)
        return fields

    def restore(self, player_id: str, fields: dict[str, str]) -> bool:
        """Keep the player `dump` gave, with the indexes of its keys and address, unless
        a player of that id is here already; answer whether it was written."""
        with redis_errors():
            if self._redis.exists(self._key(player_id)):
                return False
        with redis_errors():  # the indexes first: they open nothing until the hash holds it
            if fields.get("email"):
                self._redis.sadd(self._email_key(fields["email"]), player_id)
            for field, value in fields.items():
                if _device_of_field(field) is not None:
                    self._redis.hset(self._keys, value, player_id)
            self._redis.hset(self._key(player_id), mapping=fields)
        return True

    def index_emails(self) -> int:
        """Index every player's address again (for players registered before the index
        was kept); answer how many were indexed."""
        start = self._key("")
        indexed = 0
        with redis_errors():
            for key in self._redis.scan_iter(match=f"{start}*", count=1000, _type="hash"):
                player_id = _text(key).removeprefix(start)
                email = ":" not in player_id and self._redis.hget(_text(key), "email")
                if email:
                    self._redis.sadd(self._email_key(email.decode()), player_id)
                    indexed += 1
        return indexed

    def update(self, player_id: str, **changes: str | None) -> Player:
        """Change name, email or webhook URL (None clears email and URL); another
        address than the player's (in any case) is unconfirmed."""
        fields = {name: value or "" for name, value in changes.items()}
        if not fields:
            return self.get(player_id)
        before = self.get(player_id) if "email" in changes else None
        old = before and before.email
        moved = before is not None and (old or "").lower() != (changes["email"] or "").lower()
        with redis_errors():
            if changes.get("email"):
                self._redis.sadd(self._email_key(changes["email"]), player_id)
            self._redis.hset(self._key(player_id), mapping=fields)
            if moved:
                self._redis.hdel(self._key(player_id), "email_confirmed")
            if moved and old:
                self._redis.srem(self._email_key(old), player_id)
        return self.get(player_id)

    def confirm_email(self, player_id: str, confirmed: str) -> Player:
        """Note that the owner of the address whose digest is `confirmed` confirmed it
        for the player: mail may go to it while it is the player's address."""
        with redis_errors():
            self._redis.hset(self._key(player_id), "email_confirmed", confirmed)
        return self.get(player_id)

    def breaks(self, player_id: str, allowed: int) -> PlayerBreak:
        """The player's breaks this year, of `allowed` days."""
        with redis_errors():
            year, days, until = self._redis.hmget(
                self._key(player_id), "break_year", "break_days", "break_until"
            )
        this_year = year is not None and int(year) == self._clock().year
        return PlayerBreak(
            until=datetime.fromtimestamp(int(until), UTC) if until else None,
            days_used=int(days) if this_year and days else 0,
            days_allowed=allowed,
        )

    def take_break(self, player_id: str, days: int, allowed: int) -> PlayerBreak:
        """A break of `days` from now, if no break runs and the year's `allowed` days
        hold it; `BreakRefused` (with the breaks as they are) if not."""
        now = self._clock()
        until = now + timedelta(days=days)
        args = [now.timestamp(), int(until.timestamp()), now.year, days, allowed]
        with redis_errors():
            answer, used = self._take_break(keys=[self._key(player_id)], args=args)
        if answer == -1:
            raise UnknownPlayer(player_id)
        if answer < 0:
            raise BreakRefused(self.breaks(player_id, allowed), running=answer == -2)
        return PlayerBreak(datetime.fromtimestamp(args[1], UTC), used, allowed)

    def end_break(self, player_id: str, allowed: int) -> PlayerBreak | None:
        """End the player's break now (its days not begun given back: the first counts
        as begun); None if none runs."""
        now = self._clock()
        with redis_errors():
            used = self._end_break(
                keys=[self._key(player_id)], args=[int(now.timestamp()), now.year]
            )
        return None if used < 0 else PlayerBreak(now.replace(microsecond=0), used, allowed)

    def devices(self, player_id: str) -> list[Device]:
        """The player's devices, oldest first."""
        with redis_errors():
            fields = _texts(self._redis.hgetall(self._key(player_id)))
        if not fields:
            raise UnknownPlayer(player_id)
        devices = []
        if fields.get("key_hash"):
            created = datetime.fromisoformat(fields["created_at"])
            devices.append(Device(FIRST_DEVICE, FIRST_DEVICE_NAME, created))
        for field, value in fields.items():
            if field.startswith("device:"):
                about = json.loads(value)
                created = datetime.fromisoformat(about["created_at"])
                devices.append(Device(field.removeprefix("device:"), about["name"], created))
        return sorted(devices, key=lambda device: device.created_at)

    def key_count(self, player_id: str) -> int:
        """How many keys the player holds: one per device."""
        with redis_errors():
            fields = self._redis.hkeys(self._key(player_id))
        return sum(_device_of_field(_text(field)) is not None for field in fields)

    def add_device(self, player_id: str, name: str, cap: int) -> tuple[Device, str] | None:
        """A new device of the player and its key (shown once); None if the player
        holds `cap` keys already (nothing is added)."""
        device = Device(secrets.token_hex(8), name, self._clock())
        key = new_secret()
        about = json.dumps({"name": name, "created_at": device.created_at.isoformat()})
        fields = [_key_field(device.id), digest(key), f"device:{device.id}", about]
        with redis_errors():  # the index first: it opens nothing until the hash holds it
            self._redis.hset(self._keys, digest(key), player_id)
            added = self._add_device(keys=[self._key(player_id)], args=[cap, *fields])
            if added != 1:
                self._redis.hdel(self._keys, digest(key))
        if added == -1:
            raise UnknownPlayer(player_id)
        return (device, key) if added == 1 else None

    def add_push(
        self, player_id: str, device_id: str, endpoint: str, p256dh: str, auth: str, cap: int
    ) -> tuple[PushSubscription, bool] | None:
        """The browser's subscription, made with `device_id`'s key, and whether it is
        new (the same endpoint again replaces its keys); None if the player holds `cap`
        subscriptions already."""
        subscription = PushSubscription(
            hashlib.sha256(endpoint.encode()).hexdigest()[:16],
            endpoint,
            p256dh,
            auth,
            device_id,
            self._clock(),
        )
        about = asdict(subscription) | {"created_at": subscription.created_at.isoformat()}
        args = [cap, f"push:{subscription.id}", json.dumps(about)]
        with redis_errors():
            added = self._add_push(keys=[self._key(player_id)], args=args)
        if added == -1:
            raise UnknownPlayer(player_id)
        return None if added == -2 else (subscription, added == 1)

    def remove_push(self, player_id: str, subscription_id: str) -> bool:
        """Remove the subscription; whether there was one."""
        with redis_errors():
            return bool(self._redis.hdel(self._key(player_id), f"push:{subscription_id}"))

    def set_channels(self, player_id: str, channels: dict[str, list[str]]) -> Player:
        """The channels each kind named in `channels` goes by from now on."""
        chosen = {**self.get(player_id).channels, **channels}
        with redis_errors():
            self._redis.hset(self._key(player_id), "channels", json.dumps(chosen, sort_keys=True))
        return self.get(player_id)

    def remove_device(self, player_id: str, device_id: str) -> None:
        """The device's key opens nothing any more, and its push subscriptions are
        gone; UnknownDevice if it has none."""
        field = _key_field(device_id)
        with redis_errors():
            hashed = self._redis.hget(self._key(player_id), field)
            if not hashed:
                raise UnknownDevice(device_id)
            pushes = [
                f"push:{push.id}"
                for push in self.get(player_id).push_subscriptions
                if push.device_id == device_id
            ]
            # The switch (the key field) with the device's subscriptions.
            self._redis.hdel(self._key(player_id), field, f"device:{device_id}", *pushes)
            self._redis.hdel(self._keys, hashed)
            self._revoked(_text(hashed))

    def rotate_key(self, player_id: str, device_id: str, key: str) -> str:
        """A new key for the device whose key `key` is; `key` opens nothing any more.
        UnknownDevice if the device was removed, or its key changed, meanwhile."""
        new = new_secret()
        old = digest(key)
        with redis_errors():
            self._redis.hset(self._keys, digest(new), player_id)
            switch = [_key_field(device_id), old, digest(new)]
            switched = self._switch_key(keys=[self._key(player_id)], args=switch)
            self._redis.hdel(self._keys, old if switched else digest(new))
            if switched:
                self._revoked(old)
        if not switched:
            raise UnknownDevice(device_id)
        return new

    def _revoked(self, hashed: str) -> None:
        """Tell every process that the key of digest `hashed` opens nothing any more:
        the streams it opened end (`watchers.py`)."""
        self._redis.publish(changes_channel(self._prefix), f"{KEY_REVOKED} {hashed}")

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


def _texts(fields: dict[bytes, bytes]) -> dict[str, str]:
    return {name.decode(): value.decode() for name, value in fields.items()}


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _player(player_id: str, fields: dict[str, str]) -> Player:
    return Player(
        id=player_id,
        name=fields["name"],
        email=fields["email"] or None,
        webhook_url=fields["webhook_url"] or None,
        webhook_secret=fields["webhook_secret"],
        created_at=datetime.fromisoformat(fields["created_at"]),
        bot=fields.get("bot") == "1",
        email_confirmed=bool(fields["email"])
        and fields.get("email_confirmed") == address_digest(fields["email"]),
        push_subscriptions=tuple(
            _push(json.loads(value))
            for name, value in sorted(fields.items())
            if name.startswith("push:")
        ),
        channels={
            kind: tuple(channels)
            for kind, channels in json.loads(fields.get("channels", "{}")).items()
        },
    )


def _push(fields: dict) -> PushSubscription:
    return PushSubscription(
        **{**fields, "created_at": datetime.fromisoformat(fields["created_at"])}
    )


def _key_field(device_id: str) -> str:
    """The field of a player's hash that holds the digest of the device's key."""
    return "key_hash" if device_id == FIRST_DEVICE else f"key_hash:{device_id}"


def _device_of_field(field: str) -> str | None:
    """The device whose key's digest the field holds, None for another field."""
    if field == "key_hash":
        return FIRST_DEVICE
    return field.removeprefix("key_hash:") if field.startswith("key_hash:") else None


def _delivery(fields: dict) -> Delivery:
    return Delivery(**{**fields, "at": datetime.fromisoformat(fields["at"])})
