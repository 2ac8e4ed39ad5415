"""A game as a player's inbox shows it: public facts only, for the inbox
(`GET /me/games`) and the notifications sent to players."""

from __future__ import annotations

from service.events import RUNNING, Game

from .account import event_words
from .claim import Claim


def inbox_entry(claim: Claim, game: Game, seat: int) -> dict:
    """One game as `seat`'s inbox shows it: public facts only."""
    to_act = game.state.to_act if game.status == RUNNING else None
    deadline = game.deadline
    now = claim.clock()
    last = claim.store.read(game.id, after=game.version - 1, until=game.version)[-1].event
    return {
        "game_id": game.id,
        "seat": seat,
        "status": game.status,
        "players": game.settings.players,
        "to_act": to_act,
        "your_turn": to_act == seat and game.seats[seat].takeover is None,
        "deadline_at": deadline,
        "seconds_left": None if deadline is None else max(0.0, (deadline - now).total_seconds()),
        "last": event_words(last),
        "version": game.version,
        "updated_at": game.updated_at,
    }
