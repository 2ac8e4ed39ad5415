"""The hash chain of a game's events: each event carries the hash of the log up to it.

    h[0] = sha256("claim-chain/" + game id)
    h[n] = sha256(h[n-1] || canonical bytes of event n)     (digests as 32 raw bytes)

The canonical bytes of an event are one JSON object, keys sorted at every level, no
spaces, UTF-8 (non-ASCII characters as themselves), of the event as stored (its
schema version and data as written, never upcast, so that a newer schema changes no
hash):

    {"at":"<time as stored>","data":{...},"id":"<uuid>","type":"<name>","v":<schema>,"version":<n>}

The data's private values (what `/events` never shows: the seats' invite hashes, a
seat's token hash, the player a seat belongs to and the salt beside it) are replaced
by one `"private"`: the sha256 (hex) of the canonical JSON of those values, so that an
export can carry the chain without them and the chain still holds them. A seat's
token hash is the hash of a random token, so a `SeatJoined`'s digest cannot be
guessed. A player id is public: a `SeatRegistered` (schema 2) holds a random
`player_salt` beside it, and its digest is HMAC-SHA256 of the player keyed with the
salt's text instead; one of schema 1, made before, keeps its sha256 of the player
alone, which anyone can match to the known players (docs/design.md, Events).

The chain is computed by the fold (`fold.py`), for every game alike: the stream's
format is unchanged, and games older than the chain have one the same way.
"""

from __future__ import annotations

import hashlib
import hmac
from functools import lru_cache
from typing import NamedTuple

import orjson

PRIVATE = "private"  # the key of the private values' digest in canonical data
PLAYER, PLAYER_SALT = "player", "player_salt"
_SORTED = orjson.OPT_SORT_KEYS


class Head(NamedTuple):
    """A game's log up to `version`, as its chain's hash (hex) there."""

    version: int
    hash: str


def genesis(game_id: str) -> bytes:
    """h[0] of the game `game_id`.

    >>> genesis("abc").hex() == hashlib.sha256(b"claim-chain/abc").hexdigest()
    True
    """
    return hashlib.sha256(f"claim-chain/{game_id}".encode()).digest()


def link(previous: bytes, canonical: bytes) -> bytes:
    """h[n] from h[n-1] and the canonical bytes of event n."""
    return hashlib.sha256(previous + canonical).digest()


def canonical(version: int, event_id: str, name: str, schema: int, at: str, data) -> bytes:
    """The canonical bytes of an event (the module's docstring); `data` is the stored
    JSON text (or the dict it holds)."""
    return orjson.dumps(
        {
            "at": at,
            "data": _Fragment(canonical_data(data)),
            "id": event_id,
            "type": name,
            "v": schema,
            "version": version,
        },
        option=_SORTED,
    )


_Fragment = orjson.Fragment  # JSON already canonical, put in as it is


def canonical_data(data) -> bytes:
    """The canonical JSON of an event's stored data, its private values digested."""
    if isinstance(data, dict):
        return _canonical_dict(data)
    return _canonical_text(bytes(data, "utf-8") if isinstance(data, str) else data)


@lru_cache(maxsize=8192)
def _canonical_text(data: bytes) -> bytes:
    # Most of a game's events are decisions, of a few thousand distinct data: each is
    # made canonical once per process, as the codec reads each once.
    return _canonical_dict(orjson.loads(data))


def _canonical_dict(data: dict) -> bytes:
    public, private = without_private(data)
    if private:
        public[PRIVATE] = _digest(private)
    return orjson.dumps(public, option=_SORTED)


def _digest(private: dict) -> str:
    """The digest of an event's private values (the module's docstring)."""
    salt, player = private.get(PLAYER_SALT), private.get(PLAYER)
    if private.keys() == {PLAYER, PLAYER_SALT} and type(salt) is str and type(player) is str:
        return hmac.new(salt.encode(), player.encode(), hashlib.sha256).hexdigest()
    return hashlib.sha256(orjson.dumps(private, option=_SORTED)).hexdigest()


def without_private(data: dict) -> tuple[dict, dict]:
    """The stored data without its private values, and those values (empty if none)."""
    public = dict(data)
    private = {}
    for key in ("token_hash", PLAYER, PLAYER_SALT):
        if key in public:
            private[key] = public.pop(key)
    if isinstance(public.get("seats"), list):  # a GameCreated's seats: their invites
        seats = [dict(seat) for seat in public["seats"] if isinstance(seat, dict)]
        if len(seats) != len(public["seats"]):
            return public, private  # not a GameCreated's: nothing to take out
        invites = [seat.pop("invite_hash", None) for seat in seats]
        public["seats"] = seats
        if any(invite is not None for invite in invites):
            private["invite_hashes"] = invites
    return public, private
