"""`/me/stream`: a player's stream of everything that concerns them (their games'
turns, starts and ends, challenges, rematch offers), for programs that play: Server-
Sent Events, or JSON lines with `Accept: application/x-ndjson`."""

from __future__ import annotations

from collections.abc import Iterator

import orjson
from flask import Response, request, stream_with_context
from marshmallow import Schema, fields, validate

from service import games

from .auth import bearer_token
from .client_socket import client_connection
from .fields import QueryInteger
from .games import BEARER, claim, event_stream, keepalive
from .problems import Blueprint
from .sites import REFUSED, refuse_other_sites

blp = Blueprint("player-stream", __name__, description="A player's stream of events")
NDJSON = "application/x-ndjson"
TYPES = [
    "state",
    "your-turn",
    "game-started",
    "game-finished",
    "challenge",
    "challenge-accepted",
    "challenge-declined",
    "challenge-cancelled",
    "challenge-expired",
    "rematch-offered",
]


class PlayerStreamQuerySchema(Schema):
    max_seconds = QueryInteger(
        load_default=3600,
        validate=validate.Range(1, 86_400),
        metadata={"description": "seconds: the stream ends after them, and its client reconnects"},
    )


class PlayerStreamHeadersSchema(Schema):
    accept = fields.String(
        data_key="Accept",
        metadata={"description": f"`{NDJSON}` for JSON lines; else Server-Sent Events"},
    )
    last_event_id = fields.String(
        data_key="Last-Event-ID",
        metadata={
            "description": "the id of the last event seen: after the `state`, what ended"
            " meanwhile (games, challenges) and the rematches offered are told"
        },
    )


@blp.route("/me/stream", methods=["GET"])
@blp.arguments(PlayerStreamQuerySchema, location="query")
@blp.arguments(PlayerStreamHeadersSchema, location="headers")
@blp.response(200, content_type="text/event-stream")
@blp.alt_response(403, **REFUSED)
@blp.doc(
    security=BEARER,
    responses={
        200: {
            "description": "Server-Sent Events (`event:` the type, `data:` JSON, `id:` to"
            " resume from), or with `Accept: application/x-ndjson` one JSON object a line"
            " (`type`, `id` and the data's fields). First `state` (`games`: the open and"
            " running games with `your_turn`, those waiting for you first, 100 at most of"
            " `games_total`; `challenges`: the oldest open ones, 20 at most of"
            " `challenges_total`: `/me/games` and `/me/challenges` page them all); then"
            " `your-turn`, `game-started`, `game-finished`, `challenge`,"
            " `challenge-accepted`, `-declined`, `-cancelled`, `-expired`,"
            " `rematch-offered`; a keep-alive every 15 s (`: keep-alive`, or"
            ' `{"type": "keepalive"}`).',
            "content": {
                "text/event-stream": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string"},
                            "event": {"type": "string", "enum": TYPES},
                            "data": {"type": "string", "description": "JSON"},
                        },
                    }
                },
                NDJSON: {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "type": {"type": "string", "enum": [*TYPES, "keepalive"]},
                            "id": {"type": "string"},
                        },
                    }
                },
            },
        }
    },
)
def stream(args, headers):
    """Everything that concerns you, as it happens: first the situation (`state`),
    then your turns, your games' starts and ends, challenges and rematch offers.
    `Last-Event-ID` tells what was missed since that event. At most
    `CLAIM_PLAYER_STREAMS` (3) open per player (429)."""
    refuse_other_sites(claim().config.public_url)
    events = games.player_stream(
        claim(),
        bearer_token(),
        request.remote_addr,
        games.resume_time(headers.get("last_event_id")),
        args["max_seconds"],
        keepalive(),
        client_connection(),
    )
    if request.accept_mimetypes.best_match(["text/event-stream", NDJSON]) == NDJSON:
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return Response(stream_with_context(_lines(events)), mimetype=NDJSON, headers=headers)
    return event_stream(_server_sent(events))


def _server_sent(events: Iterator[games.PlayerEvent]) -> Iterator[bytes]:
    for event in events:
        if event.id is None:
            yield b": keep-alive\n\n"
        else:
            head = f"id: {event.id}\nevent: {event.type}\ndata: ".encode()
            yield head + orjson.dumps(event.data) + b"\n\n"


def _lines(events: Iterator[games.PlayerEvent]) -> Iterator[bytes]:
    for event in events:
        line = {"type": event.type, **({"id": event.id} if event.id else {}), **event.data}
        yield orjson.dumps(line) + b"\n"
