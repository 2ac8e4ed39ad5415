"""What follows any change of a game: its next AI turn, its next deadline, and the
notifications to its players; and writing those projections again from the streams."""

from __future__ import annotations

from collections.abc import Iterable

from service.events import Game, GameStore, SeatJoined, fold

from . import deadlines, notifications, queues, turns


def after_change(store: GameStore, game: Game, timer_fired: bool = False) -> None:
    """Schedule the AI turn, the deadline and the notifications that `game`, as it is
    now, calls for. `timer_fired`: the game's deadline timer fired, and is to be set
    anew whatever the game (`deadlines.schedule`)."""
    _schedule_turn_and_deadline(store, game, reset_timer=timer_fired)
    notifications.schedule(store, game)


def _schedule_turn_and_deadline(store: GameStore, game: Game, reset_timer: bool) -> None:
    turns.schedule(queues.queue(queues.AI, store.redis, store.prefix), store, game)
    queue = queues.queue(queues.DEADLINES, store.redis, store.prefix)
    deadlines.schedule(queue, store, game, reset=reset_timer)


def rematch_offered(store: GameStore, old: Game, new: Game, by: int) -> None:
    """Tell the other players of the finished game `old` that seat `by` offered the
    rematch `new` (each answers `POST /games/{old}/rematch` for its invite)."""
    others = [seat.player for number, seat in enumerate(old.seats) if seat.player and number != by]
    notifications.notify(store, old, notifications.REMATCH, others, new_game_id=new.id)


def rebuild(store: GameStore, game_ids: Iterable[str]) -> int:
    """Write again, from the streams, every projection of the games `game_ids` (the
    lobby, each player's games, the games waiting on an AI, the deadline and reminder
    timers) and enqueue or schedule what they call for; answer the number of games.

    Safe while the service runs: each projection keeps the newest version it was
    given, and what is enqueued twice is done once."""
    players = notifications.player_store(store)
    count = 0
    for game_id in game_ids:
        records = store.read(game_id)
        for record in records:
            if isinstance(record.event, SeatJoined) and record.event.player:
                players.add_game(record.event.player, game_id, record.at)
        game = fold(game_id, records)  # from the records just read: no second read
        store.lobby.project(game)
        _schedule_turn_and_deadline(store, game, reset_timer=True)
        if notifications.player_to_act(game):
            notifications.schedule_reminder(store, game)
        count += 1
    return count
