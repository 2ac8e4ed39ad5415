"""Leases of live streams and long-polls per client address: unit tests on fakeredis,
and a process killed while it holds one, on a real Redis."""

import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pytest

from service.events import WatchLeases, utc_now, watch_leases
from service.events.watch_leases import TTL

PATIENCE = 30  # seconds before a test gives up waiting


class Clock:
    def __init__(self):
        self.now = datetime(2027, 1, 15, tzinfo=UTC)

    def __call__(self):
        return self.now

    def advance(self, seconds: float):
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def leases(fake_redis, clock):
    leases = WatchLeases(fake_redis, "test", clock)
    yield leases
    leases.close()


def test_an_address_takes_leases_up_to_the_cap(leases):
    taken = [leases.take("10.0.0.1", 3) for _ in range(4)]
    assert all(taken[:3]) and taken[3] is None
    assert leases.held("10.0.0.1") == 3


def test_each_address_has_a_cap_of_its_own(leases):
    assert leases.take("10.0.0.1", 1)
    assert leases.take("10.0.0.2", 1)


def test_a_lease_given_back_frees_its_place(leases):
    leases.give_back(leases.take("10.0.0.1", 1))
    assert leases.take("10.0.0.1", 1)


def test_a_lease_that_is_not_renewed_ends_by_itself(leases, clock):
    """As when the process holding it died: nobody renews it."""
    assert leases.take("10.0.0.1", 1)
    clock.advance(TTL - 1)
    assert leases.take("10.0.0.1", 1) is None
    clock.advance(2)
    assert leases.held("10.0.0.1") == 0
    assert leases.take("10.0.0.1", 1)


def test_a_lease_renewed_while_held_lasts(leases, clock):
    assert leases.take("10.0.0.1", 1)
    for _ in range(10):
        clock.advance(TTL - 1)
        leases.renew()
    assert leases.held("10.0.0.1") == 1
    assert leases.take("10.0.0.1", 1) is None


def test_renewing_does_not_bring_back_a_lease_given_back(leases, fake_redis):
    first, second = leases.take("10.0.0.1", 2), leases.take("10.0.0.2", 2)
    leases.give_back(first)
    leases.renew()
    assert (leases.held("10.0.0.1"), leases.held("10.0.0.2")) == (0, 1)
    leases.give_back(second)
    leases.renew()
    assert fake_redis.keys("test:watching:*") == []


def test_a_lease_held_is_renewed_in_the_background(leases, clock, fake_redis, monkeypatch):
    monkeypatch.setattr(watch_leases, "RENEW", 0.01)
    lease = leases.take("10.0.0.1", 1)
    clock.advance(TTL - 1)
    give_up = time.monotonic() + PATIENCE
    while leases.held("10.0.0.1") == 1 and clock().timestamp() + TTL > _end(fake_redis, lease):
        assert time.monotonic() < give_up, "the lease was not renewed"
        time.sleep(0.01)
    assert leases.held("10.0.0.1") == 1


def _end(fake_redis, lease) -> float:
    return fake_redis.zscore(f"test:watching:{lease.address}", lease.id)


# A process that takes a lease (leases of 1 s, renewed every 0.1 s), says so, and sleeps.
HOLDER = """
import sys, time
from service.config import Config
from service.events import WatchLeases, connect, utc_now, watch_leases
watch_leases.TTL, watch_leases.RENEW = 4.0, 0.1  # a stall of up to ~4 s is survived
leases = WatchLeases(connect(Config(), sys.argv[1]), sys.argv[2], utc_now)
assert leases.take("10.0.0.9", 1)
print("taken", flush=True)
time.sleep(600)
"""


def test_the_lease_of_a_process_that_was_killed_ends_by_itself(redis_url, redis_client, prefix):
    """Renewed while its process lives, it ends soon after a `kill -9`."""
    leases = WatchLeases(redis_client, prefix, utc_now)
    command = [sys.executable, "-c", HOLDER, redis_url, prefix]
    holder = subprocess.Popen(command, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"taken\n"
        time.sleep(6)  # past its lease's first life: renewed meanwhile
        assert leases.held("10.0.0.9") == 1
    finally:
        holder.kill()
        holder.wait()
    give_up = time.monotonic() + PATIENCE
    while leases.held("10.0.0.9"):
        assert time.monotonic() < give_up, "the killed process's lease did not end"
        time.sleep(0.05)
