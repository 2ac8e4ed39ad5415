"""What follows any change of a game: its next AI turn, its next deadline, and the
notifications to its players."""

from __future__ import annotations

from service.events import Game, GameStore

from . import deadlines, notifications, queues, turns


def after_change(store: GameStore, game: Game) -> None:
    """Schedule the AI turn, the deadline and the notifications that `game`, as it is
    now, calls for."""
    turns.schedule(queues.queue(queues.AI, store.redis, store.prefix), store, game)
    deadlines.schedule(queues.queue(queues.DEADLINES, store.redis, store.prefix), store, game)
    notifications.schedule(store, game)


def rematch_offered(store: GameStore, old: Game, new: Game, by: int) -> None:
    """Tell the other players of the finished game `old` that seat `by` offered the
    rematch `new` (each answers `POST /games/{old}/rematch` for its invite)."""
    others = [seat.player for number, seat in enumerate(old.seats) if seat.player and number != by]
    notifications.notify(store, old, notifications.REMATCH, others, new_game_id=new.id)
