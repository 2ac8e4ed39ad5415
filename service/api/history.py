"""A game's past: replay step by step, the event log, and the audit of an ended game."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.domain import ClaimError, apply, is_over, new_game, result
from service.events import (
    OPEN,
    DecisionMade,
    GameCreated,
    Recorded,
    SeatJoined,
    deck_commitment,
    fold,
)
from service.events.codec import dump

from .account import describe
from .auth import seat_of
from .games import BEARER, store
from .problems import Blueprint, Problem
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
    after = fields.Integer(load_default=0, validate=validate.Range(0))


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


def _records_and_game(game_id: str):
    records = store().read(game_id)
    return records, fold(game_id, records)


@blp.route("/<game_id>/replay/<int:step>", methods=["GET"])
@blp.response(200, ReplaySchema)
@blp.doc(security=[{}, *BEARER])
def replay(game_id, step):
    """The game after step `step` (0: the deal), with an account of what that step did.

    Steps are the decisions, resignations and timeouts after the deal. Shown as the
    caller may see it while the game runs; complete once it has ended."""
    records, game = _records_and_game(game_id)
    seat = seat_of(game)
    # Seats are all taken before the deal: the deal is at version 1 + human seats.
    dealt = 1 + sum(isinstance(record.event, SeatJoined) for record in records)
    last = game.version - dealt
    if game.status == OPEN:
        raise Problem("unknown-step", f"game {game_id} is not dealt yet")
    if not 0 <= step <= last:
        raise Problem("unknown-step", f"game {game_id} has steps 0 to {last}, not {step}")
    ended = game.ending is not None
    version = dealt + step
    at = fold(game_id, records[:version])
    if step:
        before = fold(game_id, records[: version - 1])
        account = describe(before.state, at.state, records[version - 1].event, seat, ended)
    else:
        account = ["the cards are dealt"]
    body = {
        "step": step,
        "last_step": last,
        "version": at.version,
        "account": account,
        "view": game_view(at, seat, reveal=ended),
    }
    return json_response(body)


@blp.route("/<game_id>/events", methods=["GET"])
@blp.arguments(EventsQuerySchema, location="query")
@blp.response(200, EventLogSchema)
def events(args, game_id):
    """The game's event log: the deck and salt are left out until the game has ended,
    and the hashes of invites and tokens always."""
    records, game = _records_and_game(game_id)
    ended = game.ending is not None
    return {
        "game_id": game_id,
        "version": game.version,
        "events": [_public(record, ended) for record in records[args["after"] :]],
    }


def _public(record: Recorded, ended: bool) -> dict:
    name, data = dump(record.event)
    if isinstance(record.event, GameCreated):
        for seat in data["seats"]:
            seat.pop("invite_hash", None)
        if not ended:
            del data["deck"], data["salt"]
    data.pop("token_hash", None)
    data.pop("player", None)  # a player's games are theirs to list, nobody else's
    return {
        "version": record.version,
        "id": str(record.id),
        "type": name,
        "at": record.at,
        "data": data,
    }


@blp.route("/<game_id>/audit", methods=["GET"])
@blp.response(200, AuditSchema)
def audit(game_id):
    """Everything about an ended game: deck, salt, the commitment check, every
    decision, and the result recomputed by replaying the decisions on the deck."""
    records, game = _records_and_game(game_id)
    if game.ending is None:
        raise Problem("game-not-over", f"game {game_id} has not ended: its deck is secret")
    creation = game.creation
    decisions = [record for record in records if isinstance(record.event, DecisionMade)]
    state = new_game(creation.settings, creation.deck)
    try:
        for record in decisions:
            state = apply(state, record.event.decision, seat=record.event.seat)
        replayed = state == game.state
    except ClaimError:
        replayed = False
    outcome = result(state) if replayed and is_over(state) else None
    return {
        "game_id": game_id,
        "players": creation.settings.players,
        "factions": [faction.code for faction in creation.settings.factions],
        "first_leader": creation.settings.first_leader,
        "deck": codes(creation.deck),
        "salt": creation.salt.hex(),
        "commitment": creation.commitment,
        "commitment_verified": deck_commitment(creation.salt, creation.deck) == creation.commitment,
        "decisions": [
            {
                "step": step,
                "version": record.version,
                "seat": record.event.seat,
                "move": str(record.event.decision),
                "at": record.at,
                "timeout_policy": record.event.timeout_policy,
            }
            for step, record in enumerate(decisions, start=1)
        ],
        "ending": game.ending.reason,
        "score_piles": [codes(pile) for pile in state.score_piles] if outcome else None,
        "result": None if outcome is None else result_body(outcome),
        "result_verified": replayed,
    }
