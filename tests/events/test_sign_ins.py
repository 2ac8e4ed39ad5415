"""Sign-in codes and how often a player may ask for one (unit tests on fakeredis)."""

from datetime import timedelta

import pytest

from service.events import SignIns, digest
from tests.events.factories import START


@pytest.fixture
def sign_ins(fake_redis):
    return SignIns(fake_redis, "test")


def at(seconds: float):
    return START + timedelta(seconds=seconds)


def test_a_code_opens_its_player_once(sign_ins):
    sign_ins.keep("code-1", "p1", at(0), 900)
    assert sign_ins.use("code-1", at(10)) == "p1"
    assert sign_ins.use("code-1", at(11)) is None


def test_a_code_not_kept_opens_nothing(sign_ins):
    sign_ins.keep("code-1", "p1", at(0), 900)
    assert sign_ins.use("code-2", at(1)) is None
    assert sign_ins.use("code-1", at(1)) == "p1"  # a wrong one used nothing up


def test_an_expired_code_opens_nothing_and_is_used_up(sign_ins):
    sign_ins.keep("code-1", "p1", at(0), 900)
    assert sign_ins.use("code-1", at(900)) is None
    assert sign_ins.use("code-1", at(0)) is None


def test_a_used_code_kept_again_stays_used(sign_ins):
    """A job sending the same link twice (RQ runs a job at least once) cannot make a
    used code work again."""
    sign_ins.keep("code-1", "p1", at(0), 900)
    sign_ins.use("code-1", at(1))
    sign_ins.keep("code-1", "p1", at(2), 900)
    assert sign_ins.use("code-1", at(3)) is None


def test_only_the_digest_of_a_code_is_stored(sign_ins, fake_redis):
    sign_ins.keep("a-secret-code", "p1", at(0), 900)
    stored = [(key, fake_redis.get(key)) for key in fake_redis.keys("*")]
    assert stored and b"a-secret-code" not in repr(stored).encode()
    assert [key for key, _ in stored] == [f"test:sign-in:{digest('a-secret-code')}".encode()]
    assert 0 < fake_redis.ttl(stored[0][0]) <= 900


def test_a_player_may_ask_again_once_the_interval_is_over(sign_ins):
    assert sign_ins.ask("p1", at(0), 60)
    assert not sign_ins.ask("p1", at(59), 60)
    assert sign_ins.ask("p2", at(59), 60)  # each player on their own
    assert sign_ins.ask("p1", at(60), 60)
    assert not sign_ins.ask("p1", at(61), 60)  # counted from the last request granted
