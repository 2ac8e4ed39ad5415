"""The lobby projection: games listed by status, newest first, rebuilt from the streams."""

import uuid

from service.events import ABORTED, FINISHED, OPEN, RUNNING, GameAborted, GameResigned, SeatJoined
from tests.events.factories import TOKEN_HASH, new_game, play


def _ids(store, status, **page) -> list[str]:
    return [summary.game_id for summary in store.listing(status, **page).games]


def _listed(store, game_id) -> list[str]:
    return [s for s in (OPEN, RUNNING, FINISHED, ABORTED) if game_id in _ids(store, s)]


def test_a_game_moves_from_open_to_running_to_finished(store):
    game = new_game(store, kinds=["human", "random"])
    assert _listed(store, game.id) == [OPEN]
    store.append(game.id, [SeatJoined(0, "Ann", TOKEN_HASH)], 1)
    assert _listed(store, game.id) == [RUNNING]
    play(store, store.load(game.id))
    assert _listed(store, game.id) == [FINISHED]


def test_resigned_and_aborted_games_are_listed_as_such(store):
    resigned, aborted = new_game(store), new_game(store, kinds=["human", "human"])
    store.append(resigned.id, [GameResigned(0)], 1)
    store.append(aborted.id, [GameAborted("seats not taken in time")], 1)
    assert _listed(store, resigned.id) == [FINISHED]
    assert _listed(store, aborted.id) == [ABORTED]
    assert store.listing(ABORTED).games[0].ending == ABORTED


def test_a_listing_shows_public_facts_only(store):
    game = new_game(store, kinds=["human", "greedy"])
    store.append(game.id, [SeatJoined(0, "Ann", TOKEN_HASH)], 1)
    summary = store.listing(RUNNING).games[0]
    assert summary.seats == (
        {"kind": "human", "level": None, "name": "Ann"},
        {"kind": "ai", "level": "greedy", "name": None},
    )
    assert (summary.players, summary.factions, summary.open_seats) == (
        2,
        ("GO", "KN", "UN", "DO", "DW"),
        (),
    )
    assert TOKEN_HASH not in repr(summary)


def test_listings_are_newest_first_and_paginated(store):
    games = [new_game(store, seed=seed).id for seed in range(5)]
    assert _ids(store, RUNNING) == games[::-1]
    page = store.listing(RUNNING, offset=1, limit=2)
    assert page.total == 5
    assert [summary.game_id for summary in page.games] == games[3:1:-1]


def test_the_lobby_is_rebuilt_from_the_streams(store):
    open_game = new_game(store, kinds=["human", "random"])
    finished = play(store, new_game(store))
    store.lobby.clear()
    assert _listed(store, open_game.id) == []
    assert store.rebuild_lobby() == 2
    assert _listed(store, open_game.id) == [OPEN]
    assert _listed(store, finished.id) == [FINISHED]


def test_an_older_version_never_overwrites_a_newer_listing(store):
    game = new_game(store, kinds=["human", "random"])
    store.append(game.id, [SeatJoined(0, "Ann", TOKEN_HASH)], 1)
    store.lobby.project(store.load(game.id, 1))
    assert _listed(store, game.id) == [RUNNING]


def test_a_resent_append_repairs_a_projection_it_missed(store):
    game = new_game(store, kinds=["human", "random"])
    join = [SeatJoined(0, "Ann", TOKEN_HASH)]
    ids = [uuid.uuid4()]
    store.append(game.id, join, 1, ids=ids)
    store.lobby.clear()  # as if the process died between append and projection
    store.append(game.id, join, 1, ids=ids)
    assert _listed(store, game.id) == [RUNNING]
