"""Rematch links and the server's secret (unit tests on fakeredis)."""

from service.events import Rematches


def test_a_game_links_to_its_rematch(fake_redis):
    rematches = Rematches(fake_redis, "test")
    assert rematches.of("g1") is None
    rematches.link("g1", "g2")
    assert rematches.of("g1") == "g2"


def test_the_server_secret_is_made_once_and_kept(fake_redis):
    first = Rematches(fake_redis, "test").secret()
    assert len(first) == 32
    assert Rematches(fake_redis, "test").secret() == first
    assert Rematches(fake_redis, "other").secret() != first
