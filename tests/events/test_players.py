"""The players' store: keys per device and the index of email addresses, each index
checked against the player's hash, which is the truth (unit tests on fakeredis)."""

import pytest

from service.events import (
    FIRST_DEVICE,
    PlayerStore,
    UnknownDevice,
    UnknownPlayer,
    address_digest,
    digest,
)


@pytest.fixture
def players(fake_redis):
    return PlayerStore(fake_redis, "test")


def test_each_devices_key_finds_its_player_and_its_device(players):
    ann, key = players.register("Ann")
    phone, phone_key = players.add_device(ann.id, "phone", 20)
    assert (players.holder(key).player, players.holder(key).device_id) == (ann, FIRST_DEVICE)
    assert (players.holder(phone_key).player, players.holder(phone_key).device_id) == (
        ann,
        phone.id,
    )
    assert players.holder("not-a-key") is None


def test_a_key_the_index_names_but_the_players_hash_does_not_hold_opens_nothing(
    players, fake_redis
):
    """What a crash between two writes may leave: an index entry written, the player's
    hash not (yet, or any more)."""
    ann, _ = players.register("Ann")
    fake_redis.hset("test:player-keys", digest("left-over"), ann.id)
    assert players.holder("left-over") is None


def test_a_rotated_device_key_replaces_that_devices_key_only(players):
    ann, key = players.register("Ann")
    phone, phone_key = players.add_device(ann.id, "phone", 20)
    new = players.rotate_key(ann.id, phone.id, phone_key)
    assert players.holder(phone_key) is None
    assert players.holder(new).device_id == phone.id
    assert players.holder(key).device_id == FIRST_DEVICE


def test_a_key_rotated_or_removed_meanwhile_is_not_rotated(players, fake_redis):
    ann, key = players.register("Ann")
    players.rotate_key(ann.id, FIRST_DEVICE, key)
    with pytest.raises(UnknownDevice):
        players.rotate_key(ann.id, FIRST_DEVICE, key)  # with the old key, raced
    phone, phone_key = players.add_device(ann.id, "phone", 20)
    players.remove_device(ann.id, phone.id)
    with pytest.raises(UnknownDevice):
        players.rotate_key(ann.id, phone.id, phone_key)
    assert [device.id for device in players.devices(ann.id)] == [FIRST_DEVICE]
    assert len(fake_redis.hkeys("test:player-keys")) == 1  # the refused keys left no entry


def test_an_address_finds_its_players_in_any_case(players):
    ann, _ = players.register("Ann", email="Ann@Example.org")
    bo, _ = players.register("Bo", email="ann@example.ORG")
    players.register("Cy", email="cy@example.org")
    assert {p.id for p in players.by_email("ANN@example.org")} == {ann.id, bo.id}
    assert players.by_email("nobody@example.org") == []


def test_a_changed_address_moves_in_the_index(players):
    ann, _ = players.register("Ann", email="ann@example.org")
    players.update(ann.id, email="ANN@example.org")  # the case only: still found
    assert [p.id for p in players.by_email("ann@example.org")] == [ann.id]
    players.update(ann.id, email="ann@example.net")
    assert players.by_email("ann@example.org") == []
    assert [p.id for p in players.by_email("ann@example.net")] == [ann.id]
    players.update(ann.id, email=None)
    assert players.by_email("ann@example.net") == []


def test_an_index_entry_the_players_hash_does_not_say_finds_nobody(players, fake_redis):
    ann, _ = players.register("Ann", email="ann@example.org")
    fake_redis.sadd(f"test:player-email:{digest('bo@example.org')}", ann.id, "nobody")
    assert players.by_email("bo@example.org") == []


def test_the_addresses_of_players_registered_before_the_index_are_indexed_again(
    players, fake_redis
):
    ann, _ = players.register("Ann", email="ann@example.org")
    players.register("Bo")
    players.add_device(ann.id, "phone", 20)
    fake_redis.delete(*fake_redis.keys("test:player-email:*"))
    assert players.by_email("ann@example.org") == []
    assert players.index_emails() == 1
    assert [p.id for p in players.by_email("ann@example.org")] == [ann.id]


def test_a_player_holds_at_most_cap_keys_and_a_refused_one_leaves_no_entry(players, fake_redis):
    ann, _ = players.register("Ann")
    assert players.add_device(ann.id, "phone", 2) is not None
    assert players.add_device(ann.id, "tablet", 2) is None  # the first key counts
    assert [device.name for device in players.devices(ann.id)] == ["first key", "phone"]
    assert (players.key_count(ann.id), len(fake_redis.hkeys("test:player-keys"))) == (2, 2)
    players.remove_device(ann.id, FIRST_DEVICE)
    assert players.add_device(ann.id, "tablet", 2) is not None  # room again


def test_a_device_of_nobody_is_refused_and_writes_nothing(players, fake_redis):
    with pytest.raises(UnknownPlayer):
        players.add_device("nobody", "phone", 20)
    assert fake_redis.keys("test:*") == []


def test_an_address_is_confirmed_while_it_is_the_players(players):
    ann, _ = players.register("Ann", email="ann@example.org")
    assert not ann.email_confirmed
    assert players.confirm_email(ann.id, address_digest("ann@example.org")).email_confirmed
    assert players.update(ann.id, email="ANN@example.org").email_confirmed  # the case only
    assert not players.update(ann.id, email="ann@example.net").email_confirmed
    assert not players.update(ann.id, email="ann@example.org").email_confirmed  # asked anew
    assert not players.confirm_email(ann.id, address_digest("ann@example.net")).email_confirmed


def test_a_player_without_an_address_has_none_confirmed(players):
    bo, _ = players.register("Bo")
    assert not players.confirm_email(bo.id, address_digest("")).email_confirmed
