"""What follows a change of a game (`workers/changes.py`)."""

from service.events import SeatJoined
from tests.events.factories import TOKEN_HASH, RoundTrips, a_move, new_game
from workers import changes


def test_a_move_of_people_without_move_time_or_players_to_notify_asks_nothing_of_redis(
    store, monkeypatch
):
    """No AI to enqueue, no deadline to set or clear, nobody to tell: every move of a
    live game between people spends no round trip on what follows it."""
    game = new_game(store, kinds=("human", "human"))
    store.append(game.id, [SeatJoined(n, f"p{n}", TOKEN_HASH) for n in (0, 1)], game.version)
    started = store.load(game.id)
    changes.after_change(store, started)  # the start clears the join timer
    store.append(game.id, [a_move(started.state)], started.version)
    moved = store.load(game.id)
    round_trips = RoundTrips(store.redis, monkeypatch)
    changes.after_change(store, moved)
    assert round_trips.count == 0
