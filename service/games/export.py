"""The export of an ended game, its seal, and the offline check of an export.

An export is JSON lines: one per event, in order, each the event's canonical form
(`service/events/chain.py`: version, id, type, schema version `v`, time, data with its
private values digested) with `hash`, the chain's hash up to it; then the seal,
`{"seal": {"game_id", "version", "hash", "key_id", "signature"}}`. A running game is
not exported (GameNotOver): its chain holds the deck and salt, which stay secret until
the end, so its export could not be checked.

`verify_export` needs no server: it checks the chain line by line, the seal with the
public keys given, the deck against its commitment and every decision replayed
through the rules (`audited`, as `/audit` does). A line with a field the export does
not have is refused: the chain covers only the fields of the canonical form, so an
extra one would pass unchecked. A file is read up to `LONGEST_EXPORT` bytes, a line up
to `LONGEST_LINE` (`lines.read_lines`): a game played to its end takes 15 to 25 KiB
(2 to 4 players), its longest line, the creation, 1.2 KiB.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import orjson
from marshmallow import ValidationError

from service.events import Game, PublicKey, Recorded, RejectedEvent, Seal, fold
from service.events.archive import row_facts
from service.events.chain import PRIVATE, canonical, genesis, link
from service.events.codec import decode
from service.events.shapes import check_fields

from .claim import Claim
from .errors import GameNotOver, use_case
from .history import audited

SEAL = "seal"
HASH = "hash"  # beside an event's canonical fields: the chain's hash up to it
EVENT_FIELDS = {"version": int, "id": str, "type": str, "v": int, "at": str, "data": dict}
LONGEST_LINE = 64 << 10  # bytes
LONGEST_EXPORT = 4 << 20  # bytes


def seal(claim: Claim, game: Game) -> Seal | None:
    """The seal of `game` once it has ended (made and kept the first time), else None."""
    if game.ending is None:
        return None
    kept = claim.seals.get(game.id)
    if kept is not None:
        return kept
    version, chain_hash = game.head
    key = claim.signing_key
    claim.seals.know(key.public)  # checkable once the key has changed too
    signature = key.sign(Seal.message(game.id, version, chain_hash))
    sealed = Seal(game.id, version, chain_hash, key.public.key_id, signature)
    return claim.seals.keep(sealed, row_facts(game))


def public_keys(claim: Claim) -> tuple[PublicKey, ...]:
    """The public halves of the keys that seals are checked with: the server's own
    first, then every other that sealed a game kept here (an older key, or another
    deployment's whose games were imported)."""
    own = claim.signing_key.public
    return (own, *(key for key in claim.seals.known() if key.key_id != own.key_id))


@use_case
def export(claim: Claim, game_id: str) -> list[bytes]:
    """The export of the ended game `game_id`, a line each (the module's docstring)."""
    records = claim.store.read(game_id)
    game = fold(game_id, records)
    if game.ending is None:
        raise GameNotOver(f"game {game_id} has not ended: its log holds its secret deck")
    lines, chain = [], genesis(game_id)
    for record in records:
        form = record.canonical
        chain = link(chain, form)
        lines.append(orjson.dumps({**orjson.loads(form), "hash": chain.hex()}))
    sealed = seal(claim, game)
    lines.append(orjson.dumps({SEAL: sealed.body()}))
    return lines


@dataclass(frozen=True, slots=True)
class Verdict:
    """What `verify_export` found: `line` (from 1) is the first bad one, None if none."""

    line: int | None
    reason: str

    @property
    def ok(self) -> bool:
        return self.line is None


def verify_export(lines: Iterable[bytes | str], keys: Iterable[PublicKey]) -> Verdict:
    """Check an export (the module's docstring) against the public `keys`."""
    lines = [line for line in lines if line.strip()]
    if not lines:
        return Verdict(1, "the export is empty")
    try:
        parsed = [orjson.loads(line) for line in lines]
    except orjson.JSONDecodeError as error:
        return Verdict(_bad_json(lines), f"not JSON: {error}")
    last = len(parsed)
    if not isinstance(parsed[-1], dict) or SEAL not in parsed[-1]:
        return Verdict(last, "the last line is not the seal")
    try:
        sealed = _seal_of(parsed[-1])
    except ValueError as error:
        return Verdict(last, str(error))
    records, chain = [], genesis(sealed.game_id)
    for number, line in enumerate(parsed[:-1], start=1):
        try:
            record, form = _record(line, number)
        except ValueError as error:
            return Verdict(number, f"not an event of version {number}: {error}")
        chain = link(chain, form)
        if line.get(HASH) != chain.hex():
            return Verdict(number, "its hash is not the chain's: changed, moved or missing")
        records.append(record)
    if not records:
        return Verdict(last, "the seal seals no event")
    if (sealed.version, sealed.hash) != (len(records), chain.hex()):
        return Verdict(last, f"the seal is of version {sealed.version}, not of the last line")
    if not sealed.signed_by({key.key_id: key for key in keys}):
        return Verdict(last, f"the seal's signature is not key {sealed.key_id!r}'s")
    return _replayed(sealed, records)


def _seal_of(line: dict) -> Seal:
    """The seal of an export's last line, which holds nothing else (ValueError)."""
    beside = next((field for field in line if field != SEAL), None)
    if beside is not None:
        raise ValueError(f"not a seal: an unknown field {beside!r} beside it")
    return Seal.parse(line[SEAL])


def _record(line, version: int) -> tuple[Recorded, bytes]:
    """The record of an export's line, and its canonical bytes as the line says them
    (ValueError saying what is wrong)."""
    fields = (
        {f: value for f, value in line.items() if f != HASH} if isinstance(line, dict) else line
    )
    check_fields(fields, EVENT_FIELDS)
    if line["version"] != version:
        raise ValueError(f"it says version {line['version']}")
    name, data = line["type"], line["data"]
    form = canonical(version, line["id"], name, line["v"], line["at"], data)
    try:
        event = decode(name, line["v"], orjson.dumps(_replayable(name, data)))
    except ValidationError as error:
        if isinstance(error.messages, dict):  # the schema's, by field
            raise ValueError(f"its data does not fit {name}: {_said(error.messages)}") from None
        raise ValueError(_said(error.messages)) from None
    at = datetime.fromisoformat(line["at"])
    return Recorded(version, uuid.UUID(line["id"]), at, event, form), form


def _said(messages) -> str:
    """A schema's messages (by field, nested) in one line of words."""
    if isinstance(messages, dict):
        return "; ".join(f"{field}: {_said(message)}" for field, message in messages.items())
    if isinstance(messages, list):
        return " ".join(map(_said, messages))
    return str(messages)


def _replayable(name: str, data: dict) -> dict:
    """An export's data made readable by the codec: its private values, digested in
    the export, stand in for placeholders that no rule looks at."""
    data = {key: value for key, value in data.items() if key != PRIVATE}
    if name == "SeatJoined":
        data |= {"token_hash": "0" * 64, "player": None}
    elif name == "SeatRegistered":
        data |= {"player": "private", "player_salt": None}
    return data


def _replayed(sealed: Seal, records: list[Recorded]) -> Verdict:
    """The deck against its commitment, and every event through the rules."""
    game_id = sealed.game_id
    try:
        audit = audited(game_id, records)
    except RejectedEvent as error:
        return Verdict(error.version, f"the rules reject it: {error}")
    except GameNotOver:
        return Verdict(len(records) + 1, "the seal seals a game that has not ended")
    if not audit.commitment_verified:
        return Verdict(1, "the deck and salt do not give the commitment")
    if not audit.result_verified:
        return Verdict(len(records), "the decisions replayed do not give the game")
    held = f"{len(records)} events, chain, seal, deck and rules hold"
    return Verdict(None, f"game {game_id}: {held}; sealed by key {sealed.key_id}")


def _bad_json(lines: list) -> int:
    for number, line in enumerate(lines, start=1):
        try:
            orjson.loads(line)
        except orjson.JSONDecodeError:
            return number
    return 1
