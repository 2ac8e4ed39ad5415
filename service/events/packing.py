"""A game's log packed small for the archive, every stored byte given back by `unpack`.

A log is the stream's entries as Redis keeps them (`Entry`: id, type, schema version,
time and data, each the stored text). `pack` writes them in columns, so that like
values sit together, then deflates the whole (raw deflate, with a preset dictionary of
the text that recurs in every log):

    format byte 1, then deflate(
        varint count,
        per entry: varint zigzag(time - previous time), in microseconds since 1970,
        varint number of type names, each name (varint length, UTF-8),
        per entry: varint index of its type name, varint schema version,
        per entry: varint length, its data with each card code as 0x00 + one byte
            (faction * 10 + value, factions in `FACTIONS` order) and each quoted
            64-digit lowercase hex string as 0x01 + its 32 bytes,
        per entry: its id as 16 bytes)

A 2-player game of 55 events packs to about 1.6 KB, where its JSON lines take 9.8 KB:
most of what is left is its event ids, 16 random bytes each. A log whose values are
not all in the forms written by the store (ids as `str(uuid)`, times as
`datetime.isoformat()` in UTC, data without bytes 0x00 and 0x01) is packed as format 0:
every field length-prefixed, deflated.

A format, once written, is never changed (nor its dictionary): a new one gets a new
format byte, and `unpack` reads them all.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import NamedTuple

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)
PLAIN, COLUMNS = 0, 1  # the format bytes
# Format 1's card codes: a faction's rank here times 10 plus the value.
FACTIONS = ("GO", "KN", "UN", "DO", "DW", "GN", "GI", "DR", "TR", "SE")
CARD, HEX = 0x00, 0x01  # the markers in format 1's data: no JSON text holds these bytes
_MARKABLE = re.compile(  # a quoted digest, or a card code
    rb'"([0-9a-f]{64})"|(?<![A-Za-z0-9])(' + "|".join(FACTIONS).encode() + rb")([0-9])(?![0-9])"
)
_MARKER = re.compile(rb"[\x00\x01]")
# The times `datetime.isoformat()` writes in UTC: microseconds only when not zero.
_TIME = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.(?!000000)\d{6})?\+00:00")
_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_FACTION_RANK = {code.encode(): rank for rank, code in enumerate(FACTIONS)}
_CARD_CODES = [f"{faction}{value}".encode() for faction in FACTIONS for value in range(10)]
# Format 1's preset dictionary: text that recurs in logs, the likeliest last.
_DICTIONARY = (
    b'{"settings":{"players":2,"factions":["GO","KN","UN","DO","DW"],"first_leader":0},'
    b'"seats":[{"kind":"human","level":null,"invite_hash":null},{"kind":"ai","level":"greedy"'
    b',"invite_hash":null}],"deck":[],"salt":"commitment":"move_time_limit":null,'
    b'"timeout_policy":"join_time_limit":604800,"rated":falsetrue}'
    b"GameCreatedSeatJoinedSeatRegisteredSeatReturnedTurnTimedOutGameResignedGameAborted"
    b'{"seat":0,"name":"","token_hash":,"player":null}{"seat":1,"reason":"'
    b'{"seat":1,"decision":"take deck","timeout_policy":null}'
    b'{"seat":0,"decision":"take ","timeout_policy":null}'
    b'{"seat":1,"decision":"play ","timeout_policy":null}DecisionMade'
    b'{"seat":0,"decision":"play ","timeout_policy":null}DecisionMade'
)


class Entry(NamedTuple):
    """One event as the stream stores it: each field its stored text."""

    id: bytes
    type: bytes
    v: bytes
    at: bytes
    data: bytes


def pack(entries: Sequence[Entry]) -> bytes:
    """The entries packed (the module's docstring): in columns when every value reads
    back from them as it was (each value's form is checked as it is written), plainly
    otherwise."""
    try:
        return bytes([COLUMNS]) + _deflate(_columns(entries), _DICTIONARY)
    except _NotPackable:
        return bytes([PLAIN]) + _deflate(_plain(entries), b"")


def unpack(blob: bytes) -> list[Entry]:
    """The entries that `pack` packed into `blob` (ValueError if it holds none)."""
    if not blob or blob[0] not in (PLAIN, COLUMNS):
        raise ValueError("not a packed log")
    try:
        if blob[0] == PLAIN:
            return _from_plain(_Reader(_inflate(blob[1:], b"")))
        return _from_columns(_Reader(_inflate(blob[1:], _DICTIONARY)))
    except (zlib.error, IndexError) as error:
        raise ValueError(f"a packed log that cannot be read: {error}") from None


class _NotPackable(Exception):
    """A value not in the form that format 1 writes."""


def _columns(entries: Sequence[Entry]) -> bytes:
    out = bytearray()
    _varint(out, len(entries))
    before = 0
    for entry in entries:
        moment = _microseconds(entry.at)
        _varint(out, _zigzag(moment - before))
        before = moment
    names = list(dict.fromkeys(entry.type for entry in entries))
    _varint(out, len(names))
    for name in names:
        _bytes(out, name)
    index = {name: n for n, name in enumerate(names)}
    for entry in entries:
        if not entry.v.isdigit() or entry.v != str(int(entry.v)).encode():
            raise _NotPackable
        _varint(out, index[entry.type])
        _varint(out, int(entry.v))
    for entry in entries:
        _bytes(out, _marked(entry.data))
    for entry in entries:
        out += _uuid_bytes(entry.id)
    return bytes(out)


def _from_columns(reader: _Reader) -> list[Entry]:
    count = reader.varint()
    moments, moment = [], 0
    for _ in range(count):
        moment += _unzigzag(reader.varint())
        moments.append(moment)
    names = [reader.bytes() for _ in range(reader.varint())]
    kinds = [(names[reader.varint()], str(reader.varint()).encode()) for _ in range(count)]
    datas = [_unmarked(reader.bytes()) for _ in range(count)]
    ids = [_uuid_text(reader.take(16)) for _ in range(count)]
    reader.end()
    return [
        Entry(event_id, name, v, _time_text(moment), data)
        for event_id, (name, v), moment, data in zip(ids, kinds, moments, datas, strict=True)
    ]


def _plain(entries: Iterable[Entry]) -> bytes:
    out = bytearray()
    entries = list(entries)
    _varint(out, len(entries))
    for entry in entries:
        for value in entry:
            _bytes(out, value)
    return bytes(out)


def _from_plain(reader: _Reader) -> list[Entry]:
    entries = [Entry(*(reader.bytes() for _ in Entry._fields)) for _ in range(reader.varint())]
    reader.end()
    return entries


def _microseconds(at: bytes) -> int:
    """The time `at` as microseconds since 1970, if it is in the form `_time_text`
    writes it back in."""
    if not _TIME.fullmatch(at):
        raise _NotPackable
    try:
        moment = (datetime.fromisoformat(at.decode()) - EPOCH) // MICROSECOND
    except ValueError:  # a date that is none: February 30th
        raise _NotPackable from None
    if _time_text(moment) != at:
        raise _NotPackable
    return moment


def _time_text(moment: int) -> bytes:
    return (EPOCH + moment * MICROSECOND).isoformat().encode()


def _uuid_bytes(text: bytes) -> bytes:
    if not _UUID.fullmatch(text):
        raise _NotPackable
    return bytes.fromhex(text.replace(b"-", b"").decode())


def _uuid_text(raw: bytes) -> bytes:
    digits = raw.hex().encode()
    return b"-".join((digits[:8], digits[8:12], digits[12:16], digits[16:20], digits[20:]))


@lru_cache(maxsize=8192)
def _marked(data: bytes) -> bytes:
    """`data` with its card codes and hex digests as markers (the module's docstring).
    Most of a log's data are decisions, of a few thousand distinct ones: each is marked
    once per process (a 2-player game packs in 0.3 ms instead of 0.8)."""
    if _MARKER.search(data):
        raise _NotPackable
    marked = _MARKABLE.sub(_marker, data)
    if _unmarked(marked) != data:
        raise _NotPackable
    return marked


def _marker(found: re.Match) -> bytes:
    """The marker of a card code or a quoted digest, in one pass over the text: the
    bytes that a marker puts in are never read again (a digest's 32 bytes may hold a
    card code, a card's byte may be a quote)."""
    if found[1] is not None:
        return bytes([HEX]) + bytes.fromhex(found[1].decode())
    return bytes([CARD, _FACTION_RANK[found[2]] * 10 + int(found[3])])


@lru_cache(maxsize=8192)
def _unmarked(data: bytes) -> bytes:
    out, at = bytearray(), 0
    while (found := _MARKER.search(data, at)) is not None:
        start = found.start()
        out += data[at:start]
        if data[start] == CARD:
            out += _CARD_CODES[data[start + 1]]
            at = start + 2
        else:
            out += b'"' + data[start + 1 : start + 33].hex().encode() + b'"'
            at = start + 33
    return bytes(out + data[at:])


def _deflate(payload: bytes, dictionary: bytes) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zdict=dictionary)
    return compressor.compress(payload) + compressor.flush()


def _inflate(blob: bytes, dictionary: bytes) -> bytes:
    decompressor = zlib.decompressobj(-15, zdict=dictionary)
    payload = decompressor.decompress(blob) + decompressor.flush()
    if not decompressor.eof:
        raise ValueError("a packed log cut short")
    return payload


def _zigzag(n: int) -> int:
    return n * 2 if n >= 0 else -n * 2 - 1


def _unzigzag(n: int) -> int:
    return n // 2 if n % 2 == 0 else -(n + 1) // 2


def _varint(out: bytearray, n: int) -> None:
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)


def _bytes(out: bytearray, value: bytes) -> None:
    _varint(out, len(value))
    out += value


class _Reader:
    def __init__(self, payload: bytes):
        self._payload = payload
        self._at = 0

    def take(self, size: int) -> bytes:
        chunk = self._payload[self._at : self._at + size]
        if len(chunk) != size:
            raise ValueError("a packed log cut short")
        self._at += size
        return chunk

    def varint(self) -> int:
        n, shift = 0, 0
        while True:
            byte = self._payload[self._at]
            self._at += 1
            n |= (byte & 0x7F) << shift
            if byte < 0x80:
                return n
            shift += 7

    def bytes(self) -> bytes:
        return self.take(self.varint())

    def end(self) -> None:
        if self._at != len(self._payload):
            raise ValueError("a packed log with bytes left over")
