"""Looking at a game live: long-polls, streams, and streams of which games changed
(`service/games/live.py`), against a real Redis (the watchers listen to its pub/sub)."""

import threading
import time
from contextlib import contextmanager
from dataclasses import replace

import pytest

from service import games
from service.games import (
    GAME,
    KEEP_ALIVE,
    LOBBY,
    MAX_RESUME,
    SNAPSHOT,
    VIEW,
    Change,
    News,
    TooManyWatches,
    Unauthorized,
    changed,
    changes,
)
from tests.games.factories import a_game, joined, moved
from tests.games.test_ratings import played_out

READY = 10  # seconds


@pytest.fixture
def table(claim):
    """A running game of two people: the game and the seats' tokens."""
    game = a_game(claim, kinds=("human", "human"))
    tokens = joined(claim, game)
    assert claim.watchers.ready(READY)
    return claim.store.load(game.id), tokens


def _versions(updates, count: int) -> list[tuple[int | None, str]]:
    """The first `count` updates: (version, kind), None for a keep-alive."""
    seen = []
    for update in updates:
        seen.append((None if update.game is None else update.game.version, update.kind))
        if len(seen) == count:
            updates.close()
            break
    return seen


def _later(claim, action):
    """Run `action` once the game has a waiter in this process."""

    def run():
        give_up = time.monotonic() + READY
        while claim.watchers.count() == 0 and time.monotonic() < give_up:
            time.sleep(0.001)
        action()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_long_poll_answers_once_a_move_is_made(claim, table):
    game, tokens = table
    mover = _later(claim, lambda: moved(claim, game.id, tokens, moves=1))
    seen = games.look(claim, game.id, tokens[1], after=game.version, wait=READY, address="a")
    mover.join()
    assert (seen.game.version, seen.seat) == (game.version + 1, 1)


def test_a_long_poll_answers_the_game_as_it_is_when_the_wait_is_over(claim, table):
    game, _ = table
    seen = games.look(claim, game.id, None, after=game.version, wait=0.1, address="a")
    assert (seen.game.version, seen.seat) == (game.version, None)


def test_a_token_that_opens_no_seat_is_refused_before_any_wait(claim, table):
    game, _ = table
    with pytest.raises(Unauthorized):
        games.look(claim, game.id, "made-up", after=game.version, wait=READY, address="a")


def test_an_address_holds_at_most_its_cap_of_streams_and_long_polls(claim, table):
    game, _ = table
    claim = replace(claim, config=replace(claim.config, watch_cap=2))
    streams = [games.watch(claim, game.id, None, "a", None, 60, 60) for _ in range(2)]
    with pytest.raises(TooManyWatches):
        games.look(claim, game.id, None, after=game.version, wait=1, address="a")
    games.look(claim, game.id, None, after=game.version, wait=0.01, address="b")
    next(streams[0])
    streams[0].close()  # its lease is given back
    games.look(claim, game.id, None, after=game.version, wait=0.01, address="a")


def test_a_stream_sends_the_game_now_then_every_new_version_in_order(claim, table):
    game, tokens = table
    updates = games.watch(claim, game.id, tokens[0], "a", None, 60, 60)
    now = next(updates)  # read before any move: one made earlier would be the game now
    seen = [(now.game.version, now.kind)]
    mover = threading.Thread(target=moved, args=(claim, game.id, tokens), kwargs={"moves": 3})
    mover.start()
    seen += _versions(updates, 3)
    mover.join()
    start = game.version
    assert seen == [(start, VIEW), (start + 1, VIEW), (start + 2, VIEW), (start + 3, VIEW)]


def test_a_resumed_stream_sends_every_version_after_the_last_seen(claim, table):
    game, tokens = table
    now = moved(claim, game.id, tokens, moves=4)
    updates = games.watch(claim, game.id, None, "a", game.version, 60, 0.05)
    assert _versions(updates, 5) == [
        *((version, VIEW) for version in range(game.version + 1, now.version + 1)),
        (None, VIEW),  # then nothing new: a keep-alive
    ]


