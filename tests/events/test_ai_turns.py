"""The games waiting on an AI, for the sweep (unit tests on fakeredis)."""

import time
from datetime import timedelta

from service.events import AiTurns
from tests.events.factories import START


def test_a_game_waits_from_a_moment_until_done(fake_redis):
    turns = AiTurns(fake_redis, "test")
    turns.waiting("g1", START)
    turns.waiting("g2", START + timedelta(seconds=60))
    assert turns.since("g1") == START
    assert turns.waiting_since(START + timedelta(seconds=30)) == ["g1"]
    turns.done("g1")
    assert turns.since("g1") is None
    assert turns.waiting_since(START + timedelta(hours=1)) == ["g2"]


def test_one_caller_sweeps_in_each_period(fake_redis):
    first, second = AiTurns(fake_redis, "test"), AiTurns(fake_redis, "test")
    assert first.take_sweep(0.05)
    assert not second.take_sweep(0.05)
    time.sleep(0.1)  # the period is over
    assert second.take_sweep(0.05)
