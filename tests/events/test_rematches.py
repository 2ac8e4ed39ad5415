"""The server's secret, and the rematch links earlier versions kept (unit tests on
fakeredis)."""

from service.events import Rematches


def test_the_links_that_earlier_versions_kept_are_forgotten(fake_redis):
    fake_redis.set("test:game:{g1}:rematch", "g2")
    fake_redis.set("test:game:{g3}:rematch", "g4")
    Rematches(fake_redis, "test").forget(["g1"])
    assert fake_redis.keys("test:*") == [b"test:game:{g3}:rematch"]


def test_the_server_secret_is_made_once_and_kept(fake_redis):
    first = Rematches(fake_redis, "test").secret()
    assert len(first) == 32
    assert Rematches(fake_redis, "test").secret() == first
    assert Rematches(fake_redis, "other").secret() != first
