"""Every error as RFC 9457 `application/problem+json`, with a stable `type` per kind.

The application's errors (`service.games.errors`) are mapped to problems by one table,
`PROBLEMS`, here and nowhere else. A problem's `type` is `/problems/<kind>`; its
`detail` never holds a secret or a card the caller may not see (the engine's reasons
name only the caller's own cards, and only the acting seat's move can be rejected for
them).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from json import JSONDecodeError

import flask_smorest
from flask import Flask, Response, json, request
from marshmallow import Schema, fields
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException

from service import games

MEDIA_TYPE = "application/problem+json"
RETRY_AFTER = 5  # seconds a client is asked to wait when the store is unavailable
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of problem: its `type` slug, HTTP status and title."""

    slug: str
    status: int
    title: str

    @property
    def type(self) -> str:
        return f"/problems/{self.slug}"


KINDS = {
    kind.slug: kind
    for kind in (
        Kind("validation-error", 400, "The request is not valid"),
        Kind("unauthorized", 401, "A token or key is missing or wrong"),
        Kind("wrong-code", 401, "The sign-in code is wrong, used or expired"),
        Kind("wrong-invite", 403, "The invite code is wrong"),
        Kind("wrong-token", 403, "The token does not open that seat"),
        Kind("not-your-turn", 403, "It is not this seat's turn"),
        Kind("cross-site-watch", 403, "Another site's page may not watch games here"),
        Kind("not-your-challenge", 403, "The challenge is not yours to answer"),
        Kind("unknown-game", 404, "No such game"),
        Kind("unknown-step", 404, "The game has no such step"),
        Kind("unknown-player", 404, "No such player"),
        Kind("unknown-device", 404, "You have no such device"),
        Kind("unknown-push-subscription", 404, "You have no such push subscription"),
        Kind("unknown-challenge", 404, "No such challenge"),
        Kind("not-found", 404, "No such resource"),
        Kind("method-not-allowed", 405, "Method not allowed"),
        Kind("request-timeout", 408, "The request did not come whole in time"),
        Kind("stale-version", 409, "The game has moved on"),
        Kind("seat-unavailable", 409, "The seat cannot be taken"),
        Kind("game-not-started", 409, "The game waits for its seats to be taken"),
        Kind("game-over", 409, "The game is over"),
        Kind("game-not-over", 409, "The game is still running"),
        Kind("email-not-configured", 409, "This server sends no email"),
        Kind("too-many-devices", 409, "You hold as many device keys as you may"),
        Kind("too-many-push-subscriptions", 409, "You hold as many push subscriptions as you may"),
        Kind("too-many-accounts", 409, "The address serves as many players as it may"),
        Kind("challenge-not-open", 409, "The challenge is no longer open"),
        Kind("break-refused", 409, "The break cannot be taken"),
        Kind("bot-rated-game", 409, "A bot plays a rated game with a person only when challenged"),
        Kind("payload-too-large", 413, "The request body is too large"),
        Kind("uri-too-long", 414, "The request line is too long"),
        Kind("headers-too-large", 431, "The request's headers are too large"),
        Kind("illegal-move", 422, "The move is against the rules"),
        Kind("idempotency-key-reused", 422, "The idempotency key was used for another request"),
        Kind("rate-limited", 429, "Too many requests"),
        Kind("too-many-watches", 429, "Too many live streams and long-polls open"),
        Kind("too-many-sending", 429, "Too many connections still sending a request"),
        Kind("too-many-streams", 429, "Too many player streams open"),
        Kind("too-many-challenges", 429, "Too many challenges open"),
        Kind("too-many-analyses", 429, "Too many analyses queued"),
        Kind("internal-error", 500, "Internal server error"),
        Kind("corrupt-game", 500, "A stored event of the game cannot be read"),
        Kind("not-implemented", 501, "The server does not do that"),
        Kind("store-unavailable", 503, "The game store is unavailable"),
    )
}
# The problem kind of each application error: the one table.
PROBLEMS: dict[type[games.GameError], str] = {
    games.InvalidRequest: "validation-error",
    games.Unauthorized: "unauthorized",
    games.WrongInvite: "wrong-invite",
    games.WrongToken: "wrong-token",
    games.WrongCode: "wrong-code",
    games.EmailNotConfigured: "email-not-configured",
    games.TooManyDevices: "too-many-devices",
    games.TooManyAccounts: "too-many-accounts",
    games.TooManySubscriptions: "too-many-push-subscriptions",
    games.UnknownSubscription: "unknown-push-subscription",
    games.NotYourTurn: "not-your-turn",
    games.UnknownGame: "unknown-game",
    games.UnknownStep: "unknown-step",
    games.UnknownPlayer: "unknown-player",
    games.UnknownDevice: "unknown-device",
    games.StaleVersion: "stale-version",
    games.SeatUnavailable: "seat-unavailable",
    games.GameNotStarted: "game-not-started",
    games.GameOver: "game-over",
    games.GameNotOver: "game-not-over",
    games.IllegalMove: "illegal-move",
    games.IdempotencyKeyReused: "idempotency-key-reused",
    games.TooManyWatches: "too-many-watches",
    games.TooManyStreams: "too-many-streams",
    games.TooManyChallenges: "too-many-challenges",
    games.TooManyAnalyses: "too-many-analyses",
    games.UnknownChallenge: "unknown-challenge",
    games.NotYourChallenge: "not-your-challenge",
    games.ChallengeNotOpen: "challenge-not-open",
    games.BotRatedGame: "bot-rated-game",
    games.BreakRefused: "break-refused",
    games.CorruptGame: "corrupt-game",
    games.StoreUnavailable: "store-unavailable",
    games.Refused: "validation-error",  # a refusal of a kind of its own not named above
    games.Failed: "internal-error",
}
# Failures whose detail is for the log only: the client is told this instead.
TOLD = {
    games.StoreUnavailable: "the game store cannot be reached; try again",
}
# Werkzeug's HTTP errors that are not raised as a Problem, by status.
HTTP_KINDS = {
    400: "validation-error",
    404: "not-found",
    405: "method-not-allowed",
    413: "payload-too-large",
    422: "validation-error",
    429: "rate-limited",
}


