"""The REST API: a Flask app factory, one blueprint per resource, marshmallow schemas.
Views parse, call one use case of `service.games`, and render.

    app = create_app()                                   # Config.from_env()
    app = create_app(claim=Claim.connect(config, client=redis_client, jobs=False))

The contract is `openapi.yaml`, generated from the schemas by `openapi_document`
(`claim openapi` writes it) and served at `/openapi.yaml`; `/docs` shows it.
"""

from __future__ import annotations

import functools
import io
import threading

import redis
import yaml
from flask import Flask, Response, request
from flask_smorest import Api
from werkzeug.exceptions import RequestEntityTooLarge

from service.config import Config
from service.games import Claim

from . import (
    analysis,
    challenges,
    changes,
    docs,
    games,
    health,
    history,
    keys,
    player_stream,
    players,
    problems,
    push,
    ratings,
    sign_in,
    web,
)
from .fields import PathInteger
from .proxies import TrustedProxies
from .ratelimit import limit_requests

MAX_BODY = 64 * 1024  # bytes


class ProblemApi(Api):
    """flask-smorest's Api, documenting errors as RFC 9457 problems, and its views
    when the contract is first asked for (`documented`), not when a blueprint is
    registered: that took 0.06 s of the 0.07 s an app took to make, and most apps (a
    test's, a process's) are never asked."""

    ERROR_SCHEMA = problems.ProblemSchema
    DEFAULT_ERROR_RESPONSE_NAME = "DEFAULT_ERROR"

    def __init__(self, app: Flask):
        self._undocumented: list = []  # (blueprint, name) of those registered since
        self._documenting = threading.Lock()
        super().__init__(app)

    def register_blueprint(self, blp, **options):
        """flask-smorest's, but for the documentation of its views, left for later."""
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        self._undocumented.append((blp, name))

    def documented(self) -> dict:
        """The contract as a dict, every blueprint's views documented."""
        with self._documenting:
            for blp, name in self._undocumented:
                blp.register_views_in_doc(self, self._app, self.spec, name=name, parameters=None)
                self.spec.tag({"name": name, "description": blp.description})
            self._undocumented = []
            return self.spec.to_dict()

    def _openapi_json(self):
        self.documented()
        return super()._openapi_json()

    def _register_responses(self):
        self.DEFAULT_RESPONSE_CONTENT_TYPE = problems.MEDIA_TYPE
        try:
            super()._register_responses()
        finally:
            self.DEFAULT_RESPONSE_CONTENT_TYPE = "application/json"

    def _register_error_handlers(self):
        problems.register(self._app)


def create_app(config: Config | None = None, claim: Claim | None = None) -> Flask:
    """The API app on `claim` (default: the application of `config`, itself read
    from the environment by default)."""
    if claim is None:
        claim = Claim.connect(config or Config.from_env())
    app = Flask(__name__)
    app.config.update(
        API_TITLE="Claim",
        API_VERSION="1",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        MAX_CONTENT_LENGTH=MAX_BODY,
        API_SPEC_OPTIONS={
            "info": {
                "description": "Play Claim and Claim 2: create, join, move, watch, replay, audit.",
            },
            "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        },
    )
    app.extensions["claim"] = claim
    app.url_map.converters["int"] = PathInteger  # before any route: every <int:...> is one

    app.before_request(_read_chunked_body)
    app.after_request(_safe_headers)
    api = ProblemApi(app)
    blueprints = (
        games.blp,
        changes.blp,
        history.blp,
        analysis.blp,
        players.blp,
        challenges.blp,
        player_stream.blp,
        sign_in.blp,
        ratings.blp,
        health.blp,
        keys.blp,
        push.blp,
    )
    for blueprint in blueprints:
        api.register_blueprint(blueprint)
    app.extensions["openapi_yaml"] = functools.cache(functools.partial(openapi_yaml, api))
    app.register_blueprint(docs.blp)  # Swagger UI on the contract, for people
    app.register_blueprint(web.blp)  # the web client's pages, for people

    if claim.config.rate_limit:
        limit_requests(app, claim, claim.config.rate_limit)
    if claim.config.trusted_proxies:
        app.wsgi_app = TrustedProxies(app.wsgi_app, claim.config)
    return app


def _read_chunked_body() -> None:
    """A body without a Content-Length (sent chunked) is read here whole, so that one
    over `MAX_BODY` is refused (413) rather than cut there: werkzeug stops reading
    such a body at the limit and says nothing. Under `claim serve` the worker has read
    it already (`service.runtime.http_worker`); this is for any other WSGI server."""
    environ = request.environ
    if request.content_length is None and environ.get("wsgi.input_terminated"):
        body = environ["wsgi.input"].read(MAX_BODY + 1)
        if len(body) > MAX_BODY:
            raise RequestEntityTooLarge()
        environ["wsgi.input"], environ["CONTENT_LENGTH"] = io.BytesIO(body), str(len(body))
        del environ["wsgi.input_terminated"]  # the body is read: as if it had come whole
        environ.pop("HTTP_TRANSFER_ENCODING", None)


def _safe_headers(response: Response) -> Response:
    """No answer is taken for another type than it says; none that a token or key
    opened, or that a change produced (it may hold a secret shown once), is stored by
    a cache."""
    response.headers["X-Content-Type-Options"] = "nosniff"
    if "Authorization" in request.headers or request.method not in ("GET", "HEAD"):
        response.headers["Cache-Control"] = "no-store"
    return response


def openapi_yaml(api: ProblemApi) -> str:
    """The OpenAPI document of `api` as YAML, keys in a stable order."""
    return yaml.safe_dump(api.documented(), sort_keys=True, allow_unicode=True)


def openapi_document() -> str:
    """The contract as `openapi.yaml` holds it, generated from the schemas."""
    claim = Claim.connect(Config(rate_limit=""), client=redis.Redis(), jobs=False)
    return create_app(claim=claim).extensions["openapi_yaml"]()


__all__ = ["create_app", "openapi_document"]
