"""The timers projection: a due time per game, set only from a version as new as the
last, claimed a chunk at a time under a lease (unit tests on fakeredis)."""

import threading
from datetime import timedelta

import pytest

from service.events import Timers
from tests.events.factories import START


@pytest.fixture
def timers(fake_redis):
    return Timers(fake_redis, "test", "deadlines")


def at(seconds: float):
    return START + timedelta(seconds=seconds)


def test_a_timer_is_set_moved_and_cleared(timers):
    assert timers.set("g1", 3, at(60))
    assert timers.due() == {"g1": at(60).timestamp()}
    timers.set("g1", 4, at(90))
    assert timers.due() == {"g1": at(90).timestamp()}
    timers.set("g1", 5, None)
    assert timers.due() == {}
    assert timers.version("g1") == 5


def test_a_timer_set_from_an_older_version_leaves_the_newer_one(timers):
    """Two changes scheduling out of order: the older one's timer is not kept."""
    timers.set("g1", 5, None)
    assert not timers.set("g1", 4, at(60))
    assert timers.due() == {}
    assert timers.version("g1") == 5


def test_due_timers_are_claimed_with_their_versions_and_leased(timers):
    timers.set("due", 3, at(60))
    timers.set("later", 7, at(600))
    assert timers.claim(at(60), count=10, lease=30) == [("due", 3)]
    assert timers.due() == {"due": at(90).timestamp(), "later": at(600).timestamp()}
    assert timers.claim(at(89), count=10, lease=30) == []  # leased meanwhile
    assert timers.claim(at(90), count=10, lease=30) == [("due", 3)]  # the lease ran out


def test_a_claim_takes_at_most_its_count_the_earliest_first(timers):
    for n in range(5):
        timers.set(f"g{n}", 1, at(10 - n))
    assert [game_id for game_id, _ in timers.claim(at(60), count=2, lease=30)] == ["g4", "g3"]
    assert len(timers.claim(at(60), count=10, lease=30)) == 3


def test_kinds_keep_timers_apart(fake_redis, timers):
    reminders = Timers(fake_redis, "test", "reminders")
    timers.set("g1", 1, at(60))
    assert reminders.due() == {}
    assert reminders.claim(at(60), count=10, lease=30) == []


def test_claims_take_the_earliest_of_every_shard_first(timers, fake_redis):
    for n in range(30):
        timers.set(f"g{n:02}", 1, at(100 - n))
    assert len(set(fake_redis.scan_iter(match="test:{deadlines:*}:due"))) > 1  # spread
    claimed = [timers.claim(at(200), count=4, lease=30) for _ in range(8)]
    order = [game_id for chunk in claimed for game_id, _ in chunk]
    assert order == [f"g{n:02}" for n in reversed(range(30))]  # due earliest, claimed first
    assert [len(chunk) for chunk in claimed] == [4] * 7 + [2]


def test_racing_claimers_on_a_real_redis_take_each_timer_once(redis_client, prefix):
    """Four threads claim chunks at once, on the test's Redis (a cluster's too: the
    shards on several masters): every due timer is claimed, none twice in its lease."""
    timers = Timers(redis_client, prefix, "deadlines")
    for n in range(200):
        timers.set(f"g{n:03}", 1, at(n))
    claimed: list[str] = []
    lock = threading.Lock()

    def claimer():
        while chunk := timers.claim(at(300), count=7, lease=600):
            with lock:
                claimed.extend(game_id for game_id, _ in chunk)

    threads = [threading.Thread(target=claimer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(claimed) == [f"g{n:03}" for n in range(200)]
