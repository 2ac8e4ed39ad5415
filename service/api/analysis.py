"""The expert's analysis of an ended game: asked for once, computed by the workers."""

from __future__ import annotations

from marshmallow import Schema, fields

from service import games

from .auth import bearer_token
from .games import BEARER, claim
from .problems import MEDIA_TYPE, Blueprint, ProblemSchema

blp = Blueprint(
    "analysis", __name__, url_prefix="/games", description="The expert's analysis of games"
)

STATUSES = ["none", "queued", "running", "done", "failed"]
MARKS = ["inaccuracy", "mistake", "blunder"]


class JudgedSchema(Schema):
    index = fields.Integer(metadata={"description": "among the game's decisions, 0 first"})
    step = fields.Integer(metadata={"description": "the replay's step of this decision"})
    seat = fields.Integer(metadata={"description": "the deciding seat"})
    phase = fields.Integer(metadata={"description": "the game's phase, 1 or 2"})
    side = fields.Integer(metadata={"description": "its side: the seat, or its team (4 players)"})
    move = fields.String(metadata={"description": "the decision made"})
    before = fields.Float(
        metadata={"description": "the side's chance of winning before it (with the best move)"}
    )
    after = fields.Float(metadata={"description": "the side's chance of winning after it"})
    chances = fields.List(
        fields.Float(), metadata={"description": "each side's chance after it, as the seat sees it"}
    )
    best = fields.String(metadata={"description": "the expert's preferred decision (`before`)"})
    loss = fields.Float(metadata={"description": "before - after"})
    mark = fields.String(
        allow_none=True,
        metadata={
            "enum": [*MARKS, None],
            "description": "when loss > a threshold, and > 2 standard errors of a sampled loss",
        },
    )
    exact = fields.Boolean(metadata={"description": "solved exactly, not sampled"})
    method = fields.String(
        metadata={
            "enum": list(games.ANALYSIS_METHODS),
            "description": "exact (a 2-player phase 2 solved), deals (the hidden cards dealt"
            " again 40 times), playouts (a 2-player phase 2 too big to solve: 40 playouts"
            " with random decisions among greedy's: a rough estimate, never marked)",
        }
    )


class AnalysisSchema(Schema):
    game_id = fields.String()
    analysis_version = fields.Integer(metadata={"description": "of the method"})
    status = fields.String(metadata={"enum": STATUSES})
    total = fields.Integer(metadata={"description": "the game's decisions"})
    done = fields.Integer(metadata={"description": "the decisions judged so far"})
    thresholds = fields.Dict(
        keys=fields.String(metadata={"enum": MARKS}),
        values=fields.Float(),
        metadata={"description": "a decision that lost more chance than these is marked"},
    )
    decisions = fields.List(
        fields.Nested(JudgedSchema),
        metadata={
            "description": "each decision judged so far, from the deciding seat's knowledge"
            " at the time"
        },
    )


def _body(analysis: games.Analysis) -> dict:
    return {
        "game_id": analysis.game_id,
        "analysis_version": analysis.version,
        "status": analysis.status,
        "total": analysis.total,
        "done": len(analysis.judged),
        "thresholds": analysis.thresholds,
        "decisions": list(analysis.judged),
    }


@blp.route("/<game_id>/analysis", methods=["POST"])
@blp.response(202, AnalysisSchema, description="queued or under way")
@blp.alt_response(200, schema=AnalysisSchema, description="done")
@blp.alt_response(
    429,
    schema=ProblemSchema,
    content_type=MEDIA_TYPE,
    description="`/problems/too-many-analyses`: your analyses under way are the most",
)
@blp.doc(security=BEARER)
def ask(game_id):
    """Ask the workers for the expert's analysis of an ended game, with your player
    key (401 without): once per game and analysis version (asked again, the same
    analysis answers; one that failed starts anew). At most `CLAIM_ANALYSES_QUEUED` (3)
    of your asking under way at once (429 too-many-analyses); served first come,
    first served, the asks of the game's own players before the others'. 409
    game-not-over while the game runs."""
    analysis = games.ask_analysis(claim(), bearer_token(), game_id)
    return _body(analysis), 200 if analysis.status == "done" else 202


@blp.route("/<game_id>/analysis", methods=["GET"])
@blp.response(200, AnalysisSchema)
def show(game_id):
    """The analysis as far as it went: for every decision judged, the deciding seat's
    chance of winning before and after it as the expert estimates it from that seat's
    knowledge at the time, the expert's preferred decision, and a mark when it lost
    more than a threshold. Status none, with no decision, if nobody asked for it."""
    return _body(games.analysis(claim(), game_id))
