"""A game as a player's inbox shows it, and events told in words: public facts only,
for the inbox (`GET /me/games`) and the notifications sent to players."""

from __future__ import annotations

from .fold import RUNNING, Game
from .model import (
    DecisionMade,
    Event,
    GameAborted,
    GameResigned,
    SeatJoined,
    SeatReturned,
    TurnTimedOut,
)
from .store import GameStore


def inbox_entry(store: GameStore, game: Game, seat: int) -> dict:
    """One game as `seat`'s inbox shows it: public facts only."""
    to_act = game.state.to_act if game.status == RUNNING else None
    deadline = game.deadline
    now = store.clock()
    last = store.read(game.id, after=game.version - 1)[-1].event
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


def event_words(event: Event) -> str:
    """One sentence for an event, public: it names no hidden card."""
    if isinstance(event, DecisionMade):
        decision = event.decision
        if decision.kind == "play":
            words = f"seat {event.seat} played {decision.card}"
        elif decision.card is None:
            words = f"seat {event.seat} chose the top card of the draw pile over a prize"
        else:
            words = f"seat {event.seat} took the prize {decision.card}"
        if event.timeout_policy:
            words += f" (the {event.timeout_policy} timeout policy decided)"
        return words
    if isinstance(event, GameResigned):
        return f"seat {event.seat} resigned: the game is over"
    if isinstance(event, TurnTimedOut):
        return f"seat {event.seat}'s time ran out ({event.policy})"
    if isinstance(event, SeatReturned):
        return f"seat {event.seat}'s player is back"
    if isinstance(event, SeatJoined):
        return f"{event.name} took seat {event.seat}"
    if isinstance(event, GameAborted):
        return f"the game was aborted: {event.reason}"
    return "the game was created"
