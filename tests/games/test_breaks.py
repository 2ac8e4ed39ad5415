"""Breaks: a player's correspondence clocks stand still for the days they take, up to
the year's days, told to each game; ending one early gives the days not begun back."""

from datetime import UTC, datetime, timedelta

import pytest

from service import games
from service.api import create_app
from service.events import BreakEnded, BreakTaken, TurnTimedOut
from service.games.account import event_words
from tests.games.test_deadlines import a_running_game

DAY = 86400


def a_correspondence_game(claim, key, limit=DAY):
    """A game of `limit` seconds a move whose first seat is the player of `key`, played
    by its AI until that seat is to act."""
    return a_running_game(claim, limit=limit, policy="takeover:random", keys={0: key})


def _events(claim, game):
    return [record.event for record in claim.store.read(game.id, after=game.version)]


def test_a_break_stops_the_clock_of_each_correspondence_game_and_says_so(claim, clock):
    _, key = games.register(claim, "Ann")
    by_mail = a_correspondence_game(claim, key)
    live = a_correspondence_game(claim, key, limit=300)
    taken = games.take_break(claim, key, 7)
    until = taken.breaks.until  # a whole second, a week on
    assert timedelta(days=7, seconds=-1) < until - clock() <= timedelta(days=7)
    assert taken.game_ids == (by_mail.id,)
    assert _events(claim, by_mail) == [BreakTaken(0, until, 7, 30)]
    assert _events(claim, live) == []
    after = claim.store.load(by_mail.id)
    assert after.deadline == by_mail.deadline + (until - clock())
    assert after.seats[0].on_break(clock())
    clock.advance((after.deadline - clock()).total_seconds() - 1)  # a day and the break
    games.fire_due_timers(claim)  # the live game's, and reminders
    assert claim.store.version(by_mail.id) == after.version
    clock.advance(1)
    games.fire_due_timers(claim)
    assert isinstance(_events(claim, after)[0], TurnTimedOut)


def test_the_years_days_bound_breaks_and_one_runs_at_a_time(claim):
    _, key = games.register(claim, "Ann")
    assert games.take_break(claim, key, 20).breaks.days_used == 20
    with pytest.raises(games.BreakRefused, match="runs already"):
        games.take_break(claim, key, 1)
    games.end_break(claim, key)  # the 19 days not begun come back (the first has begun)
    assert games.breaks(claim, key).days_used == 1
    games.take_break(claim, key, 25)
    games.end_break(claim, key)
    with pytest.raises(games.BreakRefused, match="would not hold it: 2 of your 30"):
        games.take_break(claim, key, 29)


def test_ending_a_break_early_runs_the_clocks_again_and_gives_back_the_days_not_begun(claim, clock):
    _, key = games.register(claim, "Ann")
    game = a_correspondence_game(claim, key)
    games.take_break(claim, key, 5)
    clock.advance(DAY + 3600)  # into the second day of the break
    ended = games.end_break(claim, key)
    assert (ended.breaks.days_used, ended.game_ids) == (2, (game.id,))
    assert _events(claim, game)[-1] == BreakEnded(0)
    after = claim.store.load(game.id)
    assert after.deadline == game.deadline + timedelta(seconds=DAY + 3600)
    assert not after.seats[0].on_break(clock())
    with pytest.raises(games.BreakRefused, match="no break"):
        games.end_break(claim, key)


def test_a_break_leaves_a_seat_whose_time_ran_out_to_its_timeout_policy(claim, clock):
    _, key = games.register(claim, "Ann")
    game = a_correspondence_game(claim, key)
    clock.advance(DAY)  # the deadline has passed, its timer not fired yet
    assert games.take_break(claim, key, 3).game_ids == ()
    games.fire_due_timers(claim)
    assert isinstance(_events(claim, game)[0], TurnTimedOut)


def test_breaks_over_http_and_the_opponents_see_them(claim):
    client = create_app(claim=claim).test_client()
    _, key = games.register(claim, "Ann")
    game = a_correspondence_game(claim, key)
    me = {"Authorization": f"Bearer {key}"}
    taken = client.post("/me/break", json={"days": 4}, headers=me)
    assert taken.status_code == 201
    assert taken.get_json() | {"until": None} == {
        "running": True, "until": None, "days_used": 4, "days_allowed": 30,
        "game_ids": [game.id],
    }  # fmt: skip
    seat = client.get(f"/games/{game.id}").get_json()["seats"][0]
    assert (seat["break_days_used"], seat["break_days_allowed"]) == (4, 30)
    assert seat["break_until"] == taken.get_json()["until"]
    again = client.post("/me/break", json={"days": 1}, headers=me)
    assert again.status_code == 409
    assert again.get_json()["type"].endswith("/break-refused")
    assert client.post("/me/break", json={"days": 0}, headers=me).status_code == 400
    assert client.post("/me/break", json={"days": 2}).status_code == 401
    assert client.delete("/me/break", headers=me).get_json()["running"] is False
    assert client.get("/me/break", headers=me).get_json()["days_used"] == 1  # a day begun


@pytest.mark.parametrize(
    ("event", "words"),
    [
        (BreakTaken(1, datetime(2026, 12, 24, 9, 30, tzinfo=UTC), 7, 30),
         "seat 1's break runs until 2026-12-24 09:30 UTC (7 of 30 days this year)"),
        (BreakEnded(1), "seat 1's break ended"),
        (TurnTimedOut(0, "ai:greedy"), "seat 0's time ran out: an AI moves for them"),
        (TurnTimedOut(0, "takeover:greedy"),
         "seat 0's time ran out: an AI plays the seat until they take it back"),
        (TurnTimedOut(0, "forfeit"), "seat 0's time ran out: their side loses"),
    ],
)  # fmt: skip
def test_the_inbox_tells_breaks_and_timeouts_in_words(event, words):
    assert event_words(event) == words
