"""The Redis store, against a real Redis: append, read, fold, versions, ids, errors."""

import random
import uuid
from datetime import UTC, datetime

import pytest
import redis

from service.domain import Decision, IllegalDecision, Settings, full_deck, shuffled_deck
from service.events import (
    CorruptEvent,
    DecisionMade,
    GameStore,
    InvalidEvent,
    RejectedEvent,
    SeatJoined,
    StaleVersion,
    StoreUnavailable,
    UnknownGame,
    UnknownVersion,
    deck_commitment,
    fold,
)
from tests.events.factories import CLAIM, TOKEN_HASH, a_move, new_game, play, seats, stream_key


def test_a_new_game_is_at_version_1_with_a_random_id(store):
    first, second = new_game(store), new_game(store)
    assert (first.version, second.version) == (1, 1)
    assert first.id != second.id
    assert len(first.id) == 16


def test_a_new_game_has_a_shuffled_deck_and_its_commitment(store):
    settings = Settings(2, CLAIM)
    games = [store.create(settings, seats("random", "random")) for _ in range(2)]
    for game in games:
        creation = game.creation
        assert sorted(creation.deck) == sorted(full_deck(settings.factions))
        assert creation.commitment == deck_commitment(creation.salt, creation.deck)
        assert len(creation.salt) == 32
    assert games[0].creation.deck != games[1].creation.deck
    assert games[0].creation.salt != games[1].creation.salt


def test_a_new_game_keeps_the_deck_order_it_is_given(store):
    settings = Settings(2, CLAIM)
    deck = shuffled_deck(settings.factions, random.Random(3))
    game = store.create(settings, seats("random", "random"), deck=deck)
    assert game.creation.deck == deck
    assert store.load(game.id).state.hands[0] == tuple(sorted(deck[:13]))


def test_all_keys_of_a_game_share_its_hash_tag(store, redis_client, prefix):
    game = play(store, new_game(store), moves=1)
    assert sorted(redis_client.scan_iter(match=f"{prefix}:game:*")) == [
        f"{prefix}:game:{{{game.id}}}:events".encode(),
        f"{prefix}:game:{{{game.id}}}:ids".encode(),
    ]


def test_appends_answer_consecutive_versions_and_entry_ids(store, redis_client, prefix):
    game = new_game(store)
    versions = []
    for _ in range(3):
        versions.append(store.append(game.id, [a_move(game.state)], game.version))
        game = store.load(game.id)
    assert versions == [2, 3, 4]
    entries = redis_client.xrange(stream_key(prefix, game.id))
    assert [entry_id for entry_id, _ in entries] == [b"1-0", b"2-0", b"3-0", b"4-0"]


def test_several_events_append_together(store):
    game = new_game(store, kinds=["human", "human"])
    joins = [SeatJoined(0, "Ann", TOKEN_HASH), SeatJoined(1, "Bo", TOKEN_HASH)]
    assert store.append(game.id, joins, 1) == 3
    assert [record.event for record in store.read(game.id, after=1)] == joins


def test_read_answers_the_events_after_a_version_up_to_another(store):
    game = play(store, new_game(store), moves=5)
    assert [r.version for r in store.read(game.id)] == [1, 2, 3, 4, 5, 6]
    assert [r.version for r in store.read(game.id, after=2, until=4)] == [3, 4]
    assert store.read(game.id, after=6) == []


def test_events_carry_their_id_and_the_stores_clock(redis_client, prefix):
    moment = datetime(2026, 5, 4, 3, 2, 1, tzinfo=UTC)
    store = GameStore(redis_client, prefix, clock=lambda: moment)
    game = new_game(store)
    event_id = uuid.uuid4()
    store.append(game.id, [a_move(game.state)], 1, ids=[event_id])
    record = store.read(game.id, after=1)[0]
    assert (record.id, record.at) == (event_id, moment)


def test_load_folds_the_game_at_any_version(store, new_store):
    game = play(store, new_game(store, players=3), moves=30)
    records = store.read(game.id)
    fresh = new_store()  # no cached fold
    for version in (1, 2, 17, 31):
        assert fresh.load(game.id, version) == fold(game.id, records[:version])
    assert fresh.load(game.id) == game


def test_load_many_folds_each_game_to_its_last_event_from_its_cache_or_the_stream(store, new_store):
    games = [play(store, new_game(store, players=n), moves=5) for n in (2, 3, 4)]
    fresh = new_store()
    fresh.load(games[0].id, 3)  # cached, behind
    assert fresh.load_many([game.id for game in games]) == games
    moved = play(store, games[1], moves=1)
    assert fresh.load_many([games[1].id]) == [moved]
    with pytest.raises(UnknownGame):
        fresh.load_many([games[0].id, "nosuchgame"])


def test_a_version_the_game_has_not_reached_is_unknown(store):
    game = new_game(store)
    for version in (0, 2):
        with pytest.raises(UnknownVersion, match=f"versions 1 to 1, not {version}"):
            store.load(game.id, version)


def test_a_stale_version_is_a_conflict_carrying_the_current_one(store):
    game = play(store, new_game(store), moves=2)
    with pytest.raises(StaleVersion) as caught:
        store.append(game.id, [a_move(game.state)], expected_version=2)
    assert (caught.value.current, caught.value.expected) == (3, 2)
    with pytest.raises(StaleVersion):
        store.append(game.id, [a_move(game.state)], expected_version=9)
    assert store.version(game.id) == 3


