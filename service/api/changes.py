"""`/changes`: one live stream telling which of many games changed, and the lobby, for
a client that reads them itself (a browser's tabs sharing one connection)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import orjson
from flask import request
from marshmallow import ValidationError, fields

from service import games

from .auth import bearer_token
from .client_socket import client_connection
from .fields import QueryFlag
from .games import BEARER, StreamQuerySchema, claim, event_stream, keepalive
from .problems import Blueprint
from .sites import REFUSED, refuse_other_sites

blp = Blueprint("changes", __name__, url_prefix="/changes", description="Which games changed, live")
MAX_GAMES = 50  # games one stream of changes watches at most
GAME_IDS = re.compile(rf"{games.GAME_ID.pattern}(?:,{games.GAME_ID.pattern}){{0,{MAX_GAMES - 1}}}")


class GameIds(fields.String):
    """Game ids, comma-separated, each once (the first time)."""

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if not GAME_IDS.fullmatch(text):
            raise ValidationError(f"1 to {MAX_GAMES} game ids, comma-separated")
        return tuple(dict.fromkeys(text.split(",")))


class ChangesQuerySchema(StreamQuerySchema):
    games = GameIds(
        load_default=tuple,
        metadata={
            "pattern": f"^{GAME_IDS.pattern}$",
            "description": f"the games to watch, comma-separated, {MAX_GAMES} at most; one"
            " that does not exist is never told (until it does)",
            "example": "5f0c3a9e1b2d4c6f,9a1e7b3c5d2f4e60",
        },
    )
    lobby = QueryFlag(load_default=False, metadata={"description": "tell when the lobby changes"})


@blp.route("", methods=["GET"])
@blp.arguments(ChangesQuerySchema, location="query")
@blp.response(200, content_type="text/event-stream")
@blp.alt_response(403, **REFUSED)
@blp.doc(
    security=[{}, *BEARER],
    responses={
        200: {
            "description": "Server-Sent Events: first a `game` event for each game listed"
            ' that exists, its data `{"game_id": "...", "version": 57}` (its version now),'
            " then `ready` (data `{}`); then a `game` event whenever a game listed has a"
            " new version (several in a burst: the newest only) or its view changed"
            " beside it (a finished game's rematch or ratings: the same version again),"
            " and with `lobby=true` a `lobby` event (data `{}`) when the lobby changed,"
            " at most one in 2 s (a change meanwhile is told at their end); a"
            " `: keep-alive` comment every 15 s. No `id`: a client that reconnects is"
            " sent every version again, and re-reads the lobby at `ready`.",
            "content": {
                "text/event-stream": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "event": {"type": "string", "enum": ["game", "ready", "lobby"]},
                            "data": {"type": "string", "description": "JSON"},
                        },
                    }
                }
            },
        }
    },
)
def changes(args):
    """Which of the games listed change, and the lobby (Server-Sent Events).

    Their versions now, then each game's new versions as they come, until
    `max_seconds`. Versions are public: no credential, but another site's page may not
    open one without a player key (403). When told, read the game's view
    (`GET /games/{id}`) or the lobby: one stream serves every game a client shows."""
    refuse_other_sites(claim().config.public_url)
    news = games.watch_changes(
        claim(),
        args["games"],
        args["lobby"],
        request.remote_addr,
        args["max_seconds"],
        keepalive(),
        connection=client_connection(),
        token=bearer_token(),
    )
    return event_stream(server_sent(news))


def server_sent(news: Iterator[games.News]) -> Iterator[bytes]:
    """The news as Server-Sent Events: `game`, `ready` and `lobby` events, and
    keep-alive comments."""
    for item in news:
        if item.kind == games.KEEP_ALIVE:
            yield b": keep-alive\n\n"
        else:
            data = {"game_id": item.game_id, "version": item.version} if item.game_id else {}
            yield f"event: {item.kind}\ndata: ".encode() + orjson.dumps(data) + b"\n\n"
