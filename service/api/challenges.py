"""`/challenges` and `/me/challenges`: a player challenges a named player or an AI
level to a game; the challenged accepts or declines, the challenger may cancel."""

from __future__ import annotations

from flask import url_for
from marshmallow import Schema, fields, validate

from service import games
from service.games import CHALLENGE_STATUSES

from .auth import bearer_required, bearer_token
from .fields import Flag, QueryInteger
from .games import BEARER, Factions, TurnSettingsSchema, claim
from .problems import MEDIA_TYPE, Blueprint, ProblemSchema

blp = Blueprint("challenges", __name__, description="Challenge a player or an AI level")


class ChallengeRequestSchema(TurnSettingsSchema):
    to = fields.String(
        required=True,
        validate=validate.Length(1, 40),
        metadata={"description": "a player's id, or `ai:<level>` (the game starts at once)"},
    )
    players = fields.Integer(strict=True, load_default=2, validate=validate.Range(2, 4))
    factions = Factions(
        load_default=games.RANDOM,
        metadata={"description": "a preset or faction codes, as `POST /games` takes them"},
    )
    rated = Flag(
        load_default=False,
        metadata={"description": "a bot challenges a person to unrated games only"},
    )
    others = fields.String(
        load_default=games.DEFAULT_OTHERS,
        metadata={
            "description": "with 3 or 4 players, the AI level of the seats beyond the"
            " challenger (seat 0) and the challenged (seat 1): `ai:<level>`"
        },
    )


class ChallengeSettingsSchema(Schema):
    players = fields.Integer()
    factions = fields.Raw(metadata={"description": "a preset name or faction codes"})
    first_leader = fields.Integer()
    move_time_limit = fields.Integer(allow_none=True)
    timeout_policy = fields.String()
    timeout_limit = fields.Integer()
    final_timeout_policy = fields.String()
    rated = fields.Boolean()
    others = fields.String()


class ChallengeSchema(Schema):
    id = fields.String()
    from_player = fields.String(data_key="from", metadata={"description": "the challenger"})
    from_name = fields.String()
    from_bot = fields.Boolean()
    to = fields.String(metadata={"description": "the challenged: a player's id or ai:<level>"})
    to_name = fields.String()
    to_bot = fields.Boolean()
    status = fields.String(metadata={"enum": list(CHALLENGE_STATUSES)})
    settings = fields.Nested(ChallengeSettingsSchema)
    created_at = fields.DateTime()
    expires_at = fields.DateTime(metadata={"description": "an open challenge expires then"})
    updated_at = fields.DateTime()
    game_id = fields.String(allow_none=True, metadata={"description": "once accepted"})


class ChallengesQuerySchema(Schema):
    offset = QueryInteger(load_default=0, validate=validate.Range(0, 1_000_000))
    limit = QueryInteger(
        load_default=games.LISTED_CHALLENGES, validate=validate.Range(1, games.LISTED_CHALLENGES)
    )


class ChallengesSchema(Schema):
    total = fields.Integer(metadata={"description": "your open challenges, all pages"})
    offset = fields.Integer()
    challenges = fields.List(
        fields.Nested(ChallengeSchema), metadata={"description": "oldest first"}
    )


def challenge_json(shown: games.Shown) -> dict:
    """A challenge as the schema dumps it."""
    body = games.challenge_body(shown)
    return {**body, "from_player": body.pop("from")}


@blp.route("/challenges", methods=["POST"])
@bearer_required
@blp.arguments(ChallengeRequestSchema)
@blp.response(201, ChallengeSchema)
@blp.alt_response(
    429,
    schema=ProblemSchema,
    content_type=MEDIA_TYPE,
    description="`/problems/too-many-challenges`: the challenger's places, or the"
    " challenged's, are all held",
)
@blp.doc(security=BEARER)
def create(args):
    """Challenge a player (by id) or an AI level (`ai:greedy`) to a game with the
    settings `POST /games` takes (but the seats). The challenged player hears of it in
    their stream and inbox; a challenge to an AI level starts its game at once
    (`accepted`, with its `game_id`). An open challenge expires after
    `CLAIM_CHALLENGE_EXPIRES` seconds. A challenge to a player holds a place while it
    is open, and once accepted while its game runs: one per challenged player,
    `CLAIM_CHALLENGES_SENT` (5) in all, and `CLAIM_CHALLENGES_RECEIVED` (20) of the
    challenged's; beyond, 429 too-many-challenges."""
    to = args.pop("to")
    made = games.challenge(claim(), bearer_token(), to, games.ChallengeSettings(**args))
    location = url_for("challenges.look", challenge_id=made.challenge.id)
    return challenge_json(made), 201, {"Location": location}


@blp.route("/challenges/<challenge_id>", methods=["GET"])
@blp.response(200, ChallengeSchema)
@blp.doc(security=BEARER)
def look(challenge_id):
    """A challenge of yours (sent or received)."""
    return challenge_json(games.look_at(claim(), bearer_token(), challenge_id))


@blp.route("/challenges/<challenge_id>/accept", methods=["POST"])
@blp.response(200, ChallengeSchema)
@blp.doc(security=BEARER)
def accept(challenge_id):
    """Accept a challenge sent to you: its game starts with both of you seated (play
    with your player key). Again: the same game."""
    return challenge_json(games.accept(claim(), bearer_token(), challenge_id))


@blp.route("/challenges/<challenge_id>/decline", methods=["POST"])
@blp.response(200, ChallengeSchema)
@blp.doc(security=BEARER)
def decline(challenge_id):
    """Decline a challenge sent to you."""
    return challenge_json(games.decline(claim(), bearer_token(), challenge_id))


@blp.route("/challenges/<challenge_id>/cancel", methods=["POST"])
@blp.response(200, ChallengeSchema)
@blp.doc(security=BEARER)
def cancel(challenge_id):
    """Take back a challenge you sent."""
    return challenge_json(games.cancel(claim(), bearer_token(), challenge_id))


@blp.route("/me/challenges", methods=["GET"])
@blp.arguments(ChallengesQuerySchema, location="query")
@blp.response(200, ChallengesSchema)
@blp.doc(security=BEARER)
def mine(args):
    """Your open challenges, sent and received, oldest first: `limit` of them from
    `offset`, and `total`."""
    found = games.open_challenges(claim(), bearer_token(), args["offset"], args["limit"])
    challenges = [challenge_json(shown) for shown in found.challenges]
    return {"total": found.total, "offset": args["offset"], "challenges": challenges}
