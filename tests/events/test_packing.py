"""A game's log packed for the archive: every stored byte given back."""

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain import Decision
from service.events import DecisionMade
from service.events.codec import encode
from service.events.packing import COLUMNS, PLAIN, Entry, pack, unpack
from tests.events.factories import a_creation, new_game, play


def entries_of(events, start=datetime(2026, 1, 1, tzinfo=UTC)) -> list[Entry]:
    """`events` as the store would write them, a few seconds apart."""
    entries = []
    for n, event in enumerate(events):
        name, schema, data = encode(event)
        data = data.encode() if isinstance(data, str) else data
        at = start + timedelta(seconds=7 * n, microseconds=n * 1013)
        entries.append(
            Entry(
                str(uuid.uuid4()).encode(),
                name.encode(),
                str(schema).encode(),
                at.isoformat().encode(),
                data,
            )
        )
    return entries


def stored_entries(store, game_id):
    return store.entries([game_id])[game_id]


def test_a_played_game_packs_in_columns_and_unpacks_to_every_byte(store):
    game = play(store, new_game(store))
    entries = stored_entries(store, game.id)
    packed = pack(entries)
    assert packed[0] == COLUMNS
    assert unpack(packed) == entries


def test_a_two_player_game_packs_to_a_fifth_of_its_json_lines(store):
    game = play(store, new_game(store))
    entries = stored_entries(store, game.id)
    lines = b"\n".join(json.dumps([f.decode() for f in entry]).encode() for entry in entries)
    assert len(pack(entries)) < len(lines) / 5


@pytest.mark.parametrize(
    "change",
    [
        {"id": b"NOT-A-UUID"},
        {"id": str(uuid.uuid4()).upper().encode()},  # not as str(uuid) writes it
        {"at": b"2026-01-01T00:00:00Z"},  # not as isoformat writes it
        {"at": b"2026-01-01T01:00:00+01:00"},  # not in UTC
        {"v": b"01"},
        {"data": b'{"x":"\x00"}'},  # a marker's byte
    ],
)
def test_a_value_in_another_form_than_the_stores_is_packed_plainly_and_kept(change):
    entries = entries_of([a_creation(), DecisionMade(0, Decision.parse("play GO3"))])
    entries[1] = entries[1]._replace(**change)
    packed = pack(entries)
    assert packed[0] == PLAIN
    assert unpack(packed) == entries


def test_card_codes_and_digests_inside_names_come_back_as_they_were():
    entries = entries_of([a_creation()])
    data = (
        b'{"seat":0,"name":"GO3 DW9 KN10 \\"'
        + b"ab" * 32
        + b'\\" GO","token_hash":"'
        + b"cd" * 32
        + b'"}'
    )
    entries.append(entries[0]._replace(type=b"SeatJoined", data=data))
    assert unpack(pack(entries)) == entries


@pytest.mark.parametrize(
    "text",
    [
        # a digest whose bytes spell a card code
        b'"token_hash":"' + (b"\xffGO5\xff" + bytes(27)).hex().encode() + b'"',
        b'"DO4' + b"ab" * 32 + b'"',  # DO4's byte is a quote, before what reads as a digest
        b"DO4DO4" + b"\x22" + b"0" * 64 + b'"',
    ],
)
def test_what_a_marker_puts_in_is_not_marked_again(text):
    entries = [entry._replace(data=text) for entry in entries_of([a_creation()])]
    packed = pack(entries)
    assert packed[0] == COLUMNS and unpack(packed) == entries


# The pieces of which card codes and digests are made, and what stands beside them.
PIECES = st.one_of(
    st.sampled_from([b'"', b"GO", b"DO", b"SE", b"DR", b"4", b"0", b"a", b"\\", b" ", b"\xff"]),
    st.binary(min_size=32, max_size=32).map(lambda raw: b'"' + raw.hex().encode() + b'"'),
)


@given(st.lists(st.lists(PIECES, max_size=40).map(b"".join), min_size=1, max_size=8))
def test_any_text_of_card_codes_and_digests_comes_back_as_it_was(texts):
    entries = entries_of([a_creation()] * len(texts))
    entries = [entry._replace(data=text) for entry, text in zip(entries, texts, strict=True)]
    packed = pack(entries)
    assert packed[0] == COLUMNS and unpack(packed) == entries


@given(
    st.lists(
        st.tuples(
            st.uuids(),
            st.sampled_from([b"DecisionMade", b"SeatJoined", b"GameCreated"]),
            st.integers(1, 300),
            st.datetimes(
                min_value=datetime(1971, 1, 1),
                max_value=datetime(2200, 1, 1),
                timezones=st.just(UTC),
            ),
            st.binary(max_size=200),
        ),
        max_size=30,
    )
)
def test_any_entries_come_back_as_they_were(values):
    entries = [
        Entry(str(i).encode(), name, str(v).encode(), at.isoformat().encode(), data)
        for i, name, v, at, data in values
    ]
    assert unpack(pack(entries)) == entries


@pytest.mark.parametrize("blob", [b"", b"\x07rest", b"\x01not deflate", pack([])[:-1]])
def test_what_is_no_packed_log_is_refused(blob):
    with pytest.raises(ValueError):
        unpack(blob)


def test_a_packed_log_cut_short_is_refused(store):
    game = play(store, new_game(store))
    packed = pack(stored_entries(store, game.id))
    with pytest.raises(ValueError):
        unpack(packed[: len(packed) // 2])


@given(st.datetimes(timezones=st.just(UTC)))
def test_every_time_the_store_writes_comes_back_as_it_was(moment):
    entries = entries_of([a_creation()], start=moment)
    packed = pack(entries)
    assert packed[0] == COLUMNS
    assert unpack(packed) == entries


@pytest.mark.parametrize(
    "at",
    [
        b"2026-01-01T00:00:00.000000+00:00",
        b"2026-02-30T00:00:00+00:00",
        b"2026-1-01T00:00:00+00:00",
    ],
)
def test_a_time_not_as_isoformat_writes_it_is_kept_plainly(at):
    entries = entries_of([a_creation()])
    entries[0] = entries[0]._replace(at=at)
    packed = pack(entries)
    assert (packed[0], unpack(packed)) == (PLAIN, entries)
