"""A game's changes as they happen, for long-polls and live streams: one Redis
subscription per process, to the channel every append publishes on (`store.py`),
fanned out to the process's local waiters of each game.

An idle waiter costs an event object here and nothing in Redis: no connection, no
blocking command. A waiter registers first and looks at the game second, so that no
change between its look and its wait is missed; when the subscription is lost and
made again, every waiter is woken to look again, so that no change published
meanwhile is missed either.

The waiters of one game share what they load: the game at each recent version is
folded once per process, however many watch it (`Waiter.game`).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from .connection import FAILURES, relearn
from .errors import UnknownVersion
from .fold import Game, fold
from .store import GameStore, changes_channel

log = logging.getLogger(__name__)
KEEP = 16  # recent versions of a watched game kept folded
POLL = 1.0  # seconds the listener waits for a message before looking again
RETRY = (0.1, 5.0)  # seconds before subscribing again after a failure: first, most


class _Watched:
    """One game watched in this process: its waiters, the newest version announced,
    and its recent versions, folded."""

    def __init__(self) -> None:
        self.waiters: set[threading.Event] = set()
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
                for record in store.read(self._game_id, game.version, until, known=True):
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


class Watchers:
    """The waiters of this process, by game, and the subscription that wakes them."""

    def __init__(self, client: redis.Redis, prefix: str, store: GameStore):
        self.store = store
        self._client = client
        self._channel = changes_channel(prefix)
        self._games: dict[str, _Watched] = {}
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
            watched.waiters.add(waiter._woken)
        try:
            yield waiter
        finally:
            with self._lock:
                watched.waiters.discard(waiter._woken)
                if not watched.waiters and self._games.get(game_id) is watched:
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
            return sum(len(watched.waiters) for watched in self._games.values())

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
        """Wake the waiters of the game that `data` (`<game id> <version>`) names."""
        game_id, _, version = data.decode().partition(" ")
        with self._lock:
            watched = self._games.get(game_id)
            if watched is None:
                return
            watched.latest = max(watched.latest or 0, int(version))
            for woken in watched.waiters:
                woken.set()

    def _announce_all(self) -> None:
        """Wake every waiter to look again: what changed is not known."""
        with self._lock:
            for watched in self._games.values():
                watched.latest = None
                for woken in watched.waiters:
                    woken.set()