def test_a_stream_resumed_from_too_far_back_or_from_nowhere_sends_a_snapshot(claim, table):
    game, tokens = table
    for last_seen in (game.version - MAX_RESUME - 1, game.version + 5):
        updates = games.watch(claim, game.id, tokens[0], "a", last_seen, 60, 60)
        assert _versions(updates, 1) == [(game.version, SNAPSHOT)]


def test_a_resumed_stream_that_is_up_to_date_waits_for_the_next_version(claim, table):
    game, _ = table
    updates = games.watch(claim, game.id, None, "a", game.version, 60, 0.05)
    assert _versions(updates, 1) == [(None, VIEW)]


def test_a_stream_ends_with_the_game_and_after_its_seconds(claim, table):
    game, tokens = table
    updates = list(games.watch(claim, game.id, None, "a", None, 0.2, 0.05))
    assert updates[0].game == game and 2 <= len(updates) <= 5
    assert all(update.game is None for update in updates[1:])  # keep-alives, then its end
    games.resign(claim, game.id, tokens[0])
    [last] = games.watch(claim, game.id, None, "a", None, 60, 60)
    assert last.game.ending is not None


def _news(news, until) -> list[News]:
    """The news of a stream of changes up to the first for which `until(news)`."""
    seen = []
    for item in news:
        seen.append(item)
        if until(item):
            return seen
    raise AssertionError(f"the stream ended: {seen}")


def _watching(claim, game_ids, lobby=False, keepalive=60, **options):
    assert claim.watchers.ready(READY)
    return games.watch_changes(claim, game_ids, lobby, "a", 60, keepalive, **options)


def test_a_stream_of_changes_tells_each_games_version_then_that_it_is_ready(claim, table):
    game, _ = table
    other = a_game(claim, ("random", "random"), seed=2)
    nowhere = "0123456789abcdef"  # no such game: never told
    news = _watching(claim, [game.id, nowhere, other.id])
    assert _news(news, lambda item: item.kind == games.READY) == [
        News(GAME, game.id, game.version),
        News(GAME, other.id, other.version),
        News(games.READY),
    ]


def test_a_stream_of_changes_tells_a_games_new_versions_newest_last(claim, table):
    game, tokens = table
    news = _watching(claim, [game.id])
    _news(news, lambda item: item.kind == games.READY)
    mover = _later(claim, lambda: moved(claim, game.id, tokens, moves=3))
    told = _news(news, lambda item: item.version == game.version + 3)
    mover.join()
    versions = [item.version for item in told]
    assert versions == sorted(versions) and {item.game_id for item in told} == {game.id}
    news.close()


def test_a_stream_of_changes_tells_the_lobby_at_most_once_a_while_and_never_loses_it(claim):
    """Games created in the while after the lobby was told are told once, at its end."""
    news = _watching(claim, [], lobby=True, keepalive=4.0, lobby_every=3.0)
    assert next(news) == News(games.READY)
    a_game(claim)
    assert next(news) == News(LOBBY)
    a_game(claim, seed=2)
    a_game(claim, seed=3)
    assert [next(news), next(news)] == [News(LOBBY), News(KEEP_ALIVE)]
    news.close()


def test_a_stream_of_changes_without_the_lobby_is_not_told_of_it(claim):
    news = _watching(claim, [], keepalive=0.3)
    assert next(news) == News(games.READY)
    a_game(claim)
    assert next(news) == News(KEEP_ALIVE)
    news.close()


def test_a_stream_of_changes_holds_a_lease_until_it_ends(claim, table):
    game, _ = table
    claim = replace(claim, config=replace(claim.config, watch_cap=1))
    news = _watching(claim, [game.id])
    with pytest.raises(TooManyWatches):
        _watching(claim, [game.id])
    with pytest.raises(TooManyWatches):
        games.look(claim, game.id, None, after=game.version, wait=1, address="a")
    next(news)
    news.close()  # its lease is given back
    assert next(_watching(claim, [game.id])).kind == GAME


