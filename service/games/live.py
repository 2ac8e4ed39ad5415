"""Looking at a game: once, as a long-poll (the game once it is newer than a version
the caller has), or as a live stream of every new version; and watching which of many
games changed, and the lobby (`watch_changes`), for a client that reads them itself.

Long-polls and streams wait on the process's watchers (`service.events.watchers`):
while idle they cost no Redis connection and no thread of their own. Each holds a
lease on its client address while it is open, and an address holds at most
`Config.watch_cap` of them (`TooManyWatches`); each ends as soon as its `Connection`
tells that its client left, giving its lease back. One opened with a player's key
ends too once that key is revoked (`revocable`): rotated, or its device removed.

A long-poll answers a version above `after`: a finished game's rematch or ratings,
which come after its last version, change what its view shows (and its ETag) but not
its version, so they do not answer a long-poll at that version (their announcement
wakes it, and it waits on). A stream of changes tells them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Protocol

from service.events import Game, Heard, KeyWatch, RatingChange, StoreError, WatchLease, digest

from .access import me, seat_opened, seat_or_public, token_seat
from .claim import Claim
from .errors import TooManyWatches, Unauthorized, use_case
from .inbox import rematch_of

log = logging.getLogger(__name__)
MAX_RESUME = 100  # versions a resumed stream sends one by one; further behind: a snapshot
VIEW, SNAPSHOT = "view", "snapshot"
GAME, LOBBY, READY, KEEP_ALIVE = "game", "lobby", "ready", "keep-alive"  # kinds of News
LOBBY_EVERY = 2.0  # seconds at least between two lobby news of one stream of changes


class Connection(Protocol):
    """The connection a long-poll or stream answers on, as far as it can tell that its
    client left."""

    @property
    def left(self) -> bool:
        """Whether its client has left."""

    def on_leaving(self, wake: Callable[[], None]) -> AbstractContextManager[None]:
        """For the block: `wake()` (from any thread) once its client may have left."""


class Staying:
    """A connection that cannot tell (no socket to look at): its client never leaves."""

    left = False

    @contextmanager
    def on_leaving(self, wake: Callable[[], None]) -> Iterator[None]:
        yield


STAYING = Staying()


class KeyHeld:
    """The connection of a stream opened with a player's key: its client has left too
    once the key is revoked (rotated, or its device removed), as the process's watchers
    hear it."""

    def __init__(self, claim: Claim, connection: Connection, key: str):
        self._claim = claim
        self._connection = connection
        self._key = key
        self._watch: KeyWatch | None = None

    @property
    def revoked(self) -> bool:
        """Whether the key was revoked since `on_leaving` began (looked up once when
        the watchers may have missed it)."""
        watch = self._watch
        if watch is not None and watch.doubtful:
            watch.doubtful = False
            watch.revoked = watch.revoked or self._claim.players.holder(self._key) is None
        return watch is not None and watch.revoked

    @property
    def left(self) -> bool:
        return self._connection.left or self.revoked

    @contextmanager
    def on_leaving(self, wake: Callable[[], None]) -> Iterator[None]:
        watchers = self._claim.watchers
        with (
            self._connection.on_leaving(wake),
            watchers.watching_key(digest(self._key), wake) as self._watch,
        ):
            yield


def revocable(
    claim: Claim, connection: Connection, token: str | None, game: Game | None = None
) -> Connection:
    """`connection`, ending once `token` is revoked if it is a player's key: not one of
    `game`'s seat tokens (which nothing revokes)."""
    if token is None or (game is not None and token_seat(game, token) is not None):
        return connection
    return KeyHeld(claim, connection, token)


@dataclass(frozen=True, slots=True)
class Seen:
    """A game as one caller sees it: its seat (None: the public), its rematch, and
    for a rated game that has ended, what it did to each seat's rating (None until
    the ratings have taken it in)."""

    game: Game
    seat: int | None
    rematch: str | None
    ratings: tuple[RatingChange, ...] | None = None