class Problem(Exception):
    """An error answered as a problem of `kind`, with a `detail` and extension members."""

    def __init__(self, kind: str, detail: str, **extensions):
        super().__init__(detail)
        self.kind = KINDS[kind]
        self.detail = detail
        self.extensions = extensions


class _Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400

    def _raw_load_json(self, req):
        """webargs's, with JSON that Python's parser gives up on (nested a thousand
        deep, an integer of more than 4,300 digits) refused as invalid JSON, not
        failing as a bug."""
        try:
            return super()._raw_load_json(req)
        except (RecursionError, ValueError) as error:
            if isinstance(error, JSONDecodeError):
                raise
            raise JSONDecodeError(f"JSON this server cannot read: {error}", "?", 0) from None


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint, answering a request that fails its schema with 400."""

    ARGUMENTS_PARSER = _Parser()

    def arguments(self, schema, *args, **kwargs):
        """flask-smorest's, with one instance of a schema class for all requests:
        webargs would make one per request, 80 µs of the 200 µs a parse took."""
        return super().arguments(schema() if isinstance(schema, type) else schema, *args, **kwargs)


class ProblemSchema(Schema):
    """An RFC 9457 problem; some kinds add members (`errors`, `current_version`)."""

    type = fields.String(required=True, metadata={"example": "/problems/illegal-move"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    instance = fields.String(required=True, metadata={"description": "the request's path"})
    errors = fields.Dict(metadata={"description": "validation-error: what is wrong, by field"})
    current_version = fields.Integer(metadata={"description": "stale-version: the game's version"})


def problem_of(error: Exception) -> Problem:
    """The problem that answers `error`."""
    if isinstance(error, Problem):
        return error
    if isinstance(error, games.GameError):
        return _application_problem(error)
    if isinstance(error, HTTPException) and error.code in HTTP_KINDS:
        messages = getattr(error, "data", {}).get("messages")
        if messages:
            detail = "the request does not fit the API's schema: see errors"
            return Problem("validation-error", detail, errors=_flatten(messages))
        return Problem(HTTP_KINDS[error.code], error.description or "")
    if isinstance(error, HTTPException) and error.code and error.code < 500:
        # Any other client error keeps its status under the generic kind of its class.
        return Problem("validation-error", error.description or "")
    log.exception("unexpected error", exc_info=error)
    return Problem("internal-error", "the server failed; the error was logged")


def _application_problem(error: games.GameError) -> Problem:
    kind = next(PROBLEMS[kind] for kind in type(error).__mro__ if kind in PROBLEMS)
    if isinstance(error, games.Failed):
        log.error("%s", error.__cause__ or error)  # what failed, for the operator
    extensions = {}
    if isinstance(error, games.StaleVersion):
        extensions["current_version"] = error.current_version
    if isinstance(error, games.InvalidRequest) and error.errors:
        extensions["errors"] = error.errors
    return Problem(kind, TOLD.get(type(error), error.detail), **extensions)


def _flatten(messages: dict) -> dict:
    """Messages by field. webargs nests them under their location ("json", "query",
    "headers"), and a body that is not JSON at all has a list of them."""
    if len(messages) == 1 and next(iter(messages)) in ("json", "query", "headers", "view_args"):
        messages = next(iter(messages.values()))
    return messages if isinstance(messages, dict) else {"body": messages}


def respond(error: Exception) -> Response:
    """The problem+json response to `error`."""
    problem = problem_of(error)
    body = {
        "type": problem.kind.type,
        "title": problem.kind.title,
        "status": problem.kind.status,
        "detail": problem.detail,
        "instance": request.path,
        **problem.extensions,
    }
    response = Response(json.dumps(body), problem.kind.status, mimetype=MEDIA_TYPE)
    if isinstance(error, HTTPException):
        for name, value in error.get_headers():
            if name.lower() not in ("content-type", "content-length"):
                response.headers[name] = value
    if problem.kind.status == 401:  # RFC 6750: which scheme, and whether one was sent wrong
        sent = "Authorization" in request.headers
        response.headers["WWW-Authenticate"] = 'Bearer realm="claim"' + (
            ', error="invalid_token"' if sent else ""
        )
    if problem.kind.status == 503:
        response.headers["Retry-After"] = str(RETRY_AFTER)
    return response


def register(app: Flask) -> None:
    """Answer every error of `app` as a problem."""
    app.register_error_handler(Exception, respond)
    app.register_error_handler(HTTPException, respond)
