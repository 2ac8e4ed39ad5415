"""A game's past: replay step by step, the event log, and the audit of an ended game."""

from __future__ import annotations

from dataclasses import asdict

from flask import Response
from marshmallow import Schema, fields, validate

from service import games

from .auth import bearer_token
from .fields import MAX_VERSION, QueryInteger
from .games import BEARER, claim
from .problems import Blueprint
from .view import GameViewSchema, ResultSchema, codes, game_view, json_response, result_body

blp = Blueprint("history", __name__, url_prefix="/games", description="Replay and audit games")


class ReplaySchema(Schema):
    step = fields.Integer(metadata={"description": "0: the deal"})
    last_step = fields.Integer()
    version = fields.Integer(metadata={"description": "the game's version after this step"})
    account = fields.List(fields.String(), metadata={"description": "what this step did"})
    view = fields.Nested(GameViewSchema)


class EventSchema(Schema):
    version = fields.Integer()
    id = fields.String()
    type = fields.String()
    at = fields.DateTime()
    data = fields.Dict(metadata={"description": "the deck and salt only once the game has ended"})


class EventsQuerySchema(Schema):
    after = QueryInteger(load_default=0, validate=validate.Range(0, MAX_VERSION))


class EventLogSchema(Schema):
    game_id = fields.String()
    version = fields.Integer()
    events = fields.List(fields.Nested(EventSchema))


class AuditDecisionSchema(Schema):
    step = fields.Integer()
    version = fields.Integer()
    seat = fields.Integer()
    move = fields.String()
    at = fields.DateTime()
    timeout_policy = fields.String(allow_none=True)


class AuditSchema(Schema):
    game_id = fields.String()
    players = fields.Integer()
    factions = fields.List(fields.String())
    first_leader = fields.Integer()
    deck = fields.List(fields.String(), metadata={"description": "top first, as dealt"})
    salt = fields.String(metadata={"description": "hex"})
    commitment = fields.String()
    commitment_verified = fields.Boolean(metadata={"description": "sha256(salt || deck) matches"})
    decisions = fields.List(fields.Nested(AuditDecisionSchema))
    ending = fields.String(metadata={"enum": ["completed", "resigned", "forfeited", "aborted"]})
    score_piles = fields.List(fields.List(fields.String()), allow_none=True)
    result = fields.Nested(ResultSchema, allow_none=True, metadata={"description": "recomputed"})
    result_verified = fields.Boolean(
        metadata={"description": "the decisions replayed on the deck give the stored game"}
    )


@blp.route("/<game_id>/replay/<int:step>", methods=["GET"])
@blp.response(200, ReplaySchema)
@blp.doc(security=[{}, *BEARER])
def replay(game_id, step):
    """The game after step `step` (0: the deal), with an account of what that step did.

    Steps are the events after the deal: decisions, resignations, timeouts, seats
    taken back from an AI or registered to a player. Shown as the
    caller may see it while the game runs; complete once it has ended."""
    replayed = games.replay(claim(), game_id, step, bearer_token())
    body = {
        "step": replayed.step,
        "last_step": replayed.last_step,
        "version": replayed.game.version,
        "account": list(replayed.account),
        "view": game_view(
            replayed.game,
            replayed.seat,
            reveal=replayed.reveal,
            bots=games.bots_of(claim(), replayed.game),
        ),
    }
    return json_response(body)


@blp.route("/<game_id>/events", methods=["GET"])
@blp.arguments(EventsQuerySchema, location="query")
@blp.response(200, EventLogSchema)
def events(args, game_id):
    """The game's event log: the deck and salt are left out until the game has ended,
    and the hashes of invites and tokens always."""
    log = games.event_log(claim(), game_id, args["after"])
    return {
        "game_id": log.game_id,
        "version": log.version,
        "events": [asdict(event) for event in log.events],
    }


@blp.route("/<game_id>/export", methods=["GET"])
@blp.response(
    200,
    {"type": "string"},
    content_type="application/jsonl",
    description='one JSON object a line: each event with `hash`, then `{"seal": ...}`',
)
def export(game_id):
    """The ended game's whole log, for `claim verify-export`: each event as it is hashed
    (the data of invites, tokens and players digested) with the chain's hash up to it,
    then the seal (game id, final version and hash, signed). A running game: 409
    game-not-over, as its log holds its deck."""
    lines = games.export(claim(), game_id)
    body = b"".join(line + b"\n" for line in lines)
    disposition = f'attachment; filename="claim-{game_id}.jsonl"'
    return Response(body, 200, {"Content-Disposition": disposition}, mimetype="application/jsonl")


@blp.route("/<game_id>/audit", methods=["GET"])
@blp.response(200, AuditSchema)
def audit(game_id):
    """Everything about an ended game: deck, salt, the commitment check, every
    decision, and the result recomputed by replaying the decisions on the deck."""
    audit = games.audit(claim(), game_id)
    creation = audit.game.creation
    return {
        "game_id": game_id,
        "players": creation.settings.players,
        "factions": [faction.code for faction in creation.settings.factions],
        "first_leader": creation.settings.first_leader,
        "deck": codes(creation.deck),
        "salt": creation.salt.hex(),
        "commitment": creation.commitment,
        "commitment_verified": audit.commitment_verified,
        "decisions": [
            {
                "step": step,
                "version": record.version,
                "seat": record.event.seat,
                "move": str(record.event.decision),
                "at": record.at,
                "timeout_policy": record.event.timeout_policy,
            }
            for step, record in enumerate(audit.decisions, start=1)
        ],
        "ending": audit.game.ending.reason,
        "score_piles": [codes(pile) for pile in audit.replayed.score_piles]
        if audit.result
        else None,
        "result": None if audit.result is None else result_body(audit.result),
        "result_verified": audit.result_verified,
    }