@use_case
def look(
    claim: Claim,
    game_id: str,
    token: str | None,
    after: int | None = None,
    wait: float = 0,
    address: str = "",
    connection: Connection = STAYING,
) -> Seen:
    """The game, and the seat `token` opens (None: no token; Unauthorized if it opens
    none). With `after` and `wait`: once its version is above `after`, waiting up to
    `wait` seconds for it, or until the client of `connection` left (a long-poll from
    `address`)."""
    game = claim.store.load(game_id)
    seat = seat_or_public(claim, game, token)
    if after is not None and game.version <= after and wait > 0:
        connection = revocable(claim, connection, token, game)
        lease = _take_lease(claim, address)
        try:
            with claim.watchers.watching(game_id) as waiter, connection.on_leaving(waiter.wake):
                game = claim.store.load(game_id)  # registered first: nothing is missed
                deadline = time.monotonic() + wait
                while (
                    game.version <= after
                    and not connection.left
                    and (left := deadline - time.monotonic()) > 0
                ):
                    if waiter.wait(left):
                        game = waiter.game()
        finally:
            _give_back(claim, lease)
        if isinstance(connection, KeyHeld) and connection.revoked:
            raise Unauthorized("this key was revoked while waiting: rotated or its device removed")
    if game.ending is None:
        return Seen(game, seat, None)
    ratings = claim.ratings.changes(game.id) if game.creation.rated else None
    return Seen(game, seat, rematch_of(claim, game), ratings)


@use_case
def seated(claim: Claim, game_id: str, token: str | None) -> Seen:
    """The game and the seat `token` opens; Unauthorized if it opens none."""
    game = claim.store.load(game_id)
    return Seen(game, seat_opened(claim, game, token), None)


@dataclass(frozen=True, slots=True)
class Update:
    """What a live stream sends next: the game at a new version (`kind` view), or at
    its current one after a gap too long to send (`kind` snapshot); or, with `game`
    None, nothing new (a keep-alive)."""

    game: Game | None
    seat: int | None
    kind: str = VIEW


@use_case
def watch(
    claim: Claim,
    game_id: str,
    token: str | None,
    address: str,
    resume_after: int | None,
    seconds: float,
    keepalive: float,
    connection: Connection = STAYING,
) -> Iterator[Update]:
    """The game as the seat `token` opens sees it (None: the public), now and then at
    each new version, in order and each once, until it ends, `seconds` pass or the
    client of `connection` left; an `Update` without a game after each `keepalive`
    seconds without one.

    `resume_after`: the version the caller saw last (SSE's `Last-Event-ID`): every
    version after it is sent, or a snapshot if it is more than `MAX_RESUME` behind
    (or no version of the game). The caller is checked, and the address's lease
    taken, before the first update is asked for."""
    game = claim.store.load(game_id)
    seat = seat_or_public(claim, game, token)
    connection = revocable(claim, connection, token, game)
    lease = _take_lease(claim, address)  # given back when the updates end
    return _updates(claim, game_id, seat, lease, resume_after, seconds, keepalive, connection)


def _updates(
    claim, game_id, seat, lease, resume_after, seconds, keepalive, connection
) -> Iterator[Update]:
    try:
        with claim.watchers.watching(game_id) as waiter, connection.on_leaving(waiter.wake):
            game = claim.store.load(game_id)  # registered first: nothing is missed
            if resume_after is None or not 0 <= game.version - resume_after <= MAX_RESUME:
                yield Update(game, seat, VIEW if resume_after is None else SNAPSHOT)
                known = game.version
            else:
                known = resume_after
            until = time.monotonic() + seconds
            while True:
                for version in range(known + 1, game.version + 1):
                    yield Update(waiter.game(version), seat)
                known = game.version
                left = until - time.monotonic()
                if game.ending is not None or left <= 0 or connection.left:
                    return
                if waiter.wait(min(keepalive, left)):
                    newer = waiter.game()
                    game = newer if newer.version > game.version else game
                else:
                    yield Update(None, seat)
    except StoreError as error:  # the stream ends; the client resumes from its last id
        log.warning("game %s: a live stream ended: %s", game_id, error)
    finally:
        _give_back(claim, lease)


