"""The archive: ended games moved out of Redis, one row each, in SQLite or PostgreSQL.

    archive = Archive.open("sqlite:///srv/claim/archive.sqlite3")   # the embedded default
    archive = Archive.open("postgresql://claim@db/claim")           # a deployment's

A row keeps what a game's reads need without Redis: its packed log (`packing.py`:
every stored byte of every event), its final version and chain hash, its seal (key id
and signature), and the facts the lobby and a player's games filter and order by (its
status, creation and end times, player count, rated, public, result). The registered
players' seats are rows of their own (player, game, when they joined), for a player's
games. Everything else (the view, the replay, the summary the lobby shows) is folded
from the log, as it was from the stream.

Tables (`claim_games`, `claim_seats`) are made on first use. A row is written once and
never changed: `put` ignores a game already there, so that a move repeated after a
crash writes nothing twice (`service/games/archiving.py` moves games here).

SQLite: one file (0600) in WAL mode, `synchronous=FULL`, so that a committed row
survives a crash of the machine before the game's Redis keys are deleted; a process
holds one connection, behind a lock. PostgreSQL: a small pool of connections per
process (psycopg 3, which cooperates with gevent). Either is opened in the process
that uses it, never across a fork.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from urllib.parse import unquote, urlsplit

import orjson
import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from .errors import StoreUnavailable
from .fold import Game
from .ratings import RatedResult

SQLITE, POSTGRESQL = "sqlite", "postgresql"
CHUNK = 500  # ids per query (SQLite allows 32,766 parameters; PostgreSQL 65,535)
POOL_SIZE = 4  # PostgreSQL connections per process at most
POOL_WAIT = 5.0  # seconds a read or write waits for a PostgreSQL connection

_TABLES = """
CREATE TABLE IF NOT EXISTS claim_games (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    ended_at DOUBLE PRECISION NOT NULL,
    players INTEGER NOT NULL,
    rated INTEGER NOT NULL,
    public INTEGER NOT NULL,
    result TEXT NOT NULL,
    version INTEGER NOT NULL,
    hash {blob} NOT NULL,
    key_id TEXT NOT NULL,
    signature {blob} NOT NULL,
    log {blob} NOT NULL
);
CREATE INDEX IF NOT EXISTS claim_games_listing ON claim_games (status, created_at, id);
CREATE TABLE IF NOT EXISTS claim_seats (
    player TEXT NOT NULL,
    game TEXT NOT NULL,
    joined_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player, game)
){seats}
"""


@dataclass(frozen=True, slots=True)
class ArchivedGame:
    """One archived game: its row, and the seats of registered players."""

    id: str
    status: str  # finished or aborted
    created_at: float  # Unix time: the lobby's order
    ended_at: float
    players: int
    rated: bool
    public: bool
    result: str  # JSON: how it ended and who won (`row_facts`)
    version: int
    hash: bytes  # the chain's hash at `version` (32 bytes)
    key_id: str  # of the key that sealed it
    signature: bytes  # the seal's (`seals.py`)
    log: bytes  # packed (`packing.py`)
    seats: tuple[tuple[str, float], ...] = ()  # (player id, joined at) of each registered seat


_COLUMNS = tuple(field.name for field in fields(ArchivedGame) if field.name != "seats")
FACTS = 1  # the version of `row_facts`


def row_facts(game: Game) -> dict:
    """What the ended `game`'s row says of it beside its head, seal and log, as JSON
    values, and whether its result moves ratings: kept with its seal until it moves
    (`seals.py`), so that the move need not fold its log again. Their version is
    `FACTS`: facts of another (kept by an older server) are made again."""
    ending = game.ending
    return {
        "v": FACTS,
        "moves_ratings": RatedResult.of(game) is not None,
        "status": game.status,
        "created_at": game.created_at.timestamp(),
        "ended_at": game.updated_at.timestamp(),
        "players": game.settings.players,
        "rated": game.creation.rated,
        "public": game.public,
        "result": orjson.dumps(
            {"reason": ending.reason, "seat": ending.seat, "winners": list(ending.winners)}
        ).decode(),
        "seats": [[seat.player, seat.joined_at.timestamp()] for seat in game.seats if seat.player],
    }


@dataclass(frozen=True, slots=True)
class Listed:
    """A game as a listing of the archive orders it."""

    id: str
    created_at: float


class Archive:
    """The archived games (the module's docstring). `open` picks SQLite or PostgreSQL."""

    def __init__(self, kind: str, target: str):
        self.kind = kind
        self._target = target  # the SQLite file, or PostgreSQL's connection string
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._db = None  # a sqlite3 connection, or a psycopg pool, of process `_pid`

    @classmethod
    def open(cls, url: str) -> Archive:
        """The archive at `url`: `sqlite:///<absolute path>`, `sqlite:<relative path>`,
        or `postgresql://...` (ValueError for anything else)."""
        scheme = urlsplit(url).scheme
        if scheme == SQLITE:
            path = url.removeprefix("sqlite:")
            path = path[2:] if path.startswith("///") else path  # sqlite:///abs keeps one /
            if not path:
                raise ValueError(f"{url!r} names no file")
            return cls(SQLITE, unquote(path))
        if scheme in (POSTGRESQL, "postgres"):
            return cls(POSTGRESQL, url)
        raise ValueError(f"{url!r} is neither sqlite: nor postgresql:")

    def __repr__(self) -> str:
        where = self._target if self.kind == SQLITE else urlsplit(self._target).hostname
        return f"Archive({self.kind}, {where})"

    # Writing

    def put(self, games: Sequence[ArchivedGame]) -> None:
        """Write `games` in one transaction, committed when this returns; a game
        already archived is left as it is."""
        if not games:
            return
        columns = ", ".join(_COLUMNS)
        places = ", ".join(["%s"] * len(_COLUMNS))
        rows = [tuple(_value(getattr(game, name)) for name in _COLUMNS) for game in games]
        seats = [(player, game.id, at) for game in games for player, at in game.seats]
        with self._transaction(write=True) as db:
            db.executemany(
                f"INSERT INTO claim_games ({columns}) VALUES ({places})"
                " ON CONFLICT (id) DO NOTHING",
                rows,
            )
            if seats:
                db.executemany(
                    "INSERT INTO claim_seats (player, game, joined_at) VALUES (%s, %s, %s)"
                    " ON CONFLICT (player, game) DO NOTHING",
                    seats,
                )

    # Reading

    def get(self, game_ids: Sequence[str]) -> dict[str, ArchivedGame]:
        """The archived games among `game_ids`, by id (without their seats)."""
        found = {}
        for rows in self._by_ids(", ".join(_COLUMNS), game_ids):
            for row in rows:
                game = ArchivedGame(*row[:5], bool(row[5]), bool(row[6]), *row[7:])
                found[game.id] = game
        return found

    def versions(self, game_ids: Sequence[str]) -> dict[str, int]:
        """The final version of each archived game among `game_ids`."""
        return {i: v for rows in self._by_ids("id, version", game_ids) for i, v in rows}

    def _by_ids(self, columns: str, game_ids: Sequence[str]) -> Iterator[list[tuple]]:
        game_ids = list(dict.fromkeys(game_ids))
        for start in range(0, len(game_ids), CHUNK):
            chunk = game_ids[start : start + CHUNK]
            places = ", ".join(["%s"] * len(chunk))
            yield self._query(f"SELECT {columns} FROM claim_games WHERE id IN ({places})", chunk)

    def listing(
        self, status: str, facets: dict[str, int], offset: int, limit: int
    ) -> tuple[int, list[Listed]]:
        """How many archived games have `status` and these values of `facets`
        (players, rated, public), and `limit` of them from `offset`, newest created
        first (the same moment: by id, last first), as the lobby lists them."""
        where = " AND ".join(["status = %s", *(f"{name} = %s" for name in facets)])
        values = [status, *facets.values()]
        (total,) = self._query(f"SELECT count(*) FROM claim_games WHERE {where}", values)[0]
        rows = self._query(
            f"SELECT id, created_at FROM claim_games WHERE {where}"
            " ORDER BY created_at DESC, id DESC LIMIT %s OFFSET %s",
            [*values, limit, offset],
        )
        return total, [Listed(game_id, created_at) for game_id, created_at in rows]

    def games_of(self, player_id: str) -> list[tuple[str, float, str]]:
        """The archived games of the player, newest joined first: each one's id, when
        they joined (Unix time) and its status."""
        return self._query(
            "SELECT seat.game, seat.joined_at, game.status FROM claim_seats AS seat"
            " JOIN claim_games AS game ON game.id = seat.game WHERE seat.player = %s"
            " ORDER BY seat.joined_at DESC, seat.game DESC",
            [player_id],
        )

    def ids(self, after: str = "", count: int = 1000, rated: bool | None = None) -> list[str]:
        """`count` archived games' ids after `after`, in order (those `rated` or not, if
        it says): a page of all of them."""
        where = "id > %s" if rated is None else "id > %s AND rated = %s"
        values = [after] if rated is None else [after, int(rated)]
        rows = self._query(
            f"SELECT id FROM claim_games WHERE {where} ORDER BY id LIMIT %s", [*values, count]
        )
        return [game_id for (game_id,) in rows]

    def every_id(self, rated: bool | None = None) -> Iterator[str]:
        """Every archived game's id, in order, a page at a time."""
        after = ""
        while page := self.ids(after, rated=rated):
            yield from page
            after = page[-1]

    def count(self) -> int:
        return self._query("SELECT count(*) FROM claim_games", [])[0][0]

    def close(self) -> None:
        with self._lock:
            if self._db is not None and self._pid == os.getpid():
                self._db.close()
            self._db = None

    # The databases

    def _query(self, sql: str, values: Sequence) -> list[tuple]:
        with self._transaction(write=False) as db:
            return db.execute(sql, values)

    @contextmanager
    def _transaction(self, write: bool):
        """A transaction (committed if the block ends without raising), answering
        `execute` and `executemany`; StoreUnavailable when the database fails."""
        try:
            if self.kind == SQLITE:
                with self._sqlite(write) as db:
                    yield db
            else:
                with self._postgresql() as db:
                    yield db
        except (sqlite3.Error, psycopg.Error, PoolTimeout) as error:
            raise StoreUnavailable(f"the archive ({self!r}): {error}") from error

    @contextmanager
    def _sqlite(self, write: bool):
        with self._lock:
            if self._db is None or self._pid != os.getpid():
                if not write and not Path(self._target).exists():
                    yield _Empty()  # nothing archived yet: no file made by a read
                    return
                self._db, self._pid = _open_sqlite(self._target), os.getpid()
            db = self._db
            db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield _Sqlite(db)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    @contextmanager
    def _postgresql(self):
        with self._lock:
            if self._db is None or self._pid != os.getpid():
                self._db, self._pid = _open_postgresql(self._target), os.getpid()
            pool = self._db
        with pool.connection() as connection:  # commits at the end, or rolls back
            yield _Postgresql(connection)


def _value(value):
    return int(value) if isinstance(value, bool) else value


def _open_sqlite(path: str) -> sqlite3.Connection:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # holds decks, tokens' hashes
    os.close(fd)
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")  # a committed row survives the machine's crash
    # The seats' rows in their key's tree alone: no table beside an index of it.
    db.executescript(_TABLES.format(blob="BLOB", seats=" WITHOUT ROWID"))
    return db


def _open_postgresql(url: str) -> ConnectionPool:
    pool = ConnectionPool(url, min_size=1, max_size=POOL_SIZE, open=True, timeout=POOL_WAIT)
    with pool.connection() as connection:  # two processes making the tables: one waits
        connection.execute("SELECT pg_advisory_xact_lock(hashtext('claim_archive_tables'))")
        for statement in _TABLES.format(blob="BYTEA", seats="").split(";"):
            connection.execute(statement)
    return pool


class _Sqlite:
    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def execute(self, sql: str, values: Sequence) -> list[tuple]:
        return self._db.execute(sql.replace("%s", "?"), list(values)).fetchall()

    def executemany(self, sql: str, rows: Sequence[tuple]) -> None:
        self._db.executemany(sql.replace("%s", "?"), rows)


class _Postgresql:
    def __init__(self, connection):
        self._connection = connection

    def execute(self, sql: str, values: Sequence) -> list[tuple]:
        with self._connection.cursor() as cursor:
            cursor.execute(sql, list(values))
            return cursor.fetchall() if cursor.description else []

    def executemany(self, sql: str, rows: Sequence[tuple]) -> None:
        with self._connection.cursor() as cursor:
            cursor.executemany(sql, rows)


class _Empty:
    """An archive with nothing in it yet (its file not made): every query answers no
    rows, but a count's zero."""

    def execute(self, sql: str, values: Sequence) -> list[tuple]:
        return [(0,)] if sql.startswith("SELECT count(*)") else []
