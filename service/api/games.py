"""`/games`: create, list, join, watch and play games."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

from flask import Response, current_app, request, stream_with_context, url_for
from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service import games
from service.games import (
    AI,
    AI_LEVELS,
    DEFAULT_JOIN_TIME_LIMIT,
    DEFAULT_TIMEOUT_POLICY,
    FINAL_TIMEOUT_POLICIES,
    HUMAN,
    MAX_TIMEOUT_LIMIT,
    PRESET_NAMES,
    STATUSES,
    TAKEOVER,
    TIMEOUT_LIMIT,
    TIMEOUT_POLICIES,
    Claim,
)

from .auth import bearer_required, bearer_token
from .client_socket import client_connection
from .fields import MAX_VERSION, Flag, Name, QueryFlag, QueryInteger, QueryNumber, Text, WholeNumber
from .lobby import LobbyPageSchema
from .problems import Blueprint
from .sites import REFUSED, refuse_other_sites
from .view import GameViewSchema, HeadSchema, game_view, head_body, json_response, view_json

blp = Blueprint("games", __name__, url_prefix="/games", description="Create, join and play games")
BEARER = [{"bearer": []}]
MAX_WAIT = 60  # seconds a long-poll may hold a request
MIN_MOVE_TIME, MAX_MOVE_TIME = 30, 14 * 24 * 3600
MIN_JOIN_TIME, MAX_JOIN_TIME = 60, 30 * 24 * 3600


def claim() -> Claim:
    """The application this app serves."""
    return current_app.extensions["claim"]


class Factions(fields.Field):
    """A preset name, or a list of faction codes."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str) and value in PRESET_NAMES:
            return value
        if isinstance(value, list) and all(isinstance(code, str) for code in value):
            return value
        raise ValidationError(f"a preset ({', '.join(PRESET_NAMES)}) or a list of faction codes")


class SeatRequestSchema(Schema):
    kind = fields.String(required=True, validate=validate.OneOf((HUMAN, AI)))
    level = fields.String(validate=validate.OneOf(AI_LEVELS), metadata={"description": "AI only"})

    @validates_schema
    def _level_for_ai_only(self, data, **kwargs):
        if (data.get("kind") == AI) != ("level" in data):
            raise ValidationError("an AI seat has a level and a human seat has none", "level")


class TurnSettingsSchema(Schema):
    """Who leads first and the time of a move: what a game and a challenge both set."""

    first_leader = fields.Integer(strict=True, load_default=0, validate=validate.Range(0, 3))
    move_time_limit = fields.Integer(
        strict=True,
        load_default=None,
        allow_none=True,
        validate=validate.Range(MIN_MOVE_TIME, MAX_MOVE_TIME),
        metadata={"description": "seconds a person has for each decision; null for none"},
    )
    timeout_policy = fields.String(
        load_default=DEFAULT_TIMEOUT_POLICY,
        validate=validate.OneOf(TIMEOUT_POLICIES),
        metadata={
            "description": "when the move time runs out: `ai:<level>` decides that move,"
            " `takeover:<level>` decides that move too, and at `timeout_limit` timeouts"
            " of the seat in a row applies `final_timeout_policy`; `forfeit` ends the game"
            " against the seat's side (a rated game's only policy)"
        },
    )
    timeout_limit = fields.Integer(
        strict=True,
        load_default=TIMEOUT_LIMIT,
        validate=validate.Range(1, MAX_TIMEOUT_LIMIT),
        metadata={
            "description": "with `takeover:<level>`: the timeouts of a seat in a row (the"
            " person deciding or taking the seat back breaks a row) at which"
            " `final_timeout_policy` applies"
        },
    )
    final_timeout_policy = fields.String(
        load_default=TAKEOVER,
        validate=validate.OneOf(FINAL_TIMEOUT_POLICIES),
        metadata={
            "description": "with `takeover:<level>`, at `timeout_limit`: `takeover` has the"
            " AI play the seat until its person takes it back, `forfeit` ends the game"
            " against the seat's side"
        },
    )


class CreateGameSchema(TurnSettingsSchema):
    players = fields.Integer(required=True, strict=True, validate=validate.Range(2, 4))
    factions = Factions(
        load_default=games.RANDOM,
        metadata={
            "oneOf": [
                {"type": "string", "enum": list(PRESET_NAMES)},
                {"type": "array", "items": {"type": "string", "example": "GO"}},
            ],
            "description": "a preset (claim and claim2 are 2-player decks) or faction codes",
        },
    )
    seats = fields.List(
        fields.Nested(SeatRequestSchema),
        load_default=None,
        metadata={"description": "one per player; default: all human"},
    )
    join_time_limit = fields.Integer(
        strict=True,
        load_default=DEFAULT_JOIN_TIME_LIMIT,
        allow_none=True,
        validate=validate.Range(MIN_JOIN_TIME, MAX_JOIN_TIME),
        metadata={"description": "seconds for every seat to be taken, else the game is aborted"},
    )
    public = Flag(
        load_default=False,
        metadata={
            "description": "anybody may take its people's seats from the lobby, without an"
            " invite (none is made)"
        },
    )
    rated = Flag(
        load_default=False,
        metadata={
            "description": "its result moves the ratings: its human seats are for registered"
            " players only (join with your player key)"
        },
    )


