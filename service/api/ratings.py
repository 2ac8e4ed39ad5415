"""`/ratings` and `/players/{id}`: the leaderboards and the public profiles, for
anybody, without a key: names, ratings and rated results only."""

from __future__ import annotations

from datetime import UTC, datetime

from marshmallow import Schema, fields, validate

from service import games
from service.games import (
    BOT_FILTERS,
    ESTABLISHED_OPPONENTS,
    FIGURES,
    MIN_OPPONENTS,
    rating_change,
)

from .fields import QueryInteger
from .games import claim
from .problems import Blueprint
from .view import RatingChangeSchema

blp = Blueprint("ratings", __name__, description="Ratings, leaderboards and public profiles")


class BoardQuerySchema(Schema):
    players = QueryInteger(required=True, validate=validate.OneOf((2, 3, 4)))
    bots = fields.String(
        validate=validate.OneOf(BOT_FILTERS),
        metadata={"description": "only: the bots' accounts only; exclude: all but them"},
    )
    offset = QueryInteger(load_default=0, validate=validate.Range(0, 1_000_000))
    limit = QueryInteger(load_default=20, validate=validate.Range(1, 100))


class StandingSchema(Schema):
    player_id = fields.String(metadata={"description": "a player's id, or ai:<level>"})
    kind = fields.String(metadata={"enum": ["player", "ai"]})
    name = fields.String()
    bot = fields.Boolean(metadata={"description": "a bot's account (an AI level is none)"})
    rating = fields.Float(metadata={"description": "the skill estimate (mu; 25 at first)"})
    uncertainty = fields.Float(
        metadata={"description": "sigma as of now (25/3 at first): grows while not playing"}
    )
    provisional = fields.Boolean(
        metadata={"description": "uncertainty above 6 (few games yet), or not ranked yet"}
    )
    ranked = fields.Boolean(
        metadata={
            "description": f"an AI level, or a player who has met {MIN_OPPONENTS} distinct"
            " established opponents in rated games (for a person: not bots): only they"
            " have a rank"
        }
    )
    established = fields.Boolean(
        metadata={
            "description": "an AI level, or a player who has met"
            f" {ESTABLISHED_OPPONENTS} distinct established opponents: only then do its"
            " games move its opponents' ratings"
        }
    )
    opponents = fields.Integer(
        metadata={
            "description": "distinct established opponents (for a person: not bots) met in"
            f" rated games that moved the rating, counted up to {MIN_OPPONENTS}"
        }
    )
    games = fields.Integer(metadata={"description": "rated games of this player count"})
    last_played_at = fields.DateTime(allow_none=True)


class RankedSchema(StandingSchema):
    rank = fields.Integer(
        allow_none=True,
        metadata={"description": "1 for the best skill; null: not ranked (listed after them)"},
    )


class BoardSchema(Schema):
    players = fields.Integer()
    total = fields.Integer(metadata={"description": "rated players and AI levels"})
    ranked = fields.Integer(metadata={"description": "of them ranked: the board's first"})
    offset = fields.Integer()
    standings = fields.List(
        fields.Nested(RankedSchema),
        metadata={"description": "the ranked, best skill first; then the others, likewise"},
    )


class RatedResultSchema(RatingChangeSchema):
    game_id = fields.String()
    players = fields.Integer()
    finished_at = fields.DateTime()
    outcome = fields.String(metadata={"enum": ["won", "drew", "lost"]})
    place = fields.Integer(metadata={"description": "1 for a side ranked first, tied or not"})


class PublicProfileSchema(Schema):
    player_id = fields.String()
    kind = fields.String(metadata={"enum": ["player", "ai"]})
    name = fields.String()
    bot = fields.Boolean(metadata={"description": "a bot's account (an AI level is none)"})
    created_at = fields.DateTime(allow_none=True, metadata={"description": "null for an AI"})
    games = fields.Integer(metadata={"description": "rated games played"})
    ratings = fields.Dict(
        keys=fields.String(metadata={"enum": ["2", "3", "4"]}),
        values=fields.Nested(StandingSchema, allow_none=True),
        metadata={"description": "per player count; null: no rated game yet"},
    )
    recent = fields.List(
        fields.Nested(RatedResultSchema),
        metadata={"description": "the last rated games, newest first"},
    )


def _standing(standing: games.Standing) -> dict:
    rating = standing.rating
    return {
        "player_id": standing.entity,
        "kind": standing.kind,
        "name": standing.name,
        "bot": standing.bot,
        "rating": round(rating.mu, FIGURES),
        "uncertainty": round(standing.sigma, FIGURES),
        "provisional": standing.provisional,
        "ranked": standing.ranked,
        "established": standing.established,
        "opponents": len(rating.opponents),
        "games": rating.games,
        "last_played_at": None if rating.played_at is None else _time(rating.played_at),
    }


def _time(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, UTC)


@blp.route("/ratings", methods=["GET"])
@blp.arguments(BoardQuerySchema, location="query")
@blp.response(200, BoardSchema)
def leaderboard(args):
    """The leaderboard of 2-, 3- or 4-player games: registered players and AI levels,
    best skill first; a provisional rating is marked. A player who has not yet met
    enough distinct established opponents has no rank and is listed after those who
    have. Each entry says whether it is a bot's; `bots=only` or `bots=exclude` filters
    them."""
    board = games.leaderboard(
        claim(), args["players"], args["offset"], args["limit"], args.get("bots")
    )
    return {
        "players": board.players,
        "total": board.total,
        "ranked": board.ranked,
        "offset": board.offset,
        "standings": [
            {"rank": board.offset + n + 1 if standing.ranked else None, **_standing(standing)}
            for n, standing in enumerate(board.standings)
        ],
    }


@blp.route("/players/<player_id>", methods=["GET"])
@blp.response(200, PublicProfileSchema)
def public_profile(player_id):
    """A player's public profile (or an AI level's: `ai:greedy`): name, ratings, games,
    and the last rated results with what each did to the rating."""
    found = games.public_profile(claim(), player_id)
    return {
        "player_id": found.entity,
        "kind": found.kind,
        "name": found.name,
        "bot": found.bot,
        "created_at": found.created_at,
        "games": found.games,
        "ratings": {
            str(players): None if standing is None else _standing(standing)
            for players, standing in found.standings.items()
        },
        "recent": [
            {
                "game_id": played.result.game_id,
                "players": played.result.players,
                "finished_at": _time(played.result.finished_at),
                "outcome": played.result.outcome_of(played.change.seat),
                "place": played.result.place_of(played.change.seat),
                **rating_change(played.change),
            }
            for played in found.recent
        ],
    }
