"""The export of an ended game, its seal, and the offline check of an export.

An export is JSON lines: one per event, in order, each the event's canonical form
(`service/events/chain.py`: version, id, type, schema version `v`, time, data with its
private values digested) with `hash`, the chain's hash up to it; then the seal,
`{"seal": {"game_id", "version", "hash", "key_id", "signature"}}`. A running game is
not exported (GameNotOver): its chain holds the deck and salt, which stay secret until
the end, so its export could not be checked.

`verify_export` needs no server: it checks the chain line by line, the seal with the
public keys given, the deck against its commitment and every decision replayed
through the rules (`audited`, as `/audit` does).
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

from .claim import Claim
from .errors import GameNotOver, use_case
from .history import audited

SEAL = "seal"


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
        sealed = Seal.parse(parsed[-1][SEAL])
    except ValueError as error:
        return Verdict(last, str(error))
    game_id, records, chain = sealed.game_id, [], genesis(sealed.game_id)
    for number, line in enumerate(parsed[:-1], start=1):
        try:
            record, form = _record(line, number)
        except (KeyError, TypeError, ValueError, ValidationError) as error:
            return Verdict(number, f"not an event of version {number}: {error}")
        chain = link(chain, form)
        if line.get("hash") != chain.hex():
            return Verdict(number, "its hash is not the chain's: changed, moved or missing")
        records.append(record)
    if not records:
        return Verdict(last, "the seal seals no event")
    if (sealed.version, sealed.hash) != (len(records), chain.hex()):
        return Verdict(last, f"the seal is of version {sealed.version}, not of the last line")
    if not sealed.signed_by({key.key_id: key for key in keys}):
        return Verdict(last, f"the seal's signature is not key {sealed.key_id!r}'s")
    return _replayed(game_id, records)


def _record(line: dict, version: int) -> tuple[Recorded, bytes]:
    """The record of an export's line, and its canonical bytes as the line says them."""
    if line["version"] != version:
        raise ValueError(f"it says version {line['version']}")
    form = canonical(version, line["id"], line["type"], line["v"], line["at"], line["data"])
    data = _replayable(line["type"], line["data"])
    event = decode(line["type"], line["v"], orjson.dumps(data))
    at = datetime.fromisoformat(line["at"])
    return Recorded(version, uuid.UUID(line["id"]), at, event, form), form


def _replayable(name: str, data: dict) -> dict:
    """An export's data made readable by the codec: its private values, digested in
    the export, stand in for placeholders that no rule looks at."""
    data = {key: value for key, value in data.items() if key != PRIVATE}
    if name == "SeatJoined":
        data |= {"token_hash": "0" * 64, "player": None}
    elif name == "SeatRegistered":
        data["player"] = "private"
    return data


def _replayed(game_id: str, records: list[Recorded]) -> Verdict:
    """The deck against its commitment, and every event through the rules."""
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
    return Verdict(None, f"game {game_id}: {len(records)} events, chain, seal, deck and rules hold")


def _bad_json(lines: list) -> int:
    for number, line in enumerate(lines, start=1):
        try:
            orjson.loads(line)
        except orjson.JSONDecodeError:
            return number
    return 1