def test_a_rematch_tells_the_finished_games_watchers_to_look_again(claim, table):
    game, tokens = table
    over = games.resign(claim, game.id, tokens[0]).game
    news = _watching(claim, [over.id])
    assert _news(news, lambda item: item.kind == games.READY)[0] == News(
        GAME, over.id, over.version
    )
    games.rematch(claim, over.id, tokens[1])
    assert next(news) == News(GAME, over.id, over.version)  # the same version: look again
    assert games.look(claim, over.id, None).rematch is not None
    news.close()


def test_the_arrival_of_its_ratings_tells_a_finished_games_watchers_to_look_again(
    claim, monkeypatch
):
    game = a_game(claim, ("random", "random"), rated=True)
    with monkeypatch.context() as later:  # the ratings follow after the end is seen
        later.setattr(
            changes, "FOLLOWS", tuple(f for f in changes.FOLLOWS if f != changes._ratings)
        )
        over = played_out(claim, game.id, {})
    news = _watching(claim, [over.id])
    _news(news, lambda item: item.kind == games.READY)
    assert games.look(claim, over.id, None).ratings is None
    changed(claim, Change(over, None))  # what follows the end, done again
    assert next(news) == News(GAME, over.id, over.version)
    assert games.look(claim, over.id, None).ratings is not None
    news.close()


def test_a_long_poll_at_a_finished_games_version_is_not_answered_by_its_rematch(claim, table):
    """`after` is a version: the rematch changes the view (and its ETag), not the
    version, so the long-poll waits on; it answers the rematch when its wait is over."""
    game, tokens = table
    over = games.resign(claim, game.id, tokens[0]).game
    answers = []
    poll = threading.Thread(
        target=lambda: answers.append(
            games.look(claim, over.id, None, after=over.version, wait=6, address="a")
        )
    )
    poll.start()
    made = []
    rematch = _later(claim, lambda: made.append(games.rematch(claim, over.id, tokens[1])))
    rematch.join()
    poll.join(0.5)
    assert poll.is_alive() and not answers  # woken by the announcement, and waiting on
    poll.join()
    [answer] = answers
    assert (answer.game.version, answer.rematch) == (over.version, made[0].game.id)


class Leaving:
    """A connection whose client leaves when the test says (`leave`)."""

    def __init__(self):
        self.left = False
        self._wake = None

    @contextmanager
    def on_leaving(self, wake):
        self._wake = wake
        yield
        self._wake = None

    def leave(self):
        self.left = True
        if self._wake is not None:  # else it looks before it waits
            self._wake()


def test_a_long_poll_ends_when_its_client_leaves_and_gives_its_lease_back(claim, table):
    game, _ = table
    connection = Leaving()
    leaver = _later(claim, connection.leave)
    seen = games.look(
        claim, game.id, None, game.version, wait=60, address="a", connection=connection
    )
    leaver.join()
    assert seen.game.version == game.version
    assert claim.watch_leases.held("a") == 0


def test_a_stream_ends_when_its_client_leaves_and_gives_its_lease_back(claim, table):
    game, _ = table
    connection = Leaving()
    updates = games.watch(claim, game.id, None, "a", None, 60, 60, connection)
    assert next(updates).game.version == game.version
    leaver = _later(claim, connection.leave)
    assert list(updates) == []  # no keep-alive: it ended
    leaver.join()
    assert claim.watch_leases.held("a") == 0


def test_a_stream_of_changes_ends_when_its_client_leaves_and_gives_its_lease_back(claim, table):
    game, _ = table
    connection = Leaving()
    assert claim.watchers.ready(READY)
    news = games.watch_changes(claim, [game.id], False, "a", 60, 60, connection=connection)
    _news(news, lambda item: item.kind == games.READY)
    leaver = _later(claim, connection.leave)
    assert list(news) == []
    leaver.join()
    assert claim.watch_leases.held("a") == 0


def test_a_stream_of_changes_with_a_token_takes_a_players_key_only(claim, table):
    _, tokens = table
    with pytest.raises(Unauthorized):
        games.watch_changes(claim, [], True, "a", 60, 60, token=tokens[0])
    _, key = games.register(claim, "Ann")
    news = games.watch_changes(claim, [], True, "a", 60, 60, token=key)
    assert next(news) == News(games.READY)
    news.close()
