"""`/healthz` (is Redis there?), `/readyz` (and the job queues and their workers?),
`/openapi.yaml` (the contract) and `/decks` (the rules' legal faction sets, for a
client's deck picker)."""

from __future__ import annotations

from flask import Response, current_app
from marshmallow import Schema, fields

from service import games
from service.domain import PRESETS, Faction, legal_faction_sets

from .games import claim
from .problems import Blueprint, Problem

blp = Blueprint("health", __name__, description="Health, the API contract and the decks")


class HealthSchema(Schema):
    status = fields.String(metadata={"example": "ok"})


@blp.route("/healthz", methods=["GET"])
@blp.response(200, HealthSchema)
def healthz():
    """`ok` when the game store answers; a store-unavailable problem when not."""
    games.health(claim())
    return {"status": "ok"}


class ReadySchema(Schema):
    status = fields.String(metadata={"example": "ready"})
    store = fields.String(metadata={"enum": ["ok"]})
    queues = fields.String(
        metadata={
            "enum": ["ok", "off", "down"],
            "description": "off: this process has no queues; down: their Redis does not"
            " answer (AI turns and notifications wait; moves do not)",
        }
    )
    workers = fields.Integer(
        metadata={"description": "workers alive, each with a heartbeat of the last few seconds"}
    )
    expert = fields.String(
        metadata={
            "enum": ["ready", "loading", "none"],
            "description": "ready: a worker plays the expert; loading: the workers play the"
            " other levels while their expert's search loads (a first start compiles it,"
            " about a minute), its turns wait; none: no worker",
        }
    )


@blp.route("/readyz", methods=["GET"])
@blp.response(200, ReadySchema)
def readyz():
    """Ready when the game store answers (503 when not); says whether the job queues'
    Redis answers, how many workers are alive (0: AI seats and deadlines wait for one)
    and whether they play the expert yet."""
    state = games.readiness(claim())
    if not state.ready:
        raise Problem("store-unavailable", "not ready: store unreachable")
    queues = {None: "off", True: "ok", False: "down"}[state.queues]
    expert = "ready" if state.experts else "loading" if state.workers else "none"
    body = {"status": "ready", "store": "ok", "queues": queues, "workers": state.workers}
    return body | {"expert": expert}


@blp.route("/openapi.yaml", methods=["GET"])
@blp.response(200, content_type="application/yaml")
def openapi_yaml():
    """This API's OpenAPI document, as committed in `openapi.yaml`."""
    return Response(current_app.extensions["openapi_yaml"](), mimetype="application/yaml")


class FactionSchema(Schema):
    code = fields.String(metadata={"example": "GO"})
    name = fields.String(metadata={"example": "Goblins"})


class DecksSchema(Schema):
    factions = fields.List(fields.Nested(FactionSchema))
    presets = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.String()),
        metadata={"description": "the published 2-player decks"},
    )
    legal = fields.Dict(
        keys=fields.String(metadata={"enum": ["2", "3", "4"]}),
        values=fields.List(fields.List(fields.String())),
        metadata={"description": "every legal faction set, per player count (RULES.md 1)"},
    )


@blp.route("/decks", methods=["GET"])
@blp.response(200, DecksSchema)
def decks():
    """The factions and every legal faction set per player count (one pair,
    Goblins+Knights or Gnomes+Giants, and 3 singles with 2 players, 5 with 3 or 4)."""
    return {
        "factions": [{"code": f.code, "name": f.title} for f in Faction],
        "presets": {name: [f.code for f in chosen] for name, chosen in PRESETS.items()},
        "legal": {
            str(players): [[f.code for f in chosen] for chosen in legal_faction_sets(players)]
            for players in (2, 3, 4)
        },
    }
