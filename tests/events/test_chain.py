"""The hash chain of a game's events (`service/events/chain.py`), as the fold keeps it."""

import hashlib
import hmac
import random
from dataclasses import replace

import orjson

from service.domain import apply
from service.domain import new_game as deal
from service.events import SeatJoined, SeatRegistered, fold
from service.events.chain import canonical, genesis, link
from service.events.codec import encode
from service.events.store import head_of
from tests.events.factories import (
    TOKEN_HASH,
    a_creation,
    a_move,
    new_game,
    play,
    records,
    stream_key,
)


def _heads(game_id, recorded):
    game, heads = None, []
    for record in recorded:
        game = fold(game_id, [record], game)
        heads.append(game.head)
    return heads


def _a_game(moves=6):

    creation = a_creation(players=2)
    state, events = deal(creation.settings, creation.deck), [creation]
    for _ in range(moves):
        events.append(a_move(state))
        state = apply(state, events[-1].decision)
    return events


def test_the_first_head_links_the_game_id_to_the_creation():
    record = records(*_a_game(0))[0]
    name, schema, data = encode(record.event)
    event = canonical(1, str(record.id), name, schema, record.at.isoformat(), data)
    expected = hashlib.sha256(genesis("g1") + event).hexdigest()
    assert fold("g1", [record]).head == (1, expected)


def test_the_same_events_in_another_game_have_another_chain():
    recorded = records(*_a_game())
    assert fold("g1", recorded).head != fold("g2", recorded).head


def test_canonical_bytes_sort_keys_at_every_level_without_spaces():
    data = '{"seat": 1, "decision": "play GO3", "nested": {"z": "é", "a": 2}}'
    assert (
        canonical(4, "id", "DecisionMade", 1, "t", data)
        == (
            '{"at":"t","data":{"decision":"play GO3","nested":{"a":2,"z":"é"},"seat":1},'
            '"id":"id","type":"DecisionMade","v":1,"version":4}'
        ).encode()
    )


def test_a_changed_event_changes_its_head_and_every_later_one_but_no_earlier():
    recorded = records(*_a_game())
    changed = list(recorded)
    changed[3] = replace(recorded[3], at=recorded[3].at.replace(second=1))
    before, after = _heads("g1", recorded), _heads("g1", changed)
    assert before[:3] == after[:3]
    assert all(b != a for b, a in zip(before[3:], after[3:], strict=True))


def test_folding_at_once_or_event_by_event_gives_the_same_head():
    recorded = records(*_a_game())
    assert fold("g1", recorded).head == _heads("g1", recorded)[-1]


def test_private_values_are_out_of_the_canonical_bytes_but_in_the_chain():
    creation = a_creation(players=2, kinds=["human", "random"])
    joined = SeatJoined(0, "Ann", TOKEN_HASH, "p1")
    name, schema, data = encode(joined)
    text = canonical(2, "id", name, schema, "t", data)
    assert TOKEN_HASH.encode() not in text and b"p1" not in text
    other = replace(joined, player="p2")
    heads = [fold("g1", records(creation, event)).head for event in (joined, other)]
    assert heads[0] != heads[1]


def test_a_stored_game_has_the_head_of_its_events_read_again(store, new_store):
    game = play(store, new_game(store), rng=random.Random(3))
    fresh = new_store()
    assert fresh.load(game.id).head == game.head
    assert fold(game.id, fresh.read(game.id)).head == game.head
    entries = fresh.entries([game.id])[game.id]
    assert head_of(game.id, entries) == game.head  # from the stored text, nothing read
    changed = [*entries[:-1], entries[-1]._replace(at=entries[-1].at.replace(b"+", b"1+"))]
    assert head_of(game.id, changed) != game.head


def test_an_event_of_an_older_schema_is_hashed_as_stored_not_upcast(
    store, redis_client, prefix, new_store
):
    game = new_game(store, kinds=["human", "random"])
    entry = {
        "id": "1f544f50-9cdf-4245-a46f-abf506c3ff6a",
        "type": "SeatJoined",
        "v": "1",  # version 1 had no player
        "at": "2026-01-01T00:00:00+00:00",
        "data": orjson.dumps({"seat": 0, "name": "Ann", "token_hash": TOKEN_HASH}),
    }
    redis_client.xadd(stream_key(prefix, game.id), entry, id="2-0")
    stored = canonical(2, entry["id"], "SeatJoined", 1, entry["at"], entry["data"])
    assert b'"v":1' in stored
    assert new_store().load(game.id).head.hash == link(game.chain, stored).hex()
    assert (
        head_of(game.id, new_store().entries([game.id])[game.id]) == new_store().load(game.id).head
    )


def _registered(player: str, salt: str | None) -> bytes:
    name, schema, data = encode(SeatRegistered(0, player, salt))
    return canonical(3, "id", name, schema, "t", data)


def test_a_registered_seats_digest_is_the_hmac_of_its_player_keyed_with_its_salt():
    """What fails 9: sha256('{"player":"<id>"}') matched a seat to a public player id."""
    salt = "5a" * 32
    text = _registered("p1", salt)
    keyed = hmac.new(salt.encode(), b"p1", hashlib.sha256).hexdigest()
    assert (
        text
        == (
            f'{{"at":"t","data":{{"private":"{keyed}","seat":0}},"id":"id",'
            '"type":"SeatRegistered","v":2,"version":3}'
        ).encode()
    )
    assert hashlib.sha256(b'{"player":"p1"}').hexdigest().encode() not in text
    assert _registered("p1", "6b" * 32) != text  # another salt, another digest


def test_a_version_1_registered_seat_keeps_the_digest_it_was_chained_with(
    store, redis_client, prefix, new_store
):
    """Seals signed over old events must still verify: a stored event of schema 1 is
    hashed as it always was, the player's sha256."""
    game = new_game(store, kinds=["human", "random"])
    joined = SeatJoined(0, "Ann", TOKEN_HASH, None)
    version = store.append(game.id, [joined], game.version)
    entry = {
        "id": "2f544f50-9cdf-4245-a46f-abf506c3ff6a",
        "type": "SeatRegistered",
        "v": "1",
        "at": "2026-01-01T00:00:00+00:00",
        "data": b'{"seat":0,"player":"p1"}',
    }
    redis_client.xadd(stream_key(prefix, game.id), entry, id=f"{version + 1}-0")
    digest = hashlib.sha256(b'{"player":"p1"}').hexdigest()
    expected = (
        f'{{"at":"{entry["at"]}","data":{{"private":"{digest}","seat":0}},'
        f'"id":"{entry["id"]}","type":"SeatRegistered","v":1,"version":{version + 1}}}'
    ).encode()
    before = store.load(game.id, version).chain
    loaded = new_store().load(game.id)
    assert loaded.head == (version + 1, link(before, expected).hex())
    assert loaded.seats[0].player == "p1"
