"""Derived ids: how a repeated request or a doubled job is recognised.

Every id that must come out the same when the same thing is done twice is

    uuid5(<the namespace of its cause>, "<game id>/<key>")

with the cause what appends or sends it and the key what makes it that one:

| cause | key | so that |
|---|---|---|
| `MOVE` | `<seat>/<idempotency key>` | a move re-sent with its key is appended once |
| `AI_TURN` | `<version>` | an AI turn played twice (a doubled job) lands once |
| `DEADLINE` | `<version>/<n>` | a deadline fired twice times the seat out once |
| `NOTICE` | `<version>/<kind>/<player id>` | a notification is one delivery |
| `CHALLENGE` | `seat/<n>` | an accepted challenge seats its players once |

A rematch's id and its invites are derived too, from the finished game's id with the
server's secret (`derive`): racing callers land on one rematch, which is found
without a link stored anywhere (`rematch_id`); so is an accepted challenge's game's id,
from the challenge's.

A deadline appends several events at once: its key ends with `n`, the event's place in
the append (0, 1, ...). The event store refuses an event id it has seen and answers
the first append instead (docs/design.md, Events). These formulas are those the
stored games and sent notifications already carry: changing one would make a retry
sent across a deploy count twice.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid

MOVE = uuid.UUID("6f1c0e1e-3c57-4d55-9a53-4e0c8f0c7a11")
AI_TURN = uuid.UUID("0d3e8c53-59c8-4c1a-8a55-7b2a3d4c9f60")
DEADLINE = uuid.UUID("4b7f2d0e-8a41-4f5c-9f0b-2c6e1d8a7b35")
NOTICE = uuid.UUID("9c2f5a61-3e7d-4b08-a4d2-6f1e8b3c7a90")
CHALLENGE = uuid.UUID("2a8d4e17-6b3c-4f91-8e25-c7d1f0a9b462")


def derived_id(game_id: str, cause: uuid.UUID, key: str) -> uuid.UUID:
    """The id that `cause` derives for `key` in `game_id`."""
    return uuid.uuid5(cause, f"{game_id}/{key}")


def derived_ids(game_id: str, cause: uuid.UUID, key: str, count: int) -> list[uuid.UUID]:
    """The ids of the `count` events that `cause` appends at once for `key`."""
    return [derived_id(game_id, cause, f"{key}/{n}") for n in range(count)]


def derive(secret: bytes, text: str) -> bytes:
    """HMAC-SHA256 of `text` with the server's secret."""
    return hmac.new(secret, text.encode(), hashlib.sha256).digest()


def rematch_id(secret: bytes, game_id: str) -> str:
    """The id of the rematch of `game_id`."""
    return derive(secret, f"rematch/{game_id}").hex()[:16]