class InviteSchema(Schema):
    seat = fields.Integer()
    invite = fields.String(metadata={"description": "give it to the person of that seat"})


class CreatedSchema(Schema):
    game_id = fields.String()
    version = fields.Integer()
    head = fields.Nested(HeadSchema)
    status = fields.String()
    commitment = fields.String(metadata={"description": "sha256(salt || deck), hex"})
    invites = fields.List(fields.Nested(InviteSchema))


class LobbyQuerySchema(Schema):
    status = fields.String(load_default="open", validate=validate.OneOf(STATUSES))
    players = QueryInteger(
        validate=validate.OneOf((2, 3, 4)), metadata={"description": "games of 2, 3 or 4 only"}
    )
    rated = QueryFlag(metadata={"description": "rated games only (true), or unrated (false)"})
    public = QueryFlag(
        metadata={"description": "public games only (true), or games by invite (false)"}
    )
    # A page merges the lobby's shards' first offset + limit games: the offset is kept
    # within what that costs little.
    offset = QueryInteger(load_default=0, validate=validate.Range(0, 10_000))
    limit = QueryInteger(load_default=20, validate=validate.Range(1, 100))


class JoinSchema(Schema):
    invite = Text(
        load_default=None,
        validate=validate.Length(1, 200),
        metadata={"description": "the seat's invite; none for a public game's seat"},
    )
    name = Name(metadata={"description": "required unless a player key is sent (its name is used)"})


class JoinedSchema(Schema):
    game_id = fields.String()
    seat = fields.Integer()
    token = fields.String(
        metadata={"description": "send as `Authorization: Bearer <token>`; shown once"}
    )
    view = fields.Nested(GameViewSchema)


class ViewQuerySchema(Schema):
    after = QueryInteger(
        validate=validate.Range(0, MAX_VERSION),
        metadata={"description": "long-poll: answer once the version is above this one"},
    )
    wait = QueryNumber(
        load_default=0,
        validate=validate.Range(0, MAX_WAIT),
        metadata={"description": "long-poll: seconds to wait at most"},
    )


class MoveSchema(Schema):
    move = fields.String(
        required=True,
        validate=validate.Length(1, 20),
        metadata={"example": "play GO3", "description": "play <card>, take <card>, take deck"},
    )
    expected_version = WholeNumber(
        required=True, validate=validate.Range(1, MAX_VERSION), metadata={"example": 17}
    )


class IdempotencySchema(Schema):
    idempotency_key = fields.String(
        data_key="Idempotency-Key",
        required=True,
        validate=validate.Length(1, 200),
        metadata={"description": "any unique text; a repeated key repeats the first answer"},
    )


class MovedSchema(Schema):
    version = fields.Integer()
    head = fields.Nested(HeadSchema)
    view = fields.Nested(GameViewSchema)


@blp.route("", methods=["POST"])
@blp.arguments(CreateGameSchema)
@blp.response(201, CreatedSchema)
def create(args):
    """Create a game; answers one invite code per human seat (none for a public game)."""
    if args["seats"] is not None:
        args["seats"] = [(seat["kind"], seat.get("level")) for seat in args["seats"]]
    created = games.create(claim(), **args)
    game = created.game
    body = {
        "game_id": game.id,
        "version": game.version,
        "head": head_body(game),
        "status": game.status,
        "commitment": game.creation.commitment,
        "invites": [{"seat": seat, "invite": code} for seat, code in created.invites.items()],
    }
    return body, 201, {"Location": url_for("games.view", game_id=game.id)}


@blp.route("", methods=["GET"])
@blp.arguments(LobbyQuerySchema, location="query")
@blp.response(200, LobbyPageSchema)
def lobby(args):
    """The lobby: games by status (open for joining, running, finished), newest first.

    `players`, `rated` and `public` keep those games only; `total` counts them."""
    only = games.LobbyFilter(args.get("players"), args.get("rated"), args.get("public"))
    page = games.lobby(claim(), args["status"], args["offset"], args["limit"], only)
    return {"total": page.total, "offset": args["offset"], "games": page.games}


