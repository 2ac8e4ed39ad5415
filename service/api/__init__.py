"""The REST API: a Flask app factory, one blueprint per resource, marshmallow schemas.

    app = create_app()                       # REDIS_URL, else the embedded Redis
    app = create_app({"REDIS": client, "CLAIM_PREFIX": "test-1"})   # tests

The contract is `openapi.yaml`, generated from the schemas by `openapi_document`
(`claim openapi` writes it) and served at `/openapi.yaml`; `/docs` shows it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import redis
import yaml
from flask import Flask
from flask_smorest import Api

from service.events import Game, GameStore, connect
from service.events.players import PlayerStore
from workers.changes import after_change, rematch_offered

from . import games, health, history, players, problems
from .ratelimit import limit_requests

log = logging.getLogger(__name__)
DEFAULT_RATE_LIMIT = "1200 per minute"
MAX_BODY = 64 * 1024  # bytes


@dataclass
class Claim:
    """What the views share: the store, the hooks told of every change and of every
    rematch offered, the contract."""

    store: GameStore
    players: PlayerStore
    openapi_yaml: str = ""
    hooks: list[Callable[[Game], None]] = field(default_factory=list)
    offer_hooks: list[Callable[[Game, Game, int], None]] = field(default_factory=list)

    def changed(self, game: Game) -> None:
        """Tell every hook (AI turns, deadlines, notifications) that `game` changed.
        The change is stored already, and its answer may carry a secret shown once:
        a hook that fails is logged, and the sweep catches up on what it missed."""
        for hook in self.hooks:
            try:
                hook(game)
            except Exception:
                log.exception("game %s: scheduling after version %s failed", game.id, game.version)

    def rematch_offered(self, old: Game, new: Game, by: int) -> None:
        """Tell every offer hook (notifications) that seat `by` of `old` offered `new`."""
        self.changed(new)
        for hook in self.offer_hooks:
            try:
                hook(old, new, by)
            except Exception:
                log.exception("game %s: telling of its rematch failed", old.id)


class ProblemApi(Api):
    """flask-smorest's Api, documenting errors as RFC 9457 problems."""

    ERROR_SCHEMA = problems.ProblemSchema
    DEFAULT_ERROR_RESPONSE_NAME = "DEFAULT_ERROR"

    def _register_responses(self):
        self.DEFAULT_RESPONSE_CONTENT_TYPE = problems.MEDIA_TYPE
        try:
            super()._register_responses()
        finally:
            self.DEFAULT_RESPONSE_CONTENT_TYPE = "application/json"

    def _register_error_handlers(self):
        problems.register(self._app)


def create_app(config: dict | None = None) -> Flask:
    """The API app. `config` may give `REDIS` (a client), `CLAIM_PREFIX` (key prefix),
    `CLAIM_RATE_LIMIT`, `JOBS` (False: schedule no AI turns or deadlines) and any Flask
    setting."""
    app = Flask(__name__)
    app.config.update(
        API_TITLE="Claim",
        API_VERSION="1",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        OPENAPI_SWAGGER_UI_URL="https://cdn.jsdelivr.net/npm/swagger-ui-dist/",
        MAX_CONTENT_LENGTH=MAX_BODY,
        CLAIM_PREFIX=os.environ.get("CLAIM_PREFIX", "claim"),
        CLAIM_RATE_LIMIT=os.environ.get("CLAIM_RATE_LIMIT", DEFAULT_RATE_LIMIT),
        API_SPEC_OPTIONS={
            "info": {
                "description": "Play Claim and Claim 2: create, join, move, watch, replay, audit.",
            },
            "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        },
    )
    app.config.update(config or {})
    client: redis.Redis = app.config.get("REDIS") or connect()
    prefix = app.config["CLAIM_PREFIX"]
    claim = Claim(GameStore(client, prefix), PlayerStore(client, prefix))
    app.extensions["claim"] = claim
    if app.config.get("JOBS", True):
        claim.hooks.append(lambda game: after_change(claim.store, game))
        claim.offer_hooks.append(lambda old, new, by: rematch_offered(claim.store, old, new, by))

    api = ProblemApi(app)
    for blueprint in (games.blp, history.blp, players.blp, health.blp):
        api.register_blueprint(blueprint)
    claim.openapi_yaml = openapi_yaml(api)

    if app.config["CLAIM_RATE_LIMIT"]:
        limit_requests(app, client, f"{prefix}:limits", app.config["CLAIM_RATE_LIMIT"])
    return app


def openapi_yaml(api: Api) -> str:
    """The OpenAPI document of `api` as YAML, keys in a stable order."""
    return yaml.safe_dump(api.spec.to_dict(), sort_keys=True, allow_unicode=True)


def openapi_document() -> str:
    """The contract as `openapi.yaml` holds it, generated from the schemas."""
    app = create_app({"REDIS": redis.Redis(), "CLAIM_RATE_LIMIT": "", "JOBS": False})
    return app.extensions["claim"].openapi_yaml


__all__ = ["create_app", "openapi_document"]
