"""One-time codes of each kind, and how often an address may be sent a mail of each
kind (unit tests on fakeredis)."""

from datetime import timedelta

import pytest

from service.events import CONFIRMATION, SIGN_IN, Held, SignIns, digest
from tests.events.factories import START


@pytest.fixture
def sign_ins(fake_redis):
    return SignIns(fake_redis, "test")


def at(seconds: float):
    return START + timedelta(seconds=seconds)


def test_a_code_opens_its_player_once(sign_ins):
    sign_ins.keep(SIGN_IN, "code-1", Held("p1"), at(0), 900)
    assert sign_ins.use(SIGN_IN, "code-1", at(10)) == Held("p1")
    assert sign_ins.use(SIGN_IN, "code-1", at(11)) is None


def test_a_code_keeps_what_it_is_for(sign_ins):
    sign_ins.keep(SIGN_IN, "code-1", Held("p1", "link"), at(0), 900)
    assert sign_ins.use(SIGN_IN, "code-1", at(1)) == Held("p1", "link")


def test_a_code_of_one_kind_opens_nothing_of_another(sign_ins):
    sign_ins.keep(CONFIRMATION, "code-1", Held("p1", digest("a@b.org")), at(0), 900)
    assert sign_ins.use(SIGN_IN, "code-1", at(1)) is None
    assert sign_ins.use(CONFIRMATION, "code-1", at(1)) == Held("p1", digest("a@b.org"))


def test_a_code_not_kept_opens_nothing(sign_ins):
    sign_ins.keep(SIGN_IN, "code-1", Held("p1"), at(0), 900)
    assert sign_ins.use(SIGN_IN, "code-2", at(1)) is None
    assert sign_ins.use(SIGN_IN, "code-1", at(1)) == Held("p1")  # a wrong one used nothing up


def test_a_peek_uses_nothing_up(sign_ins):
    sign_ins.keep(SIGN_IN, "code-1", Held("p1"), at(0), 900)
    assert sign_ins.peek(SIGN_IN, "code-1", at(1)) == Held("p1")
    assert sign_ins.use(SIGN_IN, "code-1", at(2)) == Held("p1")
    assert sign_ins.peek(SIGN_IN, "code-1", at(3)) is None
    assert sign_ins.peek(SIGN_IN, "code-2", at(3)) is None


def test_an_expired_code_opens_nothing_and_is_used_up(sign_ins):
    sign_ins.keep(SIGN_IN, "code-1", Held("p1"), at(0), 900)
    assert sign_ins.peek(SIGN_IN, "code-1", at(900)) is None
    assert sign_ins.use(SIGN_IN, "code-1", at(900)) is None
    assert sign_ins.use(SIGN_IN, "code-1", at(0)) is None


def test_a_used_code_kept_again_stays_used(sign_ins):
    """A job sending the same link twice (RQ runs a job at least once) cannot make a
    used code work again."""
    sign_ins.keep(SIGN_IN, "code-1", Held("p1"), at(0), 900)
    sign_ins.use(SIGN_IN, "code-1", at(1))
    sign_ins.keep(SIGN_IN, "code-1", Held("p1"), at(2), 900)
    assert sign_ins.use(SIGN_IN, "code-1", at(3)) is None


def test_a_code_kept_before_codes_said_what_for_still_opens_its_player(sign_ins, fake_redis):
    fake_redis.set(f"test:sign-in:{digest('old-code')}", f"p1 {at(900).timestamp()}")
    assert sign_ins.use(SIGN_IN, "old-code", at(1)) == Held("p1")


def test_only_the_digest_of_a_code_is_stored(sign_ins, fake_redis):
    sign_ins.keep(SIGN_IN, "a-secret-code", Held("p1"), at(0), 900)
    stored = [(key, fake_redis.get(key)) for key in fake_redis.keys("*")]
    assert stored and b"a-secret-code" not in repr(stored).encode()
    assert [key for key, _ in stored] == [f"test:sign-in:{digest('a-secret-code')}".encode()]
    assert 0 < fake_redis.ttl(stored[0][0]) <= 900


def test_an_address_is_sent_one_mail_of_a_kind_per_interval_in_any_case(sign_ins):
    assert sign_ins.ask(SIGN_IN, "ann@example.org", at(0), 60)
    assert not sign_ins.ask(SIGN_IN, "ANN@example.org", at(59), 60)
    assert sign_ins.ask(SIGN_IN, "bo@example.org", at(59), 60)  # each address on its own
    assert sign_ins.ask(CONFIRMATION, "ann@example.org", at(59), 60)  # each kind too
    assert sign_ins.ask(SIGN_IN, "ann@example.org", at(60), 60)
    assert not sign_ins.ask(SIGN_IN, "ann@example.org", at(61), 60)  # from the last granted


def test_an_address_is_stored_as_its_digest_only(sign_ins, fake_redis):
    sign_ins.ask(CONFIRMATION, "Ann@Example.org", at(0), 60)
    [key] = fake_redis.keys("*")
    assert key.decode() == f"test:email:{digest('ann@example.org')}:email-confirmation-asked"
