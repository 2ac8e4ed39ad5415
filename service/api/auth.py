"""Secrets: invite codes, seat tokens and player keys (DESIGN.md, API).

Each is 256 random bits from `secrets`, shown once and stored only as its SHA-256.
A token or key is sent as `Authorization: Bearer <token>`, never in a URL, and compared
in constant time. A seat token opens exactly one seat of one game; a player key opens
the player's own seats and inbox; elsewhere they open nothing.
"""

from __future__ import annotations

import hmac

from flask import current_app, request

from service.events import Game
from service.events.players import Player, digest, new_secret

__all__ = ["bearer_token", "digest", "matches", "new_secret", "player", "seat_of"]


def matches(secret: str, stored_digest: str | None) -> bool:
    """Whether `secret` is the one whose digest was stored, compared in constant time."""
    return stored_digest is not None and hmac.compare_digest(digest(secret), stored_digest)


def bearer_token() -> str | None:
    """The token of the request's `Authorization: Bearer` header, if any."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def player() -> Player | None:
    """The registered player whose key the request sends, or None."""
    token = bearer_token()
    return None if token is None else current_app.extensions["claim"].players.by_key(token)


def seat_of(game: Game) -> int | None:
    """The seat of `game` that the request's token opens (a seat token, or the key of
    the player who joined the seat), or None."""
    token = bearer_token()
    if token is None:
        return None
    hashed = digest(token)
    seat = None
    for number, candidate in enumerate(game.seats):
        # Compare with every seat, so that the time taken says nothing about which.
        if candidate.token_hash is not None and hmac.compare_digest(hashed, candidate.token_hash):
            seat = number
    if seat is None and any(candidate.player for candidate in game.seats):
        holder = player()
        if holder is not None:
            seat = next((n for n, s in enumerate(game.seats) if s.player == holder.id), None)
    return seat
