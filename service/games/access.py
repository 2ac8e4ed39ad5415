"""Who a request is: invite codes, seat tokens and player keys (docs/design.md, API).

Each is 256 random bits from `secrets`, shown once and stored only as its SHA-256,
compared in constant time. A seat token opens exactly one seat of one game; a player
key (each device of a player has one) opens the player's own seats and inbox;
elsewhere they open nothing. The API reads them from `Authorization: Bearer`, never
from a URL, and hands them here.
"""

from __future__ import annotations

import hmac

from service.events import Game, KeyHolder, Player, digest

from .claim import Claim
from .errors import Unauthorized


def matches(secret: str, stored_digest: str | None) -> bool:
    """Whether `secret` is the one whose digest was stored, compared in constant time."""
    return stored_digest is not None and hmac.compare_digest(digest(secret), stored_digest)


def _holder(claim: Claim, key: str | None) -> KeyHolder | None:
    return None if key is None else claim.players.holder(key)


def player_of(claim: Claim, key: str | None) -> Player | None:
    """The registered player whose key (of any of their devices) this is, or None."""
    holder = _holder(claim, key)
    return None if holder is None else holder.player


def me(claim: Claim, key: str | None) -> Player:
    """The player whose key this is; Unauthorized if none."""
    return my_device(claim, key).player


def my_device(claim: Claim, key: str | None) -> KeyHolder:
    """The player whose key this is, and the device it is of; Unauthorized if none."""
    holder = _holder(claim, key)
    if holder is None and key is not None:
        raise Unauthorized(
            "no player has this key: mistyped, replaced (POST /me/key) or its device removed"
        )
    if holder is None:
        raise Unauthorized("send your player key as `Authorization: Bearer <key>`")
    return holder


def seat_of(claim: Claim, game: Game, token: str | None) -> int | None:
    """The seat of `game` that `token` opens (a seat token, or the key of the player
    who joined the seat), or None."""
    if token is None:
        return None
    seat = token_seat(game, token)
    if seat is None and any(candidate.player for candidate in game.seats):
        holder = player_of(claim, token)
        if holder is not None:
            seat = next((n for n, s in enumerate(game.seats) if s.player == holder.id), None)
    return seat


def token_seat(game: Game, token: str) -> int | None:
    """The seat of `game` whose seat token `token` is, or None (a player key, say)."""
    hashed, seat = digest(token), None
    for number, candidate in enumerate(game.seats):
        # Compare with every seat, so that the time taken says nothing about which.
        if candidate.token_hash is not None and hmac.compare_digest(hashed, candidate.token_hash):
            seat = number
    return seat


def seat_or_public(claim: Claim, game: Game, token: str | None) -> int | None:
    """The seat that `token` opens; None without a token (the public); Unauthorized
    if it opens none (a wrong token is not taken for no token)."""
    return None if token is None else seat_opened(claim, game, token)


def seat_opened(claim: Claim, game: Game, token: str | None) -> int:
    """The seat that `token` opens; Unauthorized if none."""
    seat = seat_of(claim, game, token)
    if seat is None:
        raise Unauthorized("send the seat's token as `Authorization: Bearer <token>`")
    return seat
