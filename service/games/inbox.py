"""A game as a player's inbox shows it: public facts only, for the inbox
(`GET /me/games`) and the notifications sent to players."""

from __future__ import annotations

from service.events import FINISHED, RUNNING, Game

from . import ids
from .account import event_words
from .claim import Claim


def inbox_entry(claim: Claim, game: Game, seat: int) -> dict:
    """One game as `seat`'s inbox shows it: public facts only."""
    to_act = game.state.to_act if game.status == RUNNING else None
    deadline = game.deadline
    now = claim.clock()
    last = claim.store.read(game.id, after=game.version - 1, until=game.version)[-1].event
    bots = claim.players.bots([s.player for s in game.seats if s.player])
    return {
        "game_id": game.id,
        "seat": seat,
        "status": game.status,
        "players": game.settings.players,
        "to_act": to_act,
        "your_turn": to_act == seat and game.seats[seat].takeover is None,
        "deadline_at": deadline,
        "seconds_left": None if deadline is None else max(0.0, (deadline - now).total_seconds()),
        "rated": game.creation.rated,
        "on_timeout": game.on_timeout,
        "last": event_words(last),
        "version": game.version,
        "updated_at": game.updated_at,
        "seats": [
            {
                "seat": n,
                "kind": s.kind,
                "level": s.level,
                "name": s.name,
                "bot": s.player is not None and s.player in bots,
            }
            for n, s in enumerate(game.seats)
        ],
        "ending": ending_body(game),
        "rematch": rematch_of(claim, game),
        "you_won": _won(game, seat),
    }


def rematch_of(claim: Claim, game: Game) -> str | None:
    """The id of the finished game's rematch, once somebody asked for it."""
    if game.status != FINISHED:
        return None
    rematch = ids.rematch_id(claim.rematches.secret(), game.id)
    return rematch if claim.store.versions([rematch])[rematch] else None


def ending_body(game: Game) -> dict | None:
    """How `game` ended, as its view and the inbox tell it: why, the seat that resigned
    or forfeited, the winning sides and their seats; None while it has not."""
    ending = game.ending
    if ending is None:
        return None
    sides = game.settings.sides
    return {
        "reason": ending.reason,
        "seat": ending.seat,
        "winners": list(ending.winners),
        "winning_seats": [seat for side in ending.winners for seat in sides[side]],
    }


def _won(game: Game, seat: int) -> bool | None:
    """Whether `seat`'s side won `game`; None before the end, or for a draw or an abort."""
    if game.ending is None or not game.ending.winners:
        return None
    return game.settings.side_of(seat) in game.ending.winners
