"""Sign-in codes: the one-time codes of the sign-in links emailed to players, and when
each player last asked for one (`service/games/sign_in.py` tells the whole flow).

Keys: `<prefix>:sign-in:<digest of the code>` (`<player id> <expiry, Unix time>`, then
`used` once used, until its expiry) and `<prefix>:player:<id>:sign-in-asked` (the Unix
time of the player's last request, kept for a minute). Only a code's SHA-256 is
stored. A code is found by its digest, as a player's key is: nothing compares the code
itself, so the time a lookup takes tells nothing of any code. Times are the caller's
clock; Redis's own expiry only clears what is over.
"""

from __future__ import annotations

import math
from datetime import datetime

import redis

from .connection import redis_errors
from .players import digest

USED = "used"

# KEYS: the player's sign-in-asked key.  ARGV: now, the seconds between two requests.
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


class SignIns:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._prefix = prefix
        self._ask = client.register_script(ASK)
        self._use = client.register_script(USE)

    def _code(self, code: str) -> str:
        return f"{self._prefix}:sign-in:{digest(code)}"

    def ask(self, player_id: str, now: datetime, every: float) -> bool:
        """Note that the player asked for a sign-in link now; False if they did less
        than `every` seconds ago (nothing is noted then)."""
        key = f"{self._prefix}:player:{player_id}:sign-in-asked"
        with redis_errors():
            return bool(self._ask(keys=[key], args=[now.timestamp(), every]))

    def keep(self, code: str, player_id: str, now: datetime, lifetime: float) -> None:
        """Keep the digest of `code`, a code of the player's for `lifetime` seconds
        from `now`; kept already (even used): nothing changes."""
        held = f"{player_id} {now.timestamp() + lifetime}"
        with redis_errors():
            self._redis.set(self._code(code), held, ex=math.ceil(lifetime), nx=True)

    def use(self, code: str, now: datetime) -> str | None:
        """The player whose code this is, if it was kept, is not used and has not
        expired by `now`; it is used up either way."""
        with redis_errors():
            held = self._use(keys=[self._code(code)])
        if held is None:
            return None
        player_id, expires = held.decode().split(" ")
        return player_id if now.timestamp() < float(expires) else None
