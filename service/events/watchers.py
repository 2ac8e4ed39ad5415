"""Games' changes as they happen, for long-polls and live streams: one Redis
subscription per process, to the channel every append publishes on (`store.py`),
fanned out to the process's local waiters of each game, of the lobby, and of each
player (a player's stream: `watching_player`, told `player <id>` and its games' news).

An idle waiter costs an event object here and nothing in Redis: no connection, no
blocking command. A waiter registers first and looks at the game second, so that no
change between its look and its wait is missed; when the subscription is lost and
made again, every waiter is woken to look again, so that no change published
meanwhile is missed either.

The waiters of one game share what they load: the game at each recent version is
folded once per process, however many watch it (`Waiter.game`). A waiter of several
games and the lobby (`NewsWaiter`, for `/changes`) loads nothing: it is told which
games were announced, at which version, and whether the lobby changed.

A stream opened with a player's key watches the key too (`watching_key`): once the key
is revoked (rotated, or its device removed), the listener hears it and the stream
ends; when the subscription was lost meanwhile, the stream is told to look whether
its key still opens it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from typing import NamedTuple

import redis

from .connection import FAILURES, relearn
from .errors import UnknownVersion
from .fold import Game, fold
from .store import AGAIN, KEY_REVOKED, LOBBY_CHANGED, PLAYER_CHANGED, GameStore, changes_channel

log = logging.getLogger(__name__)
KEEP = 16  # recent versions of a watched game kept folded
POLL = 1.0  # seconds the listener waits for a message before looking again
RETRY = (0.1, 5.0)  # seconds before subscribing again after a failure: first, most


class _Watched:
    """One game watched in this process: its waiters, the newest version announced,
    and its recent versions, folded."""

    def __init__(self) -> None:
        self.waiters: set[Waiter | NewsWaiter] = set()
        self.latest: int | None = None
        self.recent: dict[int, Game] = {}
        self.lock = threading.Lock()  # one waiter loads; the others find it loaded


class Waiter:
    """One watcher of one game: `wait` for a change, then `game()` for it."""

    def __init__(self, watchers: Watchers, game_id: str, watched: _Watched):
        self._watchers = watchers
        self._game_id = game_id
        self._watched = watched
        self._woken = threading.Event()

    def wait(self, timeout: float) -> bool:
        """Whether the game changed (or may have) since the last `wait`, waiting up to
        `timeout` seconds for it."""
        woken = self._woken.wait(timeout)
        self._woken.clear()
        return woken

    def tell(self, game_id: str, heard: Heard | None) -> None:
        """The listener's news of the game: wake."""
        self._woken.set()

    def wake(self) -> None:
        """Wake without news: the one waiting has something else to look at (its
        client may have left)."""
        self._woken.set()

    def game(self, version: int | None = None) -> Game:
        """The game at `version` (default: the newest announced, else the last),
        folded once for every waiter of this process. A waiter may be woken by news
        of a version it has seen already: it looks, and finds nothing newer."""
        watched, store = self._watched, self._watchers.store
        with watched.lock:
            version = version or watched.latest
            if version in watched.recent:
                return watched.recent[version]
            if version is None:
                game = store.load(self._game_id)
                self._keep(game)
                return game
            below = [known for known in watched.recent if known < version]
            if below:  # only the versions since: one round trip, folded one by one
                game = watched.recent[max(below)]
                until = max(version, watched.latest or version)
                for record in store.read(self._game_id, game.version, until):
                    game = fold(self._game_id, [record], game)
                    self._keep(game)
            else:
                self._keep(store.load(self._game_id, version))
            if version not in watched.recent:
                raise UnknownVersion(self._game_id, version, max(watched.recent))
            return watched.recent[version]

    def _keep(self, game: Game) -> None:
        recent = self._watched.recent
        recent[game.version] = game
        self._watched.latest = max(self._watched.latest or 0, game.version)
        while len(recent) > KEEP:
            del recent[min(recent)]


class Heard(NamedTuple):
    """A game's version, as announced: by its append, or `again` (its view changed
    beside its events: a rematch, ratings)."""

    version: int
    again: bool = False


