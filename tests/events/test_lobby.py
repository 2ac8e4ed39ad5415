"""The lobby projection: games listed by status, newest first, filtered by players,
rated and public, never going back in time (unit tests on fakeredis; the live path
and the rebuild: tests/games; the filters on a cluster: tests/api; what the lobby
tells its watchers: tests/events/test_watchers.py)."""

import itertools
import uuid
from dataclasses import replace
from datetime import timedelta

import pytest

from service.events import (
    ABORTED,
    FINISHED,
    HUMAN,
    OPEN,
    RUNNING,
    GameAborted,
    Lobby,
    LobbyFilter,
    Recorded,
    SeatJoined,
    SeatSpec,
    fold,
)
from tests.events.factories import START, TOKEN_HASH, a_creation, then


@pytest.fixture
def lobby(fake_redis):
    return Lobby(fake_redis, "test")


def a_game(game_id="g1", kinds=("human", "random"), minutes=0, rated=False, invited=False):
    """A game created `minutes` after the start; its people's seats are public unless
    `invited`."""
    creation = a_creation(len(kinds), kinds)
    if invited:
        invite = SeatSpec(HUMAN, invite_hash=TOKEN_HASH)
        creation = replace(
            creation, seats=tuple(s if s.kind != HUMAN else invite for s in creation.seats)
        )
    creation = replace(creation, rated=rated)
    return fold(game_id, [Recorded(1, uuid.uuid4(), START + timedelta(minutes=minutes), creation)])


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


def _every_kind_of_open_game(lobby) -> list:
    """Open games of every count of players, rated or not, public or not, two of each,
    projected in turn, a minute apart: newest last."""
    kinds = {2: ("human", "random"), 3: ("human", "random", "random"), 4: ("human",) * 4}
    shapes = list(itertools.product((2, 3, 4), (False, True), (False, True))) * 2
    games = [
        a_game(f"g{n:02}", kinds[players], n, rated, invited=not public)
        for n, (players, rated, public) in enumerate(shapes)
    ]
    for game in games:
        lobby.project(game)
    return games


@pytest.mark.parametrize(
    "facets",
    [{"players": 3}, {"rated": True}, {"public": False}, {"players": 2, "rated": False}],
    ids=repr,
)
def test_a_filtered_listing_counts_and_pages_the_games_it_keeps_only(lobby, facets):
    games = _every_kind_of_open_game(lobby)
    values = {
        game.id: {
            "players": game.settings.players,
            "rated": game.creation.rated,
            "public": game.public,
        }
        for game in games
    }
    kept = [g.id for g in reversed(games) if all(values[g.id][k] == v for k, v in facets.items())]
    assert 0 < len(kept) < len(games)
    only = LobbyFilter(**facets)
    pages = [_ids(lobby, OPEN, offset=offset, limit=2, only=only) for offset in range(0, 12, 2)]
    assert [game_id for page in pages for game_id in page] == kept
    assert lobby.page(OPEN, limit=1, only=only).total == len(kept)


def test_every_filter_together_keeps_the_games_of_that_one_kind(lobby):
    games = _every_kind_of_open_game(lobby)
    page = lobby.page(OPEN, only=LobbyFilter(players=4, rated=True, public=True))
    assert page.total == 2
    assert [summary.game_id for summary in page.games] == [games[23].id, games[11].id]
    assert all((s.players, s.rated, s.public) == (4, True, True) for s in page.games)


def test_a_game_leaves_the_filtered_listings_of_its_old_status(lobby):
    game = a_game(kinds=("human", "random"), rated=True, invited=True)
    lobby.project(game)
    only = LobbyFilter(players=2, rated=True, public=False)
    assert _ids(lobby, OPEN, only=only) == [game.id]
    lobby.project(then(game, SeatJoined(0, "Ann", TOKEN_HASH)))
    assert lobby.page(OPEN, only=only).total == 0
    assert lobby.page(OPEN, only=LobbyFilter(rated=True)).total == 0
    assert _ids(lobby, RUNNING, only=only) == [game.id]


def test_written_again_at_the_version_shown_a_game_is_listed_in_its_filters_too(lobby, fake_redis):
    """`claim rebuild` after an upgrade: the lobby shows the game at its version, but
    not in the listings of its filters, which were not kept then."""
    game = a_game()
    lobby.project(game)
    for key in fake_redis.scan_iter(match="test:{lobby:*}:open:*"):
        fake_redis.delete(key)
    lobby.project(game)
    two = LobbyFilter(players=2)
    assert lobby.page(OPEN, only=two).total == 0  # the same version: nothing written
    lobby.project(game, again=True)
    assert _ids(lobby, OPEN, only=two) == [game.id]
    lobby.project(a_game(kinds=("human", "random")), again=True)  # never an older one
    assert lobby.page(OPEN).total == 1
