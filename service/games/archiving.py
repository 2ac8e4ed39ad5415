"""Ended games moved out of Redis into the archive (docs/design.md, The archive).

When a game ends, what follows the change sets its timer of the kind `archives` to
its end plus `CLAIM_ARCHIVE_AFTER` (`follow`); the worker fires the due ones a chunk at
a time, and `archive` moves those games, in this order:

1. what must follow the end is made sure of: the seal, a rated result folded into the
   ratings (a game not ready yet is left for its timer's next turn);
2. each stream's entries packed (`pack` checks that they unpack to every byte);
3. the rows written and committed (`Archive.put`; a row there already is kept);
4. the rows read back and compared with the streams;
5. only then the game's Redis keys deleted: its lobby listings, its players' entries,
   its timers, its seal and stream, the archive timer last.

A crash anywhere (a `kill -9` included) leaves every game whole: in Redis, or in the
archive and perhaps still in Redis, which readers look at first and which holds the
same. The archive timer is deleted last, so it falls due again when its lease ends,
and the move, repeated, writes nothing twice and finishes the deletions.
"""

from __future__ import annotations

import itertools
import logging
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import orjson

from service.events import ArchivedGame, Game, RatedResult, Seal, fold
from service.events.packing import Entry, pack, unpack
from service.events.store import records_of

from .claim import Claim
from .errors import use_case
from .export import seal

log = logging.getLogger(__name__)
CHUNK = 500  # games moved at a time: one transaction of the archive


@dataclass(frozen=True, slots=True)
class Archived:
    """What `archive` did with the games it was given."""

    archived: tuple[str, ...]  # in the archive now, and gone from Redis
    left: tuple[str, ...]  # ended, but still in Redis: not ready, or a check failed
    running: tuple[str, ...]  # not ended (or not by the time asked): in Redis
    unknown: tuple[str, ...]  # neither in Redis nor in the archive


def archive_ended(
    claim: Claim, game_ids: Iterable[str], ended_by: datetime
) -> Iterator[tuple[int, Archived]]:
    """Move the games of `game_ids` that ended by `ended_by` to the archive, `CHUNK` at
    a time: each chunk's count of games looked at, and what `archive` did with them."""
    ids = iter(game_ids)
    while chunk := list(itertools.islice(ids, CHUNK)):
        yield len(chunk), archive(claim, chunk, ended_by)


def follow(claim: Claim, game: Game) -> None:
    """After a change of `game`: once it has ended, its move to the archive is due at
    its end plus `CLAIM_ARCHIVE_AFTER`."""
    if game.ending is not None:
        due = game.updated_at + timedelta(seconds=claim.config.archive_after)
        claim.archives.set(game.id, game.version, due)


@use_case
def archive(claim: Claim, game_ids: Sequence[str], ended_by: datetime | None = None) -> Archived:
    """Move the games among `game_ids` that have ended (by `ended_by`, if given) to the
    archive (the module's docstring)."""
    game_ids = list(dict.fromkeys(game_ids))
    streams = claim.store.entries(game_ids)
    archived_before = claim.archive.versions([i for i in game_ids if i not in streams])
    games = {i: fold(i, records_of(i, entries)) for i, entries in streams.items()}
    earlier = [i for i in game_ids if i in archived_before]
    games |= dict(zip(earlier, claim.store.load_many(earlier), strict=True))
    rows, left, running = [], [], []
    seals = claim.seals.kept(list(streams))
    for game_id, game in games.items():
        if game_id not in streams:
            continue  # archived by an earlier move cut short: its deletions are finished below
        if game.ending is None or (ended_by is not None and game.updated_at > ended_by):
            running.append(game_id)
            continue
        sealed = _ready(claim, game, seals.get(game_id))
        if sealed is None:
            left.append(game_id)
        else:
            rows.append(archived_row(game, pack(streams[game_id]), sealed))
    claim.archive.put(rows)
    stored = claim.archive.get([row.id for row in rows])
    moved = [i for i in games if i in archived_before]
    for row in rows:
        if _same(stored.get(row.id), row, streams[row.id]):
            moved.append(row.id)
        else:
            log.error("game %s: its archived row differs from its stream: kept in Redis", row.id)
            left.append(row.id)
    _forget(claim, [games[game_id] for game_id in moved])
    unknown = [i for i in game_ids if i not in games]
    claim.archives.forget(unknown)  # no game: no timer
    return Archived(tuple(moved), tuple(left), tuple(running), tuple(unknown))


def _ready(claim: Claim, game: Game, sealed: Seal | None) -> Seal | None:
    """The seal of the ended `game` (`sealed`, if it was kept) if what follows its end
    is done (made so, if it can be): it is sealed, and its rated result is folded into
    the ratings. None, and the game left in Redis, if not, or if its seal is not of its
    log (the log says so)."""
    sealed = sealed or seal(claim, game)
    if (sealed.version, sealed.hash) != tuple(game.head):
        log.error("game %s: its seal is not of its log: kept in Redis", game.id)
        return None
    result = RatedResult.of(game)
    if result is not None and claim.ratings.changes(game.id) is None:
        claim.ratings.record(result)
        claim.ratings.catch_up(result.players)
        if claim.ratings.changes(game.id) is None:
            return None
    return sealed


def archived_row(game: Game, packed: bytes, sealed: Seal) -> ArchivedGame:
    """The archive's row of the ended `game`, its log packed as `packed`."""
    ending = game.ending
    return ArchivedGame(
        id=game.id,
        status=game.status,
        created_at=game.created_at.timestamp(),
        ended_at=game.updated_at.timestamp(),
        players=game.settings.players,
        rated=game.creation.rated,
        public=game.public,
        result=orjson.dumps(
            {"reason": ending.reason, "seat": ending.seat, "winners": list(ending.winners)}
        ).decode(),
        version=game.version,
        hash=game.chain,
        key_id=sealed.key_id,
        signature=sealed.signature,
        log=packed,
        seats=tuple(
            (seat.player, seat.joined_at.timestamp()) for seat in game.seats if seat.player
        ),
    )


def _same(stored: ArchivedGame | None, row: ArchivedGame, entries: list[Entry]) -> bool:
    """Whether the row read back is the row written, its log the stream's entries."""
    if stored is None:
        return False
    columns = ("status", "created_at", "ended_at", "players", "rated", "public", "result")
    columns += ("version", "hash", "key_id", "signature")
    if any(getattr(stored, name) != getattr(row, name) for name in columns):
        return False
    return stored.log == row.log or unpack(stored.log) == entries  # packed by another zlib


def _forget(claim: Claim, games: list[Game]) -> None:
    """Delete what Redis holds of `games`, archived now: the stream last but for the
    archive timer, which brings the move back if this is cut short."""
    if not games:
        return
    game_ids = [game.id for game in games]
    claim.lobby.forget(games)
    by_player = defaultdict(list)
    for game in games:
        for seat in game.seats:
            if seat.player is not None:
                by_player[seat.player].append(game.id)
    for player_id, theirs in by_player.items():
        claim.player_games.forget(player_id, theirs)
    claim.deadlines.forget(game_ids)
    claim.reminders.forget(game_ids)
    claim.seals.forget(game_ids)
    claim.rematches.forget(game_ids)
    claim.store.forget(game_ids)
    claim.archives.forget(game_ids)