class NewsWaiter:
    """One watcher of several games, and perhaps the lobby: `wait` for news, then
    `games()` for the games announced since, and `take_lobby()` for whether the lobby
    changed."""

    def __init__(self) -> None:
        self._woken = threading.Event()
        self._lock = threading.Lock()
        self._games: dict[str, Heard | None] = {}
        self._lobby = False
        self._player = False
        self.watched: set[str] = set()  # the games of a player's waiter (`watch_games`)

    def wait(self, timeout: float) -> bool:
        """Whether any news came since the last `wait`, waiting up to `timeout` seconds
        for it."""
        woken = self._woken.wait(timeout)
        self._woken.clear()
        return woken

    def games(self) -> dict[str, Heard | None]:
        """The games announced since the last call: each with the newest version
        announced (announced again, if it was), or None when not known (look)."""
        with self._lock:
            games, self._games = self._games, {}
        return games

    @property
    def lobby_changed(self) -> bool:
        """Whether the lobby changed since the last `take_lobby`."""
        return self._lobby

    def take_lobby(self) -> bool:
        """Whether the lobby changed since the last call. Taken before it is told, so
        that a change from then on is news again."""
        with self._lock:
            changed, self._lobby = self._lobby, False
        return changed

    def tell(self, game_id: str, heard: Heard | None) -> None:
        """The listener's news of a game (None: it may have changed): noted, and wake."""
        with self._lock:
            known = self._games.get(game_id, Heard(0))
            self._games[game_id] = None if None in (heard, known) else max(known, heard)
        self._woken.set()

    def wake(self) -> None:
        """Wake without news: the one waiting has something else to look at (its
        client may have left)."""
        self._woken.set()

    def take_player(self) -> bool:
        """Whether the player's news came since the last call (a player's stream)."""
        with self._lock:
            changed, self._player = self._player, False
        return changed

    def tell_player(self) -> None:
        """The listener's news of the player: noted, and wake."""
        with self._lock:
            self._player = True
        self._woken.set()

    def tell_lobby(self) -> None:
        """The listener's news of the lobby: wake, unless it is news already (so that
        a stream holding it back is not woken by each change)."""
        with self._lock:
            if self._lobby:
                return
            self._lobby = True
        self._woken.set()


class KeyWatch:
    """Whether the key a stream was opened with has been revoked, as the listener
    heard it: `revoked`, or `doubtful` when the subscription was lost meanwhile (look
    whether the key still opens anything). Told, it wakes the stream."""

    def __init__(self, wake: Callable[[], None]) -> None:
        self._wake = wake
        self.revoked = False
        self.doubtful = True  # until looked at once registered: nothing is missed

    def revoke(self) -> None:
        self.revoked = True
        self._wake()

    def doubt(self) -> None:
        self.doubtful = True
        self._wake()


