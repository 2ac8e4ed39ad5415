"""`/healthz` (is Redis there?) and `/openapi.yaml` (the contract)."""

from __future__ import annotations

from flask import Response, current_app
from marshmallow import Schema, fields

from service import games

from .games import claim
from .problems import Blueprint

blp = Blueprint("health", __name__, description="Health and the API contract")


class HealthSchema(Schema):
    status = fields.String(metadata={"example": "ok"})


@blp.route("/healthz", methods=["GET"])
@blp.response(200, HealthSchema)
def healthz():
    """`ok` when the game store answers; a store-unavailable problem when not."""
    games.health(claim())
    return {"status": "ok"}


@blp.route("/openapi.yaml", methods=["GET"])
@blp.response(200, content_type="application/yaml")
def openapi_yaml():
    """This API's OpenAPI document, as committed in `openapi.yaml`."""
    return Response(current_app.extensions["openapi_yaml"], mimetype="application/yaml")
