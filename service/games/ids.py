"""Derived ids: how a repeated request or a doubled job is recognised.

Every id that must come out the same when the same thing is done twice is

    uuid5(CLAIM_IDS, "<game id>/<cause>/<key>/<n>")

with `cause` what appends or sends it and `key` what makes it that one:

| cause | key | so that |
|---|---|---|
| `move` | `<seat>/<idempotency key>` | a move re-sent with its key is appended once |
| `ai-turn` | `<version>` | an AI turn played twice (a doubled job) lands once |
| `deadline` | `<version>` | a deadline fired twice times the seat out once |
| `notice` | `<version>/<kind>/<player id>` | a notification is one delivery, however often sent |

`n` numbers the events of one append (0, 1, ...). The event store refuses an event id
it has seen (docs/design.md, Events), and answers the first append instead.
"""

from __future__ import annotations

import uuid

CLAIM_IDS = uuid.UUID("6f1c0e1e-3c57-4d55-9a53-4e0c8f0c7a11")

MOVE = "move"
AI_TURN = "ai-turn"
DEADLINE = "deadline"
NOTICE = "notice"


def derived_ids(game_id: str, cause: str, key: str, count: int = 1) -> list[uuid.UUID]:
    """The ids of the `count` events that `cause` appends to `game_id` for `key`."""
    return [uuid.uuid5(CLAIM_IDS, f"{game_id}/{cause}/{key}/{n}") for n in range(count)]


def derived_id(game_id: str, cause: str, key: str) -> uuid.UUID:
    """The one id that `cause` derives for `key` (see `derived_ids`)."""
    return derived_ids(game_id, cause, key)[0]
