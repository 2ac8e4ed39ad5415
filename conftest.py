"""Redis for the tests and doctests: `REDIS_URL` if set, else an embedded Redis that
this test session starts and stops (`service.runtime.embedded_redis`). Each test gets its own key
prefix and its keys are deleted after it.

The suites of the store, the application and the workers (`ON_CLUSTER`), and of the
API's live connections (`API_ON_CLUSTER`: the rest of the API's subject, HTTP, does not
depend on the kind of Redis; `--full` runs them all), run twice: on that Redis and on a
local Redis Cluster of 3 masters and 3 replicas that the session starts
(`service.runtime.local_cluster`), their ids ending in `[single]` and `[cluster]`. On
the cluster, RQ's queues are on the single Redis (`queue_url`). A test that needs a
single Redis is marked `single_redis`.
"""

from __future__ import annotations

import fcntl
import functools
import importlib.abc
import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest
import redis

from service.config import Config
from service.events import GameStore
from service.runtime.embedded_redis import EmbeddedRedis
from service.runtime.local_cluster import LocalCluster
from service.runtime.processes import ending_with_this_process
from tests import sizes
from tests.rq_keys import delete_rq_keys

pytest_plugins = ["tests.ending"]  # nothing a test starts outlives the test run

ROOT = Path(__file__).parent
TESTS = ROOT / "tests"
WARMING = "CLAIM_TEST_WARMING"  # the lock held while numba compiles, for the test processes
# What runs first (`pytest_collection_modifyitems`): the longest modules, then those that
# start servers and browsers.
FIRST = (
    "tests/workers/test_worker_process.py",
    "tests/runtime/test_supervision.py",
    "tests/web/test_client.py",
    "tests/web/test_proof.py",
    "tests/test_play_by_mail.py",
    "tests/test_deployment.py",
    "tests/web/",
    "tests/runtime/",
    "tests/workers/",
    "tests/client/",
)
ON_CLUSTER = ("events", "games", "workers")  # directories of TESTS
# The API's modules whose subject crosses processes through Redis (a listener a
# process, watchers woken, keys revoked everywhere).
API_ON_CLUSTER = ("test_live.py", "test_player_stream.py", "test_revocation.py")
SINGLE, CLUSTER = "single", "cluster"


def pytest_addoption(parser):
    parser.addoption(
        "--full",
        action="store_true",
        help="the kill-and-restart cycles, the differential tests and the floods at full"
        " size (docs/contributing.md, Tests)",
    )


def pytest_configure(config):
    sizes.FULL = config.getoption("--full")
    config.addinivalue_line("markers", "single_redis: the test needs a single Redis")
    config.addinivalue_line(
        "markers",
        "cluster_in_full: a long test whose cluster run shows what its single run shows:"
        " on the cluster with --full only",
    )
    if not hasattr(config, "workerinput"):  # the session's first process
        _warm_in_the_background()
    _compiled_before_use()


def _warm_in_the_background() -> None:
    """numba compiles the expert's search once (40 s of a core at a first start; then
    its cache beside it answers in a second), in a process of its own that holds a lock
    until it is done, while the test processes start, collect and run what needs no
    compiled search; each waits for the lock before it needs it (`_compiled_before_use`),
    so that none compiles again."""
    with tempfile.NamedTemporaryFile(prefix="claim-warming-", delete=False) as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held by the open file, which the compiler shares
        os.environ[WARMING] = lock.name  # for the test processes, started after this
        subprocess.Popen(
            [sys.executable, "-c", "from service import ai; ai.warm()"],
            pass_fds=[lock.fileno()],
            cwd=ROOT,
            preexec_fn=ending_with_this_process(),
        )


def pytest_unconfigure(config):
    if not hasattr(config, "workerinput") and WARMING in os.environ:
        Path(os.environ.pop(WARMING)).unlink(missing_ok=True)


def _compiled_before_use() -> None:
    """Have this test process wait for the compile (`_warm_in_the_background`) only
    before it needs it: before it first imports numba (the expert's search, in this
    process), and before it starts a Python process (a server, whose worker loads the
    search from the cache). Tests of anything else run meanwhile."""
    start = subprocess.Popen.__init__

    @functools.wraps(start)  # keeps what tests/ending.py marks it with
    def __init__(self, args, *more, **kwargs):
        if _python(args):  # not a Redis, a proxy, a browser
            _wait_for_the_compile()
        start(self, args, *more, **kwargs)

    subprocess.Popen.__init__ = __init__
    sys.meta_path.insert(0, _NumbaAfterTheCompile())


