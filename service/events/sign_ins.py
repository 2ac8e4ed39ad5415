"""One-time codes and the mail slots of addresses: the codes of the links that sign a
new device in (emailed, or shown on a device signed in already) and of the links that
confirm a player's email address, and when each address was last sent a mail of each
kind (`service/games/sign_in.py` tells the whole flow).

Keys: `<prefix>:<kind>:<digest of the code>` (`<player id> <expiry, Unix time>`, then a
word of what it is for if anything, then `used` once used, until its expiry), kinds
`sign-in` and `email-confirmation`; and `<prefix>:email:<digest of the address in
lower case>:<kind>-asked` (the Unix time of the last mail of that kind to the address,
kept for the interval). Only a code's SHA-256 is stored. A code is found by its digest,
as a player's key is: nothing compares the code itself, so the time a lookup takes
tells nothing of any code. Times are the caller's clock; Redis's own expiry only clears
what is over.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

import redis

from .connection import redis_errors
from .players import digest

SIGN_IN = "sign-in"  # a code that gives a new device a key of the player's
CONFIRMATION = "email-confirmation"  # a code that confirms the player's address
USED = "used"

# KEYS: an address's slot of a kind.  ARGV: now, the seconds between two mails.
ASK = """
local last = redis.call('GET', KEYS[1])
if last and tonumber(ARGV[1]) - tonumber(last) < tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', math.ceil(tonumber(ARGV[2])))
return 1
"""
# KEYS: a code's key.  Answers what it held, and leaves it used.
USE = f"""
local held = redis.call('GET', KEYS[1])
if not held or held == '{USED}' then return false end
redis.call('SET', KEYS[1], '{USED}', 'KEEPTTL')
return held
"""


@dataclass(frozen=True, slots=True)
class Held:
    """What a code stands for: the player's id, and a word of what for (no spaces):
    how a sign-in code came (`""`: by email), the digest of the address a confirmation
    code was sent to."""

    player_id: str
    about: str = ""


class SignIns:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._prefix = prefix
        self._ask = client.register_script(ASK)
        self._use = client.register_script(USE)

    def _code(self, kind: str, code: str) -> str:
        return f"{self._prefix}:{kind}:{digest(code)}"

    def ask(self, kind: str, email: str, now: datetime, every: float) -> bool:
        """Note that a mail of `kind` goes to `email` (in any case) now; False if one
        went less than `every` seconds ago (nothing is noted then)."""
        key = f"{self._prefix}:email:{digest(email.lower())}:{kind}-asked"
        with redis_errors():
            return bool(self._ask(keys=[key], args=[now.timestamp(), every]))

    def keep(self, kind: str, code: str, held: Held, now: datetime, lifetime: float) -> None:
        """Keep the digest of `code`, a code of `kind` for `held`, for `lifetime`
        seconds from `now`; kept already (even used): nothing changes."""
        value = f"{held.player_id} {now.timestamp() + lifetime} {held.about}".rstrip()
        with redis_errors():
            self._redis.set(self._code(kind, code), value, ex=math.ceil(lifetime), nx=True)

    def peek(self, kind: str, code: str, now: datetime) -> Held | None:
        """What `code` of `kind` stands for, if it was kept, is not used and has not
        expired by `now`; it is not used up."""
        with redis_errors():
            value = self._redis.get(self._code(kind, code))
        return _held(value, now)

    def use(self, kind: str, code: str, now: datetime) -> Held | None:
        """What `code` of `kind` stands for, as `peek`; it is used up either way."""
        with redis_errors():
            value = self._use(keys=[self._code(kind, code)])
        return _held(value, now)


def _held(value: bytes | None, now: datetime) -> Held | None:
    """What a code's stored value stands for, if it is not used or expired by `now`."""
    if value is None or value.decode() == USED:
        return None
    player_id, expires, *about = value.decode().split(" ", 2)
    return Held(player_id, *about) if now.timestamp() < float(expires) else None