@dataclass(frozen=True, slots=True)
class News:
    """What a stream of changes sends next (`kind`): a game's version (`GAME`), the
    lobby changed (`LOBBY`), every first version sent (`READY`), or nothing for a
    while (`KEEP_ALIVE`)."""

    kind: str
    game_id: str | None = None
    version: int | None = None


@use_case
def watch_changes(
    claim: Claim,
    game_ids: Sequence[str],
    lobby: bool,
    address: str,
    seconds: float,
    keepalive: float,
    lobby_every: float = LOBBY_EVERY,
    connection: Connection = STAYING,
    token: str | None = None,
) -> Iterator[News]:
    """Which of the games `game_ids` change, and (with `lobby`) when the lobby does,
    until `seconds` pass or the client of `connection` left: first the version of each
    game that exists, then `READY`; then a game's newest version whenever it is
    announced (a new version, or its view changed beside it: a rematch, ratings), the
    lobby at most once in `lobby_every` seconds (a change meanwhile told at their end),
    and a `KEEP_ALIVE` after each `keepalive` seconds without news. A game that does
    not exist is told once it does. Versions are public: `token`, if any, must be a
    player's key (Unauthorized otherwise), and the news ends once it is revoked. The
    address's lease is taken before the first news is asked for."""
    if token is not None:
        me(claim, token)
    connection = revocable(claim, connection, token)
    lease = _take_lease(claim, address)  # given back when the news ends
    return _news(claim, game_ids, lobby, lease, seconds, keepalive, lobby_every, connection)


def _news(
    claim, game_ids, lobby, lease, seconds, keepalive, lobby_every, connection
) -> Iterator[News]:
    try:
        with (
            claim.watchers.watching_many(game_ids, lobby) as waiter,
            connection.on_leaving(waiter.wake),
        ):
            announced: dict[str, Heard | None] = dict.fromkeys(game_ids)  # None: look
            told: dict[str, int] = {}  # the version last told of each game
            news = [News(READY)]  # once the games' first versions are told
            now = time.monotonic()
            until, quiet_since, lobby_next = now + seconds, now, now
            while True:
                news = _versions(claim, announced, told) + news
                now = time.monotonic()
                if now >= lobby_next and waiter.take_lobby():
                    news.append(News(LOBBY))
                    lobby_next = now + lobby_every
                if not news and now >= quiet_since + keepalive:
                    news.append(News(KEEP_ALIVE))
                if news:
                    yield from news
                    news, quiet_since = [], now
                left = until - now
                if left <= 0 or connection.left:
                    return
                timeout = min(quiet_since + keepalive - now, left)
                if waiter.lobby_changed:  # held back until `lobby_next`
                    timeout = min(timeout, lobby_next - now)
                waiter.wait(max(timeout, 0))
                announced = waiter.games()
    except StoreError as error:  # the stream ends; its client comes back and looks again
        log.warning("a stream of changes ended: %s", error)
    finally:
        _give_back(claim, lease)


def _versions(claim: Claim, announced: dict[str, Heard | None], told: dict[str, int]) -> list[News]:
    """The news of the games announced: each one's version if it is newer than the one
    told, or the same announced again; the games whose versions are not known (None)
    are looked at, and told as if announced again."""
    looked = [game_id for game_id, heard in announced.items() if heard is None]
    versions = claim.store.versions(looked) if looked else {}
    news = []
    for game_id, heard in announced.items():
        version, again = heard or Heard(versions[game_id], again=True)
        known = told.get(game_id, 0)
        if version > known or (again and version == known > 0):
            told[game_id] = version
            news.append(News(GAME, game_id, version))
    return news


def _take_lease(claim: Claim, address: str) -> WatchLease:
    """A lease on `address` for a long-poll or stream, held until given back."""
    cap = claim.config.watch_cap
    lease = claim.watch_leases.take(address, cap)
    if lease is None:
        raise TooManyWatches(f"more than {cap} live streams and long-polls from one address")
    return lease


def _give_back(claim: Claim, lease: WatchLease) -> None:
    try:
        claim.watch_leases.give_back(lease)
    except StoreError:  # it ends by itself
        log.warning("a watch lease of %s was not given back", lease.address)
