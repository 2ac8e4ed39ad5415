"""The process's watchers of games and of the lobby, woken by one subscription to the
changes every append (and the lobby, and an announcement) publishes (a real Redis:
pub/sub).

A listener may wake a waiter with news of a version the waiter has seen already (the
creation of a game, heard late): waiters look and find nothing newer. The tests let
such news pass first (`_quiet`)."""

import threading
import time

import pytest
import redis

from service.events import (
    FIRST_DEVICE,
    GameStore,
    Heard,
    Lobby,
    NewsWaiter,
    PlayerStore,
    SeatJoined,
    Watchers,
    digest,
)
from tests.events.factories import TOKEN_HASH, RoundTrips, a_move, new_game, play, then

READY = 10  # seconds for the listener to subscribe, or a waiter to be woken


@pytest.fixture
def client(new_redis_client, prefix):
    """A client of its own, named, so that a test can cut its subscription."""
    client = new_redis_client(client_name=f"{prefix}-watchers")
    yield client
    client.close()


@pytest.fixture
def store(client, prefix):
    return GameStore(client, prefix)


@pytest.fixture
def watchers(client, prefix):
    """Watchers on a store of their own: no fold cached by the appends."""
    watchers = Watchers(client, prefix, GameStore(client, prefix))
    assert watchers.ready(READY)
    yield watchers
    watchers.close()


def _quiet(waiter):
    """Let news heard late pass."""
    while waiter.wait(0.2):
        pass
    if isinstance(waiter, NewsWaiter):
        waiter.games()


def _heard(waiter, until) -> dict:
    """The games a waiter of many hears of, each with its newest version, until
    `until(heard)`."""
    heard = {}
    give_up = time.monotonic() + READY
    while not until(heard):
        assert time.monotonic() < give_up, f"gave up; heard {heard}"
        if waiter.wait(0.1):
            heard.update(waiter.games())
    return heard


def _until(condition, what: str):
    give_up = time.monotonic() + READY
    while not condition():
        assert time.monotonic() < give_up, f"gave up waiting for {what}"
        time.sleep(0.01)


def _listener(client, prefix) -> tuple[redis.Redis, int] | None:
    """The watchers' subscribed connection: its server (a node, on a cluster) and id."""
    if isinstance(client, redis.RedisCluster):
        servers = [client.get_redis_connection(node) for node in client.get_nodes()]
    else:
        servers = [client]
    for server in servers:
        for entry in server.client_list():
            if entry["name"] == f"{prefix}-watchers" and "P" in entry["flags"]:
                return server, entry["id"]
    return None


def test_a_waiter_is_woken_by_an_append_to_its_game(watchers, store):
    game = new_game(store)
    with watchers.watching(game.id) as waiter:
        _quiet(waiter)
        store.append(game.id, [a_move(game.state)], 1)
        assert waiter.wait(READY)
        assert waiter.game().version == 2


def test_a_waiter_sleeps_through_the_changes_of_other_games(watchers, store):
    mine, other = new_game(store), new_game(store, seed=2)
    with watchers.watching(mine.id) as waiter:
        _quiet(waiter)
        store.append(other.id, [a_move(other.state)], 1)
        assert not waiter.wait(0.3)


def test_every_waiter_of_a_game_is_woken_once_by_one_change(watchers, store):
    game = new_game(store)
    with watchers.watching(game.id) as first, watchers.watching(game.id) as second:
        assert watchers.count() == 2
        _quiet(first)
        _quiet(second)
        store.append(game.id, [a_move(game.state)], 1)
        assert first.wait(READY) and second.wait(READY)
        assert not first.wait(0.05)
    assert watchers.count() == 0


def test_the_waiters_of_a_game_load_each_version_once_between_them(
    watchers, store, client, monkeypatch
):
    game = new_game(store)
    with watchers.watching(game.id) as first, watchers.watching(game.id) as second:
        _quiet(first)
        _quiet(second)
        store.append(game.id, [a_move(game.state)], 1)
        assert first.wait(READY) and second.wait(READY)
        round_trips = RoundTrips(client, monkeypatch)
        loaded = first.game()
        assert loaded.version == 2 and round_trips.count == 1
        assert second.game() is loaded and round_trips.count == 1


def test_a_waiter_gets_each_version_it_missed_in_order(watchers, store):
    game = new_game(store)
    with watchers.watching(game.id) as waiter:
        later = play(store, game, moves=3)
        assert waiter.wait(READY)
        versions = [waiter.game(version) for version in (2, 3, 4)]
        assert [seen.version for seen in versions] == [2, 3, 4]
        assert versions[-1] == later


def test_a_lost_subscription_wakes_every_waiter_to_look_again(watchers, store, client, prefix):
    game = new_game(store)
    with watchers.watching(game.id) as waiter:
        _quiet(waiter)
        server, lost = lost_listener = _listener(client, prefix)
        server.client_kill_filter(_id=lost)
        assert waiter.wait(READY)  # nothing changed, but a change might have been missed
        assert waiter.game().version == 1
        _until(lambda: _listener(client, prefix) not in (None, lost_listener), "a new subscription")
        _until(lambda: watchers.ready(0), "the listener")
        _quiet(waiter)
        store.append(game.id, [a_move(game.state)], 1)
        assert waiter.wait(READY) and waiter.game().version == 2