@blp.route("/<game_id>/seats/<int:seat>", methods=["POST"])
@blp.arguments(JoinSchema)
@blp.response(201, JoinedSchema)
@blp.doc(security=[{}, *BEARER])
def join(args, game_id, seat):
    """Take a human seat with its invite; answers the seat's token, once. With a
    player key (`Authorization: Bearer <key>`) the seat is the player's, in its inbox.

    The cards are dealt when every human seat is taken."""
    joined = games.join(claim(), game_id, seat, args["invite"], args.get("name"), bearer_token())
    body = {
        "game_id": joined.game.id,
        "seat": seat,
        "token": joined.token,
        "view": game_view(joined.game, seat, bots=games.bots_of(claim(), joined.game)),
    }
    return json_response(body, 201)


ETAG = {
    "ETag": {
        "description": "the version, quoted; then `-s` and the seat for a seat's view (a"
        " seat's view and the public one are not the same); once the game has ended,"
        " `-m` when it has a rematch and `-r` and a digest of its rating changes when they"
        ' are in (`"57-s1-mr0a1b2c3d"`)',
        "schema": {"type": "string"},
    }
}


class ConditionalSchema(Schema):
    if_none_match = fields.String(
        data_key="If-None-Match",
        metadata={"description": "an ETag seen before: 304 while the view is the same"},
    )


@blp.route("/<game_id>", methods=["GET"])
@blp.arguments(ViewQuerySchema, location="query")
@blp.arguments(ConditionalSchema, location="headers")
@blp.response(200, GameViewSchema, headers=ETAG)
@blp.alt_response(304, description="Not modified: still the view of If-None-Match", headers=ETAG)
@blp.alt_response(403, **REFUSED)
@blp.doc(security=[{}, *BEARER])
def view(args, _conditional, game_id):
    """The game as the caller may see it: public, or a seat's with its token.

    `ETag` is the version (and what came after the end: a rematch, the ratings). With
    `after` and `wait`, waits until the version is above `after` (a long-poll), then
    answers as usual; another site's page may not wait without a token (403)."""
    if args["wait"] > 0:
        refuse_other_sites(claim().config.public_url)
    seen = games.look(
        claim(),
        game_id,
        bearer_token(),
        args.get("after"),
        args["wait"],
        request.remote_addr,
        client_connection(),
    )
    later = ("m" if seen.rematch else "") + (f"r{_digest(seen.ratings)}" if seen.ratings else "")
    seat = "" if seen.seat is None else f"s{seen.seat}"
    etag = "-".join(part for part in (str(seen.game.version), seat, later) if part)
    # A seat's view and the public one differ at one version: their ETags too, so that
    # no cache takes one for the other; and a view is asked again each time it is shown.
    headers = {"ETag": f'"{etag}"', "Vary": "Authorization", "Cache-Control": "private, no-cache"}
    if request.if_none_match.contains_weak(etag):
        return Response(status=304, headers=headers)
    bots = games.bots_of(claim(), seen.game)
    body = game_view(seen.game, seen.seat, rematch=seen.rematch, ratings=seen.ratings, bots=bots)
    return json_response(body, 200, headers)


def _digest(value) -> str:
    """A short digest of `value`: the ratings of a game are folded again when a result
    that ended before it comes late, and its ETag changes with them."""
    return hashlib.blake2s(repr(value).encode(), digest_size=4).hexdigest()


class LegalSchema(Schema):
    version = fields.Integer()
    seat = fields.Integer()
    legal = fields.List(fields.String(), metadata={"description": "empty when not to act"})


@blp.route("/<game_id>/legal", methods=["GET"])
@blp.response(200, LegalSchema)
@blp.doc(security=BEARER)
def legal(game_id):
    """The caller's legal decisions now (empty when it is not the caller's turn)."""
    seen = games.seated(claim(), game_id, bearer_token())
    legal = game_view(seen.game, seen.seat)["you"]["legal"]
    return {"version": seen.game.version, "seat": seen.seat, "legal": legal}


@blp.route("/<game_id>/moves", methods=["POST"])
@bearer_required
@blp.arguments(MoveSchema)
@blp.arguments(IdempotencySchema, location="headers")
@blp.response(201, MovedSchema)
@blp.doc(security=BEARER)
def move(args, headers, game_id):
    """Play or take: `{"move": "play GO3", "expected_version": 17}`.

    A repeated `Idempotency-Key` answers the first answer and changes nothing."""
    moved = games.move(
        claim(),
        game_id,
        bearer_token(),
        args["move"],
        args["expected_version"],
        headers["idempotency_key"],
    )
    return _moved(moved)


