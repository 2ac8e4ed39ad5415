"""The caller's credential: the token of an `Authorization: Bearer` header (a seat
token or a player key), never read from a URL. What it opens is the application's
to say (`service.games.access`)."""

from __future__ import annotations

from flask import request


def bearer_token() -> str | None:
    """The token of the request's `Authorization: Bearer` header, if any."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None