class _NumbaAfterTheCompile(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "numba":
            sys.meta_path.remove(self)
            _wait_for_the_compile()
        return None  # found as usual


def _python(args) -> bool:
    """Whether the command runs Python (`claim`, a `python` of the project's)."""
    first = args[0] if isinstance(args, list | tuple) else str(args).split()[0]
    return Path(first).name.startswith(("python", "claim"))


@functools.cache
def _wait_for_the_compile() -> None:
    if WARMING in os.environ:
        with open(os.environ[WARMING]) as lock:
            fcntl.flock(lock, fcntl.LOCK_SH)


def pytest_collection_modifyitems(items):
    """The modules that start servers and browsers first (longest first): the test
    processes, each handed a module at a time, then end together, not one of them
    alone with a long module at the end."""
    items.sort(key=lambda item: _weight(item.path))


def _weight(path: Path) -> int:
    relative = path.relative_to(ROOT).as_posix()
    return next((n for n, first in enumerate(FIRST) if relative.startswith(first)), len(FIRST))


def pytest_generate_tests(metafunc):
    """Tests of `ON_CLUSTER` that use Redis run on both kinds of Redis (those marked
    `cluster_in_full` on the cluster with --full only)."""
    path = metafunc.definition.path
    on_cluster = any(path.is_relative_to(TESTS / name) for name in ON_CLUSTER) or (
        path.is_relative_to(TESTS / "api") and (sizes.FULL or path.name in API_ON_CLUSTER)
    )
    only_in_full = metafunc.definition.get_closest_marker("cluster_in_full") is not None
    if (
        "redis_url" in metafunc.fixturenames
        and on_cluster
        and metafunc.definition.get_closest_marker("single_redis") is None
        and (sizes.FULL or not only_in_full)
    ):
        metafunc.parametrize("redis_kind", [SINGLE, CLUSTER], indirect=True, scope="session")


@pytest.fixture(scope="session")
def redis_kind(request) -> str:
    return getattr(request, "param", SINGLE)


@pytest.fixture(scope="session")
def single_redis_url(tmp_path_factory) -> str:
    url = Config.from_env().redis_url
    if url:
        yield url
        return
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), fsync="everysec")
    server.start(preexec_fn=ending_with_this_process())  # even if pytest is killed
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def cluster_url(tmp_path_factory) -> str:
    cluster = LocalCluster(
        tmp_path_factory.mktemp("cluster"), preexec_fn=ending_with_this_process()
    )
    with cluster:
        yield cluster.url


@pytest.fixture(scope="session")
def redis_url(redis_kind, request) -> str:
    """The URL of the test's Redis: a single one's, or a cluster node's."""
    return request.getfixturevalue("cluster_url" if redis_kind == CLUSTER else "single_redis_url")


@pytest.fixture(scope="session")
def queue_url(redis_kind, request) -> str | None:
    """`CLAIM_QUEUE_URL`: on the cluster, the single Redis; else none (the games')."""
    return request.getfixturevalue("single_redis_url") if redis_kind == CLUSTER else None


@pytest.fixture(scope="session")
def new_redis_client(redis_url, redis_kind):
    """`new_redis_client(**options)`: a client of the test's Redis, of the kind it needs
    (redis-py's cluster client on a cluster)."""
    kind = redis.RedisCluster if redis_kind == CLUSTER else redis.Redis
    return lambda **options: kind.from_url(redis_url, **options)


@pytest.fixture
def redis_client(new_redis_client):
    client = new_redis_client()
    yield client
    client.close()


@pytest.fixture
def queue_client(redis_client, queue_url):
    """A client of the Redis of RQ's queues."""
    if queue_url is None:
        yield redis_client
        return
    client = redis.Redis.from_url(queue_url)
    yield client
    client.close()


@pytest.fixture
def prefix(redis_client) -> str:
    """A key prefix of the test's own; its keys are deleted afterwards."""
    prefix = f"test-{uuid.uuid4().hex[:12]}"
    yield prefix
    keys = list(redis_client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        redis_client.delete(*keys)


# PostgreSQL for the archive's tests: CLAIM_TEST_POSTGRES, else the machine's own.
POSTGRES = os.environ.get("CLAIM_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


@pytest.fixture
def sqlite_archive_url(tmp_path) -> str:
    """A SQLite archive of the test's own (its file made on first write)."""
    return f"sqlite:///{tmp_path / 'archive.sqlite3'}"


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """The URL of a PostgreSQL that answers; the test is skipped, saying so, if none."""
    import psycopg

    try:
        psycopg.connect(POSTGRES, connect_timeout=3).close()
    except psycopg.Error as error:
        pytest.skip(f"no PostgreSQL answers at {POSTGRES} (CLAIM_TEST_POSTGRES): {error}")
    return POSTGRES


@pytest.fixture
def postgres_archive_url(postgres_server) -> str:
    """A PostgreSQL archive of the test's own: a schema made for it, dropped after."""
    import psycopg

    schema = f"test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in postgres_server else "?"
    yield f"{postgres_server}{separator}options=-csearch_path%3D{schema}"
    with psycopg.connect(postgres_server, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=["sqlite", "postgres"])
def archive_url(request) -> str:
    """An archive of the test's own, SQLite then PostgreSQL."""
    return request.getfixturevalue(f"{request.param}_archive_url")


@pytest.fixture
def store(redis_client, prefix) -> GameStore:
    return GameStore(redis_client, prefix=prefix)


@pytest.fixture
def new_store(redis_client, prefix):
    """Another store on the test's Redis and prefix, with a fold cache of its own:
    `new_store()`, or `new_store(clock=...)`."""
    return lambda **options: GameStore(redis_client, prefix, **options)


@pytest.fixture
def rq_cleanup(queue_client, prefix):
    """Delete RQ's keys of the test's queues (named after its prefix) afterwards: its
    queues, jobs and their results, and its workers."""
    yield
    delete_rq_keys(queue_client, prefix)


@pytest.fixture(autouse=True)
def _doctest_store(request, doctest_namespace):
    """Doctests that need Redis find a `store` with a prefix of their own."""
    if isinstance(request.node, pytest.DoctestItem):
        doctest_namespace["store"] = request.getfixturevalue("store")
