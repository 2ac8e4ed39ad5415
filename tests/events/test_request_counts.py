"""Requests counted per address in fixed windows (unit tests on fakeredis)."""

import time

from service.events import RequestCounts


def test_requests_are_counted_per_address_within_a_window(fake_redis):
    counts = RequestCounts(fake_redis, "test")
    assert counts.count("10.0.0.1", 60_000)[0] == 1
    counted, left_ms = counts.count("10.0.0.1", 60_000)
    assert counted == 2 and 0 < left_ms <= 60_000
    assert counts.count("10.0.0.2", 60_000)[0] == 1


def test_a_new_window_counts_from_one(fake_redis):
    counts = RequestCounts(fake_redis, "test")
    counts.count("10.0.0.1", 50)
    time.sleep(0.1)  # the window is over
    assert counts.count("10.0.0.1", 50)[0] == 1
