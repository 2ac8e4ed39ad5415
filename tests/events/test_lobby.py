"""The lobby projection: games listed by status, newest first, never going back in
time (unit tests on fakeredis; the live path and the rebuild: tests/games)."""

import uuid
from datetime import timedelta

import pytest

from service.events import (
    ABORTED,
    FINISHED,
    OPEN,
    RUNNING,
    GameAborted,
    Lobby,
    Recorded,
    SeatJoined,
    fold,
)
from tests.events.factories import START, TOKEN_HASH, a_creation, then


@pytest.fixture
def lobby(fake_redis):
    return Lobby(fake_redis, "test")


def a_game(game_id="g1", kinds=("human", "random"), minutes=0):
    """A game created `minutes` after the start."""
    creation = Recorded(
        1, uuid.uuid4(), START + timedelta(minutes=minutes), a_creation(kinds=kinds)
    )
    return fold(game_id, [creation])


def _ids(lobby, status, **page) -> list[str]:
    return [summary.game_id for summary in lobby.page(status, **page).games]


def _listed(lobby, game_id) -> list[str]:
    return [s for s in (OPEN, RUNNING, FINISHED, ABORTED) if game_id in _ids(lobby, s)]


def test_a_game_is_listed_under_its_status_as_of_the_version_shown(lobby):
    game = a_game()
    lobby.project(game)
    assert _listed(lobby, game.id) == [OPEN]
    running = then(game, SeatJoined(0, "Ann", TOKEN_HASH))
    lobby.project(running)
    assert _listed(lobby, game.id) == [RUNNING]
    aborted = then(running, GameAborted("called off"))
    lobby.project(aborted)
    assert _listed(lobby, game.id) == [ABORTED]
    assert lobby.page(ABORTED).games[0].ending == ABORTED


def test_an_older_version_never_overwrites_a_newer_listing(lobby):
    game = a_game()
    lobby.project(then(game, SeatJoined(0, "Ann", TOKEN_HASH)))
    lobby.project(game)
    assert _listed(lobby, game.id) == [RUNNING]


def test_a_listing_shows_public_facts_only(lobby):
    game = then(a_game(kinds=("human", "greedy")), SeatJoined(0, "Ann", TOKEN_HASH))
    lobby.project(game)
    summary = lobby.page(RUNNING).games[0]
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


def test_listings_are_newest_first_and_paginated(lobby):
    games = [a_game(f"g{n}", ("random", "random"), minutes=n) for n in range(5)]
    for game in games:
        lobby.project(game)
    assert _ids(lobby, RUNNING) == ["g4", "g3", "g2", "g1", "g0"]
    page = lobby.page(RUNNING, offset=1, limit=2)
    assert page.total == 5
    assert [summary.game_id for summary in page.games] == ["g3", "g2"]


def test_pages_merge_the_shards_newest_first_and_ties_by_id(lobby, fake_redis):
    games = [a_game(f"g{n:02}", ("random", "random"), minutes=n // 2) for n in range(40)]
    for game in games:
        lobby.project(game)
    shards = {key.split(b"}")[0] for key in fake_redis.scan_iter(match="test:{lobby:*}:running")}
    assert len(shards) > 1, "the games are spread over the shards"
    newest = [f"g{n:02}" for n in reversed(range(40))]  # two at each minute: the last id first
    pages = [_ids(lobby, RUNNING, offset=offset, limit=7) for offset in range(0, 40, 7)]
    assert [game_id for page in pages for game_id in page] == newest
    assert lobby.page(RUNNING, offset=35, limit=7).total == 40
