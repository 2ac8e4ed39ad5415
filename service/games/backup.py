"""A whole deployment taken out and put back: `claim export --all > FILE`, `claim import
FILE` (README, Backups).

A backup is JSON lines:

    {"claim_backup": 1, "exported_at": ..., "server_secret": <hex>, "keys": [<public keys>]}
    {"player": <id>, "fields": {<everything kept of the player>}}       one per player
    {"game": <id>, "entries": [[id, type, v, at, data], ...],            one per game,
     "seen": {<event id>: <version>}, "seal": {<seal>} or null}         archived or not
    {"end": {"players": <count>, "games": <count>, "sha256": <of every line before>},
     "key_id": <the exporting server's key>, "signature": <of "claim-backup/1\n" + sha256>}

Every stored byte of every event is in it (the private values too: seat tokens'
hashes, invites' hashes, the players' key digests, emails and webhook secrets), so a
backup is as secret as the data directory. Ratings are not: they are a fold of the
rated games' results, folded again on import (`claim rebuild` gives the same figures).

An import checks the whole file before it writes anything: the end line's counts, its
digest of every line and its signature by a key of the header (so that a line changed,
dropped or added, or a file cut short, is found); each game's events folded through
the rules, an ended game's chain against its seal signed by one of the backup's keys,
its deck against its commitment. It then writes
the players, the ended games straight into the archive, the others into Redis, and
every projection from them; a game or player already there is left as it is, so an
import repeated, or cut short and repeated, writes each once.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import orjson

from service.events import InvalidEvent, PublicKey, RejectedEvent, Seal, fold
from service.events.archive import row_facts
from service.events.packing import Entry, pack, unpack
from service.events.store import records_of

from .archiving import archived_row
from .changes import rebuild
from .claim import Claim
from .export import public_keys, seal
from .history import audited

FORMAT = 1
CHUNK = 200  # games read or written at a time
SIGNED = b"claim-backup/1\n"  # what the end line's signature signs, before the digest
HEADER, PLAYER, GAME, END = "claim_backup", "player", "game", "end"  # what a line holds


class BadBackup(ValueError):
    """A backup that does not hold: `line` (from 1) says where."""

    def __init__(self, line: int, reason: str):
        super().__init__(reason)
        self.line = line


@dataclass(frozen=True, slots=True)
class Imported:
    players: int  # written now (those there already are not counted)
    games: int  # written now (those there already are not counted)
    archived: int  # of which ended, into the archive


def export_all(claim: Claim) -> Iterator[bytes]:
    """Every line of a backup of the deployment (the module's docstring)."""
    digest, counts = hashlib.sha256(), {PLAYER: 0, GAME: 0}
    for kind, line in _body(claim):
        counts[kind] = counts.get(kind, 0) + 1
        digest.update(line)
        yield line
    key = claim.signing_key
    yield _line(
        {
            END: {"players": counts[PLAYER], "games": counts[GAME], "sha256": digest.hexdigest()},
            "key_id": key.public.key_id,
            "signature": base64.b64encode(key.sign(SIGNED + digest.digest())).decode(),
        }
    )


def _body(claim: Claim) -> Iterator[tuple[str, bytes]]:
    """The lines of a backup before its end, each with what it holds."""
    secret, keys = claim.rematches.secret().hex(), [k.listed() for k in public_keys(claim)]
    at = claim.clock().isoformat()
    yield HEADER, _line({HEADER: FORMAT, "exported_at": at, "server_secret": secret, "keys": keys})
    for player_id in claim.players.ids():
        yield PLAYER, _line({PLAYER: player_id, "fields": claim.players.dump(player_id)})
    ids = iter(claim.store.game_ids())
    while chunk := list(itertools.islice(ids, CHUNK)):
        for game_id, entries in claim.store.entries(chunk).items():
            seen = claim.store.seen_ids(game_id)
            sealed = claim.seals.get(game_id) or seal(claim, claim.store.load(game_id))
            yield GAME, _game(game_id, entries, seen, sealed)
    ids = claim.archive.every_id()
    while chunk := list(itertools.islice(ids, CHUNK)):
        for game_id, row in claim.archive.get(chunk).items():
            yield GAME, _game(game_id, unpack(row.log), {}, claim.seals.get(game_id))


def import_all(claim: Claim, read: Callable[[], Iterable[bytes]]) -> Imported:
    """Import the backup that `read()` gives the lines of, afresh each time it is
    called (it is read twice: checked whole, then written). BadBackup, with nothing
    written, if it does not hold."""
    keys = _check(read())
    header = orjson.loads(next(iter(read())))
    _take_secret(claim, bytes.fromhex(header["server_secret"]))
    for key in keys.values():
        claim.seals.know(key)
    players = written = archived = 0
    redis_ids, archived_ids = [], []
    for parsed in map(orjson.loads, read()):
        if PLAYER in parsed:
            players += claim.players.restore(parsed[PLAYER], parsed["fields"])
        elif GAME in parsed:
            game_id, entries = parsed[GAME], [_entry(e) for e in parsed["entries"]]
            game = fold(game_id, records_of(game_id, entries))
            if game.ending is not None:
                if not claim.store.versions([game_id])[game_id]:  # in neither place yet
                    seal = Seal.parse(parsed["seal"])
                    claim.archive.put([archived_row(game_id, row_facts(game), seal, pack(entries))])
                    written, archived = written + 1, archived + 1
                archived_ids.append(game_id)
            else:
                seen = {event_id: int(v) for event_id, v in parsed.get("seen", {}).items()}
                written += claim.store.restore(game_id, entries, seen)
                redis_ids.append(game_id)
    rebuild(claim, redis_ids, archived_ids)
    return Imported(players, written, archived)


def _check(lines: Iterable[bytes]) -> dict[str, PublicKey]:
    """The backup's keys, once every line holds (BadBackup otherwise)."""
    keys: dict[str, PublicKey] = {}
    counts, digest, ended, number = {PLAYER: 0, GAME: 0}, hashlib.sha256(), False, 0
    for number, text in enumerate(lines, start=1):
        if ended:
            raise BadBackup(number, "a line after the end")
        try:
            parsed = orjson.loads(text)
            if number == 1:
                keys = _header(parsed)
            elif PLAYER in parsed:
                _check_player(parsed)
            elif GAME in parsed:
                _check_game(parsed, keys)
            elif END in parsed:
                _check_end(parsed, counts, digest, keys)
                ended = True
            else:
                raise ValueError("neither a player, a game nor the end")
        except (KeyError, TypeError, ValueError, InvalidEvent, RejectedEvent) as error:
            raise BadBackup(number, str(error)) from None
        kind = next((k for k in (PLAYER, GAME) if k in parsed), None)
        counts[kind] = counts.get(kind, 0) + 1
        digest.update(text)
    if not ended:
        raise BadBackup(number + 1, "the backup ends before its end line: cut short?")
    return keys


def _check_end(parsed: dict, counts: dict, digest, keys: dict[str, PublicKey]) -> None:
    """The end line: its counts and digest of the lines before, signed by a key of the
    header."""
    end, found = parsed[END], {"players": counts[PLAYER], "games": counts[GAME]}
    if {"players": end["players"], "games": end["games"]} != found:
        raise ValueError(f"it counts {end}, the lines before it {found}")
    if end["sha256"] != digest.hexdigest():
        raise ValueError("its digest is not of the lines before it: one changed, moved or went")
    key = keys.get(parsed["key_id"])
    try:
        signature = base64.b64decode(parsed["signature"], validate=True)
    except binascii.Error:
        signature = b""
    if key is None or not key.verifies(signature, SIGNED + digest.digest()):
        raise ValueError(f"its signature is not key {parsed['key_id']!r}'s")


def _header(parsed: dict) -> dict[str, PublicKey]:
    if parsed.get(HEADER) != FORMAT:
        raise ValueError(f"not a backup of format {FORMAT}")
    bytes.fromhex(parsed["server_secret"])
    return {key.key_id: key for key in map(PublicKey.parse, parsed["keys"])}


def _check_player(parsed: dict) -> None:
    fields = parsed["fields"]
    if not isinstance(parsed[PLAYER], str) or not isinstance(fields, dict):
        raise ValueError("not a player")
    if not all(isinstance(v, str) for v in fields.values()) or "name" not in fields:
        raise ValueError("not a player's fields")


def _check_game(parsed: dict, keys: dict[str, PublicKey]) -> None:
    """A game's line: its events fold through the rules; an ended game's seal is one
    of `keys`' for its chain, and its deck gives its commitment."""
    game_id = parsed[GAME]
    entries = [_entry(entry) for entry in parsed["entries"]]
    records = records_of(game_id, entries)
    game = fold(game_id, records)  # the rules check every event
    if game.ending is None:
        if parsed["seal"] is not None:
            raise ValueError(f"game {game_id}: a seal, but the game has not ended")
        return
    seal = Seal.parse(parsed["seal"])
    if (seal.game_id, seal.version, seal.hash) != (game_id, *game.head):
        raise ValueError(f"game {game_id}: its seal is not of its log")
    if not seal.signed_by(keys):
        raise ValueError(f"game {game_id}: its seal is not signed by a key of the backup")
    audit = audited(game_id, records)
    if not (audit.commitment_verified and audit.result_verified):
        raise ValueError(f"game {game_id}: its deck or its decisions do not hold")


def _take_secret(claim: Claim, secret: bytes) -> None:
    """The backup's server secret (from which rematches' ids are derived) becomes
    this deployment's, unless it has one of its own already."""
    if not claim.rematches.adopt(secret):
        raise BadBackup(1, "this deployment has a server secret of its own: import into a new one")


def _game(game_id: str, entries: list[Entry], seen: dict[str, int], seal: Seal | None) -> bytes:
    listed = [[value.decode() for value in entry] for entry in entries]
    body = {GAME: game_id, "entries": listed, "seen": seen}
    return _line({**body, "seal": None if seal is None else seal.body()})


def _entry(values: list) -> Entry:
    if not isinstance(values, list) or len(values) != len(Entry._fields):
        raise ValueError(f"not an event: {values!r}")
    return Entry(*(str(value).encode() for value in values))


def _line(value: dict) -> bytes:
    return orjson.dumps(value) + b"\n"