@blp.route("/<game_id>/resign", methods=["POST"])
@blp.response(201, MovedSchema)
@blp.doc(security=BEARER)
def resign(game_id):
    """Give up: the game ends and the caller's side loses."""
    return _moved(games.resign(claim(), game_id, bearer_token()))


@blp.route("/<game_id>/seats/<int:seat>/return", methods=["POST"])
@blp.response(201, MovedSchema)
@blp.doc(security=BEARER)
def come_back(game_id, seat):
    """Take back a seat that an AI has played since its move time ran out
    (timeout policy `takeover`)."""
    return _moved(games.come_back(claim(), game_id, seat, bearer_token()))


def _moved(moved: games.Moved) -> Response:
    """The answer to a change a seat made: the game's new version with its view."""
    game = moved.game
    view = game_view(game, moved.seat, bots=games.bots_of(claim(), game))
    body = {"version": game.version, "head": head_body(game), "view": view}
    return json_response(body, 201)


class RematchSchema(Schema):
    game_id = fields.String(metadata={"description": "the next game"})
    seat = fields.Integer(metadata={"description": "your seat in it (seats move on by one)"})
    invite = fields.String(metadata={"description": "join your seat with it"})
    version = fields.Integer()


@blp.route("/<game_id>/rematch", methods=["POST"])
@blp.response(201, RematchSchema)
@blp.doc(security=BEARER)
def rematch(game_id):
    """The next game of a finished one, same settings, seats rotated and the first
    leader moved on: the first call creates it, every later call answers the same
    game, each with the caller's invite."""
    offered = games.rematch(claim(), game_id, bearer_token())
    return {
        "game_id": offered.game.id,
        "seat": offered.seat,
        "invite": offered.invite,
        "version": offered.game.version,
    }


class StreamQuerySchema(Schema):
    max_seconds = QueryInteger(
        load_default=300,
        validate=validate.Range(1, 3600),
        metadata={"description": "seconds: the stream ends after them, and its client reconnects"},
    )


class ResumeSchema(Schema):
    last_event_id = fields.String(
        data_key="Last-Event-ID",
        metadata={
            "description": "the last version seen: every version after it is sent, in"
            " order; from further back than 100 versions, a `snapshot` of the game now."
            " Anything but a version counts as none (a stream resumes whatever it sent).",
            "example": "17",
        },
    )


@blp.route("/<game_id>/stream", methods=["GET"])
@blp.arguments(StreamQuerySchema, location="query")
@blp.arguments(ResumeSchema, location="headers")
@blp.response(200, content_type="text/event-stream")
@blp.alt_response(403, **REFUSED)
@blp.doc(
    security=[{}, *BEARER],
    responses={
        200: {
            "description": "Server-Sent Events: `view` events whose `id` is the version and"
            " whose data is the caller's view as `GET /games/{id}` answers it (a"
            " `snapshot` event instead when a resumed stream cannot send each version"
            " missed); a `: keep-alive` comment every 15 s.",
            "content": {
                "text/event-stream": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string", "description": "the version"},
                            "event": {"type": "string", "enum": ["view", "snapshot"]},
                            "data": {"type": "string", "description": "the view, as JSON"},
                        },
                    }
                }
            },
        }
    },
)
def stream(args, resume, game_id):
    """The caller's view now, then at each new version (Server-Sent Events), until the
    game ends; `Last-Event-ID` resumes after that version: every version after it, in
    order, or a `snapshot` event of the game now if it is too far behind. Another
    site's page may not open one without a token (403)."""
    refuse_other_sites(claim().config.public_url)
    known = resume.get("last_event_id", "")
    updates = games.watch(
        claim(),
        game_id,
        bearer_token(),
        request.remote_addr,
        int(known) if re.fullmatch(r"[0-9]{1,15}", known) else None,
        args["max_seconds"],
        keepalive(),
        client_connection(),
    )
    return event_stream(server_sent(updates))


def event_stream(events: Iterator[bytes]) -> Response:
    """An answer of Server-Sent Events, as they come: no cache or proxy keeps them."""
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(stream_with_context(events), mimetype="text/event-stream", headers=headers)


def keepalive() -> float:
    """Seconds between two keep-alive comments of a live stream."""
    return current_app.config.get("SSE_KEEPALIVE", 15)


def server_sent(updates: Iterator[games.Update]) -> Iterator[bytes]:
    """The updates as Server-Sent Events: `view` (or `snapshot`) events whose `id` is
    the version, and keep-alive comments."""
    for update in updates:
        if update.game is None:
            yield b": keep-alive\n\n"
        else:
            head = f"id: {update.game.version}\nevent: {update.kind}\ndata: ".encode()
            bots = games.bots_of(claim(), update.game)
            yield head + view_json(update.game, update.seat, bots) + b"\n\n"