class Watchers:
    """The waiters of this process, by game and of the lobby, and the subscription
    that wakes them."""

    def __init__(self, client: redis.Redis, prefix: str, store: GameStore):
        self.store = store
        self._client = client
        self._channel = changes_channel(prefix)
        self._games: dict[str, _Watched] = {}
        self._lobby: set[NewsWaiter] = set()
        self._players: dict[str, set[NewsWaiter]] = {}
        self._keys: dict[str, set[KeyWatch]] = {}  # by the digest of the key
        self._lock = threading.Lock()
        self._listening_in: int | None = None  # the process whose listener runs
        self._subscribed = threading.Event()
        self._closed = threading.Event()

    @contextmanager
    def watching(self, game_id: str) -> Iterator[Waiter]:
        """A waiter of `game_id` for the block: register, then look at the game."""
        self._listen()
        with self._lock:
            watched = self._games.setdefault(game_id, _Watched())
            waiter = Waiter(self, game_id, watched)
            watched.waiters.add(waiter)
        try:
            yield waiter
        finally:
            with self._lock:
                self._forget(game_id, waiter)

    @contextmanager
    def watching_many(self, game_ids: Collection[str], lobby: bool) -> Iterator[NewsWaiter]:
        """A waiter of the games `game_ids` and (with `lobby`) of the lobby, for the
        block: register, then look at the games."""
        self._listen()
        waiter = NewsWaiter()
        with self._lock:
            for game_id in game_ids:
                self._games.setdefault(game_id, _Watched()).waiters.add(waiter)
            if lobby:
                self._lobby.add(waiter)
        try:
            yield waiter
        finally:
            with self._lock:
                for game_id in game_ids:
                    self._forget(game_id, waiter)
                self._lobby.discard(waiter)

    @contextmanager
    def watching_player(self, player_id: str) -> Iterator[NewsWaiter]:
        """A waiter of the player `player_id`'s news, for the block; `watch_games` adds
        games to it (each game's news as `watching_many` tells it)."""
        self._listen()
        waiter = NewsWaiter()
        with self._lock:
            self._players.setdefault(player_id, set()).add(waiter)
        try:
            yield waiter
        finally:
            with self._lock:
                for game_id in waiter.watched:
                    self._forget(game_id, waiter)
                waiters = self._players.get(player_id, set())
                waiters.discard(waiter)
                if not waiters:
                    self._players.pop(player_id, None)

    @contextmanager
    def watching_key(self, hashed: str, wake: Callable[[], None]) -> Iterator[KeyWatch]:
        """A watch of the key of digest `hashed` for the block: `wake()` once it is
        revoked (or may have been)."""
        self._listen()
        watch = KeyWatch(wake)
        with self._lock:
            self._keys.setdefault(hashed, set()).add(watch)
        try:
            yield watch
        finally:
            with self._lock:
                watches = self._keys.get(hashed, set())
                watches.discard(watch)
                if not watches:
                    self._keys.pop(hashed, None)

    def watch_games(self, waiter: NewsWaiter, game_ids: Collection[str]) -> None:
        """Add the games `game_ids` to what a player's `waiter` watches (then look at
        them: nothing is missed)."""
        with self._lock:
            for game_id in set(game_ids) - waiter.watched:
                self._games.setdefault(game_id, _Watched()).waiters.add(waiter)
                waiter.watched.add(game_id)

    def _forget(self, game_id: str, waiter: Waiter | NewsWaiter) -> None:
        """`waiter` watches `game_id` no more (the lock held)."""
        watched = self._games.get(game_id)
        if watched is not None:
            watched.waiters.discard(waiter)
            if not watched.waiters:
                del self._games[game_id]

    def ready(self, timeout: float) -> bool:
        """Whether the listener is subscribed (starting it), waiting up to `timeout`
        seconds for it: from then on, every change wakes its waiters."""
        self._listen()
        return self._subscribed.wait(timeout)

    def close(self) -> None:
        """Stop listening (within `POLL` seconds); the waiters are woken."""
        self._closed.set()

    def count(self) -> int:
        """How many waiters this process has."""
        with self._lock:
            every = self._lobby.union(*(watched.waiters for watched in self._games.values()))
            return len(every.union(*self._players.values()))

    def _listen(self) -> None:
        """Start the listener, once per process (a forked child starts its own)."""
        with self._lock:
            if self._listening_in == os.getpid():
                return
            self._listening_in = os.getpid()
        threading.Thread(target=self._listen_forever, name="watchers", daemon=True).start()

    def _listen_forever(self) -> None:
        pause = RETRY[0]
        while not self._closed.is_set():
            pubsub = self._client.pubsub()
            try:
                pubsub.subscribe(self._channel)
                while pubsub.get_message(timeout=POLL) is None:
                    pass  # the confirmation: from now on, no change is missed
                self._announce_all()  # but some may have been before it
                self._subscribed.set()
                pause = RETRY[0]
                while not self._closed.is_set():
                    message = pubsub.get_message(ignore_subscribe_messages=True, timeout=POLL)
                    if message is not None:
                        self._announce(message["data"])
            # ValueError, TypeError: its connection closed under it (by `close`)
            except (*FAILURES, OSError, ValueError, TypeError) as error:
                if not self._closed.is_set():
                    log.warning("the subscription to %s failed: %s", self._channel, error)
                    relearn(self._client)  # on a cluster, its node may have failed over
            finally:
                self._subscribed.clear()
                pubsub.close()
                self._announce_all()
            self._closed.wait(pause)
            pause = min(pause * 2, RETRY[1])

    def _announce(self, data: bytes) -> None:
        """Wake the waiters of the game that `data` (`<game id> <version>`, and
        ` again` when announced again) names, or of the lobby (`LOBBY_CHANGED`)."""
        text = data.decode()
        with self._lock:
            if text == LOBBY_CHANGED:
                for waiter in self._lobby:
                    waiter.tell_lobby()
                return
            if text.startswith(f"{PLAYER_CHANGED} "):
                for waiter in self._players.get(text.partition(" ")[2], ()):
                    waiter.tell_player()
                return
            if text.startswith(f"{KEY_REVOKED} "):
                for watch in self._keys.get(text.partition(" ")[2], ()):
                    watch.revoke()
                return
            game_id, version, *again = text.split(" ")
            watched = self._games.get(game_id)
            if watched is None:
                return
            heard = Heard(int(version), again == [AGAIN])
            watched.latest = max(watched.latest or 0, heard.version)
            for waiter in watched.waiters:
                waiter.tell(game_id, heard)

    def _announce_all(self) -> None:
        """Wake every waiter to look again: what changed is not known."""
        with self._lock:
            for game_id, watched in self._games.items():
                watched.latest = None
                for waiter in watched.waiters:
                    waiter.tell(game_id, None)
            for waiter in self._lobby:
                waiter.tell_lobby()
            for waiters in self._players.values():
                for waiter in waiters:
                    waiter.tell_player()
            for watches in self._keys.values():
                for watch in watches:
                    watch.doubt()
