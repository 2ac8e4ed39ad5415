"""The caller's credential: the token of an `Authorization: Bearer` header (a seat
token or a player key), never read from a URL. What it opens is the application's
to say (`service.games.access`)."""

from __future__ import annotations

import functools

from flask import request

from service import games


def bearer_token() -> str | None:
    """The token of the request's `Authorization: Bearer` header, if any."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def bearer_required(view):
    """Refuse a request without a bearer token (401) before its body is read: a client
    without one learns that first, whatever else is wrong. Placed under the route,
    above the arguments."""

    @functools.wraps(view)
    def checked(*args, **kwargs):
        if bearer_token() is None:
            raise games.Unauthorized("send your token as `Authorization: Bearer <token>`")
        return view(*args, **kwargs)

    return checked
