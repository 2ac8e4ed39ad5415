"""Server-Sent Events, read line by line (the WHATWG format: `id`, `event`, `data`,
comments): the live streams of a game, of a player and of `/changes`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """One event: its `type` (`view`, `your-turn`, `challenge`...), its JSON `data`, and
    its `id` (what `Last-Event-ID` resumes after; None on streams without)."""

    type: str
    data: Any
    id: str | None = None


def server_sent(lines: Iterable[str]) -> Iterator[StreamEvent]:
    """The events of a Server-Sent Events body, given as lines without their ends."""
    kind, data, event_id = "message", [], None
    for line in lines:
        if not line:  # a blank line ends an event
            if data:
                yield StreamEvent(kind, json.loads("\n".join(data)), event_id)
            kind, data = "message", []
            continue
        if line.startswith(":"):  # a comment: the keep-alive
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            kind = value
        elif field == "data":
            data.append(value)
        elif field == "id":
            event_id = value  # kept for the events after, as browsers do
