"""A whole deployment taken out and put back: `claim export --all > FILE`, `claim import
FILE` (docs/operators.md, History that lasts).

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

A backup is trusted by the operator, never by itself: the header's keys are only told
(an import trusts none of them for being there). An import checks the whole file
before it writes anything: each line's fields, the end line's counts, its digest of
every line and its signature by a key this deployment trusts, its own or one the
operator names (`claim import --trust`), so that a line changed, dropped or added, a
file cut short or one signed by anybody else is found; each game's events folded
through the rules, an ended game's chain against its seal, signed by a trusted key or
one that sealed games here already, its deck against its commitment. A game sealed by
any other key refuses the whole backup, as any other line that does not hold: an
import is all or nothing. It then writes the players, the ended games straight into
the archive, the others into Redis, and every projection from them, and keeps the
keys that sealed its games among this deployment's (`/.well-known/claim-keys`); a game
or player already there is left as it is, so an import repeated, or cut short and
repeated, writes each once.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import orjson

from service.events import GAME_ID, InvalidEvent, PublicKey, RejectedEvent, Seal, fold
from service.events.archive import row_facts
from service.events.packing import Entry, pack, unpack
from service.events.shapes import check_fields
from service.events.store import records_of

from .archiving import archived_row
from .changes import rebuild
from .claim import Claim
from .export import public_keys, seal
from .history import audited
from .lines import BadLine

FORMAT = 1
CHUNK = 200  # games read or written at a time
SIGNED = b"claim-backup/1\n"  # what the end line's signature signs, before the digest
HEADER, PLAYER, GAME, END = "claim_backup", "player", "game", "end"  # what a line holds
LONGEST_LINE = 16 << 20  # bytes: a game's line takes 15 to 30 KiB, a player's less
HEADER_FIELDS = {HEADER: int, "exported_at": str, "server_secret": str, "keys": list}
PLAYER_FIELDS = {PLAYER: str, "fields": dict}
GAME_FIELDS = {GAME: str, "entries": list, "seen": dict, "seal": (dict, type(None))}
END_FIELDS = {END: dict, "key_id": str, "signature": str}
COUNT_FIELDS = {"players": int, "games": int, "sha256": str}


class BadBackup(BadLine):
    """A backup that does not hold, or that this deployment does not trust: `line`
    (from 1) says where."""


@dataclass(frozen=True, slots=True)
class Imported:
    players: int  # written now (those there already are not counted)
    games: int  # written now (those there already are not counted)
    archived: int  # of which ended, into the archive
    signer: PublicKey  # the trusted key that signed the backup


@dataclass(frozen=True, slots=True)
class _Checked:
    signer: PublicKey
    sealers: tuple[PublicKey, ...]  # the keys that sealed its ended games


def export_all(claim: Claim) -> Iterator[bytes]:
    """Every line of a backup of the deployment (the module's docstring), signed with
    `claim.signing_key`."""
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


def import_all(
    claim: Claim, read: Callable[[], Iterable[bytes]], trusted: Iterable[PublicKey] = ()
) -> Imported:
    """Import the backup that `read()` gives the lines of, afresh each time it is
    called (it is read twice: checked whole, then written), if it is signed by this
    deployment's key or one of `trusted` (the operator's). BadBackup, with nothing
    written, if it does not hold or is signed by another key."""
    signers = {key.key_id: key for key in (claim.signing_key.public, *trusted)}
    sealers = {key.key_id: key for key in public_keys(claim)} | signers
    checked = _check(read(), signers, sealers)
    header = orjson.loads(next(iter(read())))
    _take_secret(claim, bytes.fromhex(header["server_secret"]))
    for key in checked.sealers:  # the keys of its games' seals only, each trusted
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
                written += claim.store.restore(game_id, entries, parsed["seen"])
                redis_ids.append(game_id)
    rebuild(claim, redis_ids, archived_ids)
    return Imported(players, written, archived, checked.signer)


def _check(
    lines: Iterable[bytes], signers: dict[str, PublicKey], sealers: dict[str, PublicKey]
) -> _Checked:
    """The backup's signer (one of `signers`) and the keys that sealed its games (of
    `sealers`), once every line holds (BadBackup otherwise)."""
    counts, digest, number = {PLAYER: 0, GAME: 0}, hashlib.sha256(), 0
    signer, sealed_by = None, {}
    for number, text in enumerate(lines, start=1):
        if signer is not None:
            raise BadBackup(number, "a line after the end")
        try:
            parsed = _parsed(text)
            if number == 1:
                _check_header(parsed)
            elif not isinstance(parsed, dict):
                raise ValueError("not an object")
            elif PLAYER in parsed:
                _check_player(parsed)
            elif GAME in parsed:
                key = _check_game(parsed, sealers)
                if key is not None:
                    sealed_by[key.key_id] = key
            elif END in parsed:
                signer = _check_end(parsed, counts, digest, signers)
            else:
                raise ValueError("neither a player, a game nor the end")
        except (ValueError, InvalidEvent, RejectedEvent) as error:
            raise BadBackup(number, str(error)) from None
        kind = next((k for k in (PLAYER, GAME) if k in parsed), None)
        counts[kind] = counts.get(kind, 0) + 1
        digest.update(text)
    if signer is None:
        raise BadBackup(number + 1, "the backup ends before its end line: cut short?")
    return _Checked(signer, tuple(sealed_by.values()))


def _check_end(parsed: dict, counts: dict, digest, signers: dict[str, PublicKey]) -> PublicKey:
    """The end line: its counts and digest of the lines before, signed by one of
    `signers`, which it answers."""
    check_fields(parsed, END_FIELDS)
    end = check_fields(parsed[END], COUNT_FIELDS)
    said, found = (end["players"], end["games"]), (counts[PLAYER], counts[GAME])
    if said != found:
        raise ValueError(
            "it counts {} players and {} games, the lines before it {} and {}".format(*said, *found)
        )
    if end["sha256"] != digest.hexdigest():
        raise ValueError("its digest is not of the lines before it: one changed, moved or went")
    key_id, key = parsed["key_id"], signers.get(parsed["key_id"])
    if key is None:
        raise ValueError(
            f"it is signed by key {key_id!r}, neither this deployment's own nor one named"
            " by --trust: a backup is imported only when its signer is trusted"
        )
    try:
        signature = base64.b64decode(parsed["signature"], validate=True)
    except binascii.Error:
        signature = b""
    if not key.verifies(signature, SIGNED + digest.digest()):
        raise ValueError(f"its signature is not key {key_id!r}'s")
    return key


def _check_header(parsed) -> None:
    if not isinstance(parsed, dict) or parsed.get(HEADER) != FORMAT:
        raise ValueError(f"not a backup of format {FORMAT}")
    check_fields(parsed, HEADER_FIELDS)
    try:
        bytes.fromhex(parsed["server_secret"])
    except ValueError:
        raise ValueError("its server secret is not hex") from None


def _check_player(parsed: dict) -> None:
    fields = check_fields(parsed, PLAYER_FIELDS)["fields"]
    if not all(isinstance(v, str) for v in fields.values()) or "name" not in fields:
        raise ValueError(f"player {parsed[PLAYER]}: not a player's fields")


def _check_game(parsed: dict, sealers: dict[str, PublicKey]) -> PublicKey | None:
    """A game's line: its events fold through the rules; an ended game's seal is one
    of `sealers`' for its chain (the key answered), and its deck gives its commitment."""
    check_fields(parsed, GAME_FIELDS)
    game_id = parsed[GAME]
    if not GAME_ID.fullmatch(game_id):
        raise ValueError(f"{game_id!r} is not a game's id")
    seen = parsed["seen"]
    if not all(type(version) is int for version in seen.values()):
        raise ValueError(f"game {game_id}: its seen ids' versions are not all integers")
    entries = [_entry(entry) for entry in parsed["entries"]]
    records = records_of(game_id, entries)
    game = fold(game_id, records)  # the rules check every event
    if game.ending is None:
        if parsed["seal"] is not None:
            raise ValueError(f"game {game_id}: a seal, but the game has not ended")
        return None
    seal = Seal.parse(parsed["seal"])
    if (seal.game_id, seal.version, seal.hash) != (game_id, *game.head):
        raise ValueError(f"game {game_id}: its seal is not of its log")
    if seal.key_id not in sealers:
        raise ValueError(
            f"game {game_id}: sealed by key {seal.key_id!r}, which this deployment does not"
            " trust (name it with --trust if you do)"
        )
    if not seal.signed_by(sealers):
        raise ValueError(f"game {game_id}: its seal is not key {seal.key_id!r}'s signature")
    audit = audited(game_id, records)
    if not (audit.commitment_verified and audit.result_verified):
        raise ValueError(f"game {game_id}: its deck or its decisions do not hold")
    return sealers[seal.key_id]


def _take_secret(claim: Claim, secret: bytes) -> None:
    """The backup's server secret (from which rematches' ids are derived) becomes
    this deployment's, unless it has one of its own already."""
    if not claim.rematches.adopt(secret):
        raise BadBackup(1, "this deployment has a server secret of its own: import into a new one")


def _game(game_id: str, entries: list[Entry], seen: dict[str, int], seal: Seal | None) -> bytes:
    listed = [[value.decode() for value in entry] for entry in entries]
    body = {GAME: game_id, "entries": listed, "seen": seen}
    return _line({**body, "seal": None if seal is None else seal.body()})


def _entry(values) -> Entry:
    if not (isinstance(values, list) and len(values) == len(Entry._fields)):
        raise ValueError(f"an event that is not {len(Entry._fields)} values: {values!r}")
    if not all(isinstance(value, str) for value in values):
        raise ValueError(f"an event whose values are not all strings: {values!r}")
    return Entry(*(value.encode() for value in values))


def _parsed(text: bytes):
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as error:
        raise ValueError(f"not JSON: {error}") from None


def _line(value: dict) -> bytes:
    return orjson.dumps(value) + b"\n"
