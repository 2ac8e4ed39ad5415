"""What registered players do: register, read and change their profile, rotate their
key, read their inbox of games and the log of the notifications sent to them. Every
use case but `register` takes the player's key as it came, and refuses without it."""

from __future__ import annotations

from dataclasses import dataclass

from service.events import Delivery, Player

from .access import me
from .claim import Claim
from .errors import use_case
from .inbox import inbox_entry


@use_case
def register(
    claim: Claim, name: str, email: str | None = None, webhook_url: str | None = None
) -> tuple[Player, str]:
    """A new player and its key (shown once)."""
    return claim.players.register(name, email, webhook_url)


@use_case
def profile(claim: Claim, key: str | None) -> Player:
    """The player whose key this is."""
    return me(claim, key)


@use_case
def update(claim: Claim, key: str | None, **changes: str | None) -> Player:
    """Change the name, email or webhook URL (None clears email and URL)."""
    return claim.players.update(me(claim, key).id, **changes)


@use_case
def rotate_key(claim: Claim, key: str | None) -> str:
    """A new key for the player; the old one opens nothing any more."""
    return claim.players.rotate_key(me(claim, key).id)


@dataclass(frozen=True, slots=True)
class Inbox:
    total: int  # games that fit the filters
    games: list[dict]  # the page asked for, as `inbox_entry` tells each


@use_case
def inbox(
    claim: Claim,
    key: str | None,
    status: str | None = None,
    mine: bool = False,
    offset: int = 0,
    limit: int = 20,
) -> Inbox:
    """The player's games, newest joined first: whose turn, the deadline, the last
    thing that happened; with `status`, those of that status; with `mine`, those
    waiting for the player."""
    holder = me(claim, key)
    entries = []
    for game in claim.store.load_many(claim.player_games.of(holder.id)):  # one round trip
        seat = next(n for n, seat in enumerate(game.seats) if seat.player == holder.id)
        entry = inbox_entry(claim, game, seat)
        if status in (None, entry["status"]) and (not mine or entry["your_turn"]):
            entries.append(entry)
    return Inbox(len(entries), entries[offset : offset + limit])


@use_case
def deliveries(claim: Claim, key: str | None) -> list[Delivery]:
    """The player's last notifications, newest first: where, what came back."""
    return claim.players.deliveries(me(claim, key).id)
