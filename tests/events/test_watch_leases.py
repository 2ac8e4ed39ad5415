"""Leases of live streams and long-polls per client address (unit tests on fakeredis)."""

import pytest

from service.events import WatchLeases

NOW = 1_800_000_000.0


@pytest.fixture
def leases(fake_redis):
    return WatchLeases(fake_redis, "test")


def test_an_address_takes_leases_up_to_the_cap(leases):
    taken = [leases.take("10.0.0.1", 3, NOW, 60) for _ in range(4)]
    assert all(taken[:3]) and taken[3] is None
    assert leases.held("10.0.0.1", NOW) == 3


def test_each_address_has_a_cap_of_its_own(leases):
    assert leases.take("10.0.0.1", 1, NOW, 60)
    assert leases.take("10.0.0.2", 1, NOW, 60)


def test_a_lease_given_back_frees_its_place(leases):
    first = leases.take("10.0.0.1", 1, NOW, 60)
    leases.give_back("10.0.0.1", first)
    assert leases.take("10.0.0.1", 1, NOW, 60)


def test_a_lease_never_given_back_ends_a_minute_after_its_stream_would_have(leases):
    assert leases.take("10.0.0.1", 1, NOW, 300)
    assert leases.take("10.0.0.1", 1, NOW + 359, 60) is None
    assert leases.take("10.0.0.1", 1, NOW + 361, 60)