def test_a_waiter_of_many_games_hears_each_changed_ones_newest_version(watchers, store):
    first, second, other = (new_game(store, seed=n) for n in (1, 2, 3))
    with watchers.watching_many([first.id, second.id], lobby=False) as waiter:
        assert watchers.count() == 1
        _quiet(waiter)
        play(store, other, moves=1)
        play(store, second, moves=2)  # versions 2 and 3
        heard = _heard(waiter, lambda heard: heard.get(second.id) == Heard(3))
        assert heard == {second.id: Heard(3, again=False)}
        assert not waiter.take_lobby()
    assert watchers.count() == 0


def test_an_announcement_tells_the_games_waiters_its_current_version_again(watchers, store):
    game = play(store, new_game(store), moves=1)
    with watchers.watching(game.id) as one, watchers.watching_many([game.id], False) as many:
        _quiet(one)
        _quiet(many)
        store.announce(game.id)
        assert one.wait(READY) and one.game().version == 2
        assert _heard(many, lambda heard: heard) == {game.id: Heard(2, again=True)}


def test_a_waiter_of_the_lobby_is_told_when_the_lobby_wrote_and_only_then(
    watchers, store, client, prefix
):
    lobby, game = Lobby(client, prefix), new_game(store, kinds=["human", "random"])
    with watchers.watching_many([], lobby=True) as waiter:
        _quiet(waiter)
        lobby.project(game)
        assert waiter.wait(READY) and waiter.take_lobby()
        lobby.project(game)  # shown already: nothing written
        assert not waiter.wait(0.3) and not waiter.take_lobby()


def test_a_lobby_change_not_taken_yet_wakes_its_waiter_once(watchers, store, client, prefix):
    """A stream of changes holding the lobby's news back (told at most every few
    seconds) is not woken by each change of the lobby meanwhile."""
    lobby, game = Lobby(client, prefix), new_game(store, kinds=["human", "random"])
    with watchers.watching_many([], lobby=True) as waiter:
        _quiet(waiter)
        lobby.project(game)
        assert waiter.wait(READY) and waiter.lobby_changed
        lobby.project(then(game, SeatJoined(0, "Ann", TOKEN_HASH)))
        assert not waiter.wait(0.3)
        assert waiter.take_lobby() and not waiter.lobby_changed


def test_a_lost_subscription_tells_a_waiter_of_many_to_look_at_every_game_and_the_lobby(
    watchers, store, client, prefix
):
    first, second = new_game(store), new_game(store, seed=2)
    with watchers.watching_many([first.id, second.id], lobby=True) as waiter:
        _quiet(waiter)
        server, lost = _listener(client, prefix)
        server.client_kill_filter(_id=lost)
        heard = _heard(waiter, lambda heard: len(heard) == 2)
        assert heard == {first.id: None, second.id: None}  # their versions not known
        assert waiter.take_lobby()


def test_a_players_waiter_is_told_of_the_player_and_of_the_games_added_to_it(watchers, store):
    game, other = new_game(store, seed=1), new_game(store, seed=2)
    with watchers.watching_player("ann") as waiter:
        _quiet(waiter)
        store.announce_player("bob")  # another player's news: nothing
        assert not waiter.wait(0.3) and not waiter.take_player()
        store.announce_player("ann")
        assert waiter.wait(READY) and waiter.take_player() and not waiter.take_player()
        watchers.watch_games(waiter, [game.id])
        play(store, other, moves=1)
        play(store, game, moves=1)
        assert _heard(waiter, lambda heard: heard) == {game.id: Heard(2, again=False)}
        assert watchers.count() == 1
    assert watchers.count() == 0
    store.announce_player("ann")  # nobody watches: nothing kept


def test_a_key_watch_is_told_when_its_key_is_revoked_and_only_its_own(watchers, client, prefix):
    players = PlayerStore(client, prefix)
    ann, first = players.register("Ann")
    phone, second = players.add_device(ann.id, "phone", cap=20)
    woken = {"first": threading.Event(), "second": threading.Event()}
    with (
        watchers.watching_key(digest(first), woken["first"].set) as firsts,
        watchers.watching_key(digest(second), woken["second"].set) as seconds,
    ):
        players.remove_device(ann.id, phone.id)
        assert woken["second"].wait(READY) and seconds.revoked
        assert not woken["first"].wait(0.3) and not firsts.revoked
        players.rotate_key(ann.id, FIRST_DEVICE, first)
        assert woken["first"].wait(READY) and firsts.revoked


def test_a_lost_subscription_makes_a_key_watch_doubtful(watchers, client, prefix):
    woken = threading.Event()
    with watchers.watching_key("digest of a key", woken.set) as watch:
        watch.doubtful = False  # looked at once registered, as a stream does
        server, lost = _listener(client, prefix)
        server.client_kill_filter(_id=lost)
        assert woken.wait(READY)
        assert watch.doubtful and not watch.revoked  # a revocation may have been missed: look