def test_a_resent_event_id_writes_nothing_and_answers_the_first_version(store):
    game = new_game(store)
    event_id = uuid.uuid4()
    move = a_move(game.state)
    assert store.append_once(game.id, [move], 1, ids=[event_id]) == (2, True)
    assert store.append_once(game.id, [move], 1, ids=[event_id]) == (2, False)
    play(store, store.load(game.id), moves=3)
    assert store.append_once(game.id, [move], 1, ids=[event_id]) == (2, False)
    assert store.append(game.id, [move], 1, ids=[event_id]) == 2
    assert store.version(game.id) == 5


def test_an_unknown_game_is_an_error_everywhere(store, redis_client, prefix):
    move = DecisionMade(0, Decision.parse("play GO3"))
    for call in (
        lambda: store.load("0123456789abcdef"),
        lambda: store.read("0123456789abcdef"),
        lambda: store.version("0123456789abcdef"),
        lambda: store.append("0123456789abcdef", [move], 1),
        lambda: store.load("}{*:"),
    ):
        with pytest.raises(UnknownGame):
            call()
    assert list(redis_client.scan_iter(match=f"{prefix}:*")) == []


def test_an_event_that_does_not_fit_its_schema_is_not_written(store):
    game = new_game(store)
    with pytest.raises(InvalidEvent, match=f"game {game.id}, event 2: invalid event"):
        store.append(game.id, [SeatJoined(seat=0, name="", token_hash="x")], 1)
    assert store.version(game.id) == 1


def test_an_event_the_rules_reject_is_not_written(store):
    game = new_game(store)
    card = next(c for c in game.creation.deck if c not in game.state.hands[0])
    with pytest.raises(RejectedEvent, match=f"game {game.id}, event 2: ") as caught:
        store.append(game.id, [DecisionMade(0, Decision.play(card))], 1)
    assert isinstance(caught.value.error, IllegalDecision)
    assert store.version(game.id) == 1


def test_a_rejected_event_at_a_stale_version_is_reported_as_the_conflict(store):
    game = play(store, new_game(store), moves=1)
    stale_move = DecisionMade(0, Decision.parse("take deck"))  # illegal at version 1
    with pytest.raises(StaleVersion):
        store.append(game.id, [stale_move], 1)


GOOD_ENTRY = {
    "id": "1f544f50-9cdf-4245-a46f-abf506c3ff6d",
    "type": "GameResigned",
    "v": "1",
    "at": "2026-11-25T04:17:06.328942+00:00",
    "data": '{"seat":0}',
}


def test_an_entry_written_by_hand_as_the_store_writes_it_is_read(
    store, redis_client, prefix, new_store
):
    game = play(store, new_game(store), moves=1)
    redis_client.xadd(stream_key(prefix, game.id), GOOD_ENTRY, id="3-0")
    record = new_store().read(game.id)[-1]
    assert str(record.id) == GOOD_ENTRY["id"] and record.id == uuid.UUID(GOOD_ENTRY["id"])
    assert new_store().load(game.id).ending.reason == "resigned"


@pytest.mark.parametrize(
    "corrupt",
    [
        {"data": "{}"},
        {"at": "x"},
        {"id": "1f544f50-9cdf-4245-a46f-abf506c3ff6"},
        {"id": "1f544f50-9cdf-4245-a46f-abf506c3ff6x"},
        {"id": "not an id"},
        {"v": "one"},
        {"type": "Nothing"},
    ],
)
def test_a_stored_event_that_fails_its_schema_is_reported_not_skipped(
    store, redis_client, prefix, new_store, corrupt
):
    game = play(store, new_game(store), moves=1)
    redis_client.xadd(stream_key(prefix, game.id), GOOD_ENTRY | corrupt, id="3-0")
    fresh = new_store()
    for call in (lambda: fresh.load(game.id), lambda: fresh.read(game.id, after=1)):
        with pytest.raises(CorruptEvent, match=f"game {game.id}, event 3"):
            call()


def test_a_fresh_store_folds_the_same_game_as_the_writer(store, new_store):
    game = play(store, new_game(store, players=4), rng=random.Random(4))
    assert game.ending is not None
    assert new_store().load(game.id) == game


def test_every_append_publishes_the_game_and_its_new_version(store, redis_client, prefix):
    game = new_game(store)
    pubsub = redis_client.pubsub()
    pubsub.subscribe(f"{prefix}:changes")
    try:
        assert pubsub.get_message(timeout=10)["type"] == "subscribe"
        play(store, game, moves=2)
        heard = []
        # The creation's notice was published before the subscription, but a cluster
        # relays a publish between its nodes and may deliver it after the subscription.
        created = f"{game.id} 1".encode()
        while len(heard) < 2 and (message := pubsub.get_message(timeout=10)) is not None:
            if message["data"] != created:
                heard.append(message["data"])
    finally:
        pubsub.close()
    assert heard == [f"{game.id} 2".encode(), f"{game.id} 3".encode()]


def test_redis_unreachable_is_a_clear_error(prefix):
    client = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.5)
    store = GameStore(client, prefix)
    with pytest.raises(StoreUnavailable, match="Redis failed"):
        store.create(Settings(2, CLAIM), seats("random", "random"))
    with pytest.raises(StoreUnavailable):
        store.read("0123456789abcdef")
