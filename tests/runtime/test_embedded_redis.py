"""The embedded Redis's data directory: its owner's only, however it was left."""

from __future__ import annotations

import stat

import redis

from service.runtime.embedded_redis import EmbeddedRedis


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_data_directory_and_every_file_in_it_are_the_owners_only(tmp_path):
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    data.chmod(0o755)  # as an older version left it, whatever this umask
    (data / "appendonly.aof").write_bytes(b"")
    (data / "appendonly.aof").chmod(0o644)
    (data / "run.sh").write_text("#!/bin/sh\n")  # a data directory among other things
    (data / "run.sh").chmod(0o755)
    server = EmbeddedRedis(data, fsync="always")
    server.start()
    try:
        client = redis.Redis.from_url(server.url)
        client.set("a deck", "GO3 KN5")  # written to the append-only file at once
        client.close()
        assert _mode(data / "run.sh") == 0o700  # still its owner's to run
        files = [p for p in data.iterdir() if not p.is_socket() and p.name != "run.sh"]
        assert {path.name for path in files} >= {"appendonly.aof", "redis.log"}
        assert _mode(data) == 0o700
        assert {path.name: _mode(path) for path in files} == {path.name: 0o600 for path in files}
    finally:
        server.stop()
