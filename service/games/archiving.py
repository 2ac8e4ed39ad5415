"""Ended games moved out of Redis into the archive (docs/design.md, The archive).

When a game ends, what follows the change sets its timer of the kind `archives` to
its end plus `CLAIM_ARCHIVE_AFTER` (`follow`); the worker fires the due ones a chunk at
a time, and `archive` moves those games, in this order:

1. what must follow the end is made sure of: the seal, a rated result folded into the
   ratings (a game not ready yet is left for its timer's next turn);
2. each stream checked against its seal (its chain computed again from the stored
   text) and packed (`pack` checks that each value reads back as it was); the facts
   of the row are those kept with the seal, or the log is folded (`_sealed`);
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

from service.events import ArchivedGame, Game, PublicKey, Seal, fold
from service.events.archive import FACTS, row_facts
from service.events.packing import Entry, pack, unpack
from service.events.store import head_of, records_of

from .claim import Claim
from .errors import use_case
from .export import public_keys, seal
from .ratings import rated_result

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
    earlier = [i for i in game_ids if i in archived_before]
    # archived by an earlier move cut short: its deletions are finished below
    moved = {game.id: row_facts(game) for game in claim.store.load_many(earlier)}
    kept = claim.seals.kept(list(streams))
    rows, facts_of, left, running = [], {}, [], []
    for game_id, entries in streams.items():
        sealed, facts = _sealed(claim, game_id, entries, kept.get(game_id), ended_by)
        if facts is None:
            running.append(game_id)
        elif sealed is None:
            left.append(game_id)
        else:
            rows.append(archived_row(game_id, facts, sealed, pack(entries)))
            facts_of[game_id] = facts
    claim.archive.put(rows)
    stored = claim.archive.get([row.id for row in rows])
    for row in rows:
        if _same(stored.get(row.id), row, streams[row.id]):
            moved[row.id] = facts_of[row.id]
        else:
            log.error("game %s: its archived row differs from its stream: kept in Redis", row.id)
            left.append(row.id)
    _forget(claim, moved)
    unknown = [i for i in game_ids if i not in streams and i not in archived_before]
    claim.archives.forget(unknown)  # no game: no timer
    return Archived(tuple(moved), tuple(left), tuple(running), tuple(unknown))


def _sealed(
    claim: Claim,
    game_id: str,
    entries: list[Entry],
    kept: tuple[Seal, dict | None] | None,
    ended_by: datetime | None,
) -> tuple[Seal | None, dict | None]:
    """The seal of the game of `entries` and the facts of its archive row: those kept
    with its seal (`kept`) when its log is the one sealed, without folding the log;
    else those of the log folded. Facts None: the game has not ended (by `ended_by`);
    seal None: it is not ready to move (`_ready`, which a game whose ratings are not
    folded yet goes through too)."""
    sealed, facts = kept or (None, None)
    game = None
    if not (
        facts is not None
        and facts.get("v") == FACTS
        and head_of(game_id, entries) == (sealed.version, sealed.hash)
    ):
        game = fold(game_id, records_of(game_id, entries))
        if game.ending is None:
            return None, None
        facts = row_facts(game)
    if ended_by is not None and facts["ended_at"] > ended_by.timestamp():
        return None, None
    if game is None and not (facts["moves_ratings"] and claim.ratings.changes(game_id) is None):
        return sealed, facts
    return _ready(claim, game or fold(game_id, records_of(game_id, entries)), sealed), facts


def check_archive(claim: Claim, game_ids: Iterable[str]) -> Iterator[tuple[str, str | None]]:
    """Each archived game among `game_ids` (`CHUNK` at a time) with what is wrong with
    its row, None if nothing: its log must unpack, its chain computed again end at the
    row's version and hash, and its seal check with a key that sealed games here."""
    keys = {key.key_id: key for key in public_keys(claim)}
    ids = iter(game_ids)
    while chunk := list(itertools.islice(ids, CHUNK)):
        for game_id, row in claim.archive.get(chunk).items():
            yield game_id, _wrong(row, keys)


def _wrong(row: ArchivedGame, keys: dict[str, PublicKey]) -> str | None:
    """What is wrong with an archived `row` (`check_archive`), None if nothing."""
    try:
        head = head_of(row.id, unpack(row.log))
    except ValueError as error:  # not a packed log, or an event's data not JSON
        return f"its log does not read: {error}"
    if head != (row.version, row.hash.hex()):
        return f"its log ends at version {head.version}, hash {head.hash}, not at its row's"
    key = keys.get(row.key_id)
    if key is None:
        return f"sealed with the key {row.key_id}, which no seal here was made with"
    if not key.verifies(row.signature, Seal.message(row.id, row.version, head.hash)):
        return "its seal does not check"
    return None


def _ready(claim: Claim, game: Game, sealed: Seal | None) -> Seal | None:
    """The seal of the ended `game` (`sealed`, if it was kept) if what follows its end
    is done (made so, if it can be): it is sealed, and its rated result is folded into
    the ratings. None, and the game left in Redis, if not, or if its seal is not of its
    log (the log says so)."""
    sealed = sealed or seal(claim, game)
    if (sealed.version, sealed.hash) != tuple(game.head):
        log.error("game %s: its seal is not of its log: kept in Redis", game.id)
        return None
    result = rated_result(claim, game)
    if result is not None and claim.ratings.changes(game.id) is None:
        claim.ratings.record(result)
        claim.ratings.catch_up(result.players)
        if claim.ratings.changes(game.id) is None:
            return None
    return sealed


def archived_row(game_id: str, facts: dict, sealed: Seal, packed: bytes) -> ArchivedGame:
    """The archive's row of an ended game: the `facts` of it (`row_facts`), its seal,
    and its log packed."""
    return ArchivedGame(
        id=game_id,
        status=facts["status"],
        created_at=facts["created_at"],
        ended_at=facts["ended_at"],
        players=facts["players"],
        rated=facts["rated"],
        public=facts["public"],
        result=facts["result"],
        version=sealed.version,
        hash=bytes.fromhex(sealed.hash),
        key_id=sealed.key_id,
        signature=sealed.signature,
        log=packed,
        seats=tuple((player, joined_at) for player, joined_at in facts["seats"]),
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


def _forget(claim: Claim, archived: dict[str, dict]) -> None:
    """Delete what Redis holds of the `archived` games (id: the facts of its row): the
    stream last but for the archive timer, which brings the move back if this is cut
    short."""
    if not archived:
        return
    game_ids = list(archived)
    claim.lobby.forget(archived)
    by_player = defaultdict(list)
    for game_id, facts in archived.items():
        for player, _ in facts["seats"]:
            by_player[player].append(game_id)
    for player_id, theirs in by_player.items():
        claim.player_games.forget(player_id, theirs)
    claim.deadlines.forget(game_ids)
    claim.reminders.forget(game_ids)
    claim.seals.forget(game_ids)
    claim.rematches.forget(game_ids)
    claim.store.forget(game_ids)
    claim.archives.forget(game_ids)
