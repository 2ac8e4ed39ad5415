"""`kill -9` of a process moving games to the archive, again and again at random
moments: no game is ever lost, changed or half-moved, and the next run finishes the
move (the worker's own path: the archive timers fired a chunk at a time; here small
chunks, and leases that end at once, so that a run killed leaves its games to the
next run rather than to a minute later)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import replace

import pytest

from service import games
from service.events import FINISHED, LobbyFilter
from tests.events.factories import new_game, play
from tests.games.test_archiving import keys_naming

GAMES = 120
KILLS = 8
MOVER = """
from service import games
from service.config import Config
from service.games import archiving, background
background.CHUNK, background.LEASE = 5, 0.0
def archive(*args, real=archiving.archive):
    done = real(*args)
    print("moved", flush=True)
    return done
archiving.archive = archive
claim = games.Claim.connect(Config.from_env(), jobs=False)
print("ready", flush=True)
while games.fire_due_timers(claim):
    pass
print("done", flush=True)
"""


def mover(config, redis_url) -> subprocess.Popen:
    """A process firing the due archive timers until none is left."""
    environment = {
        **os.environ,
        "REDIS_URL": redis_url,
        "CLAIM_PREFIX": config.prefix,
        "CLAIM_ARCHIVE_URL": config.archive_url,
        "CLAIM_ARCHIVE_AFTER": "0",
        "CLAIM_SIGNING_KEY": config.signing_key,
    }
    return subprocess.Popen(
        [sys.executable, "-c", MOVER], env=environment, stdout=subprocess.PIPE, text=True
    )


def logs(claim, game_ids) -> dict:
    """Every game's stored events: what must never change."""
    return {
        game_id: [(r.version, r.id, r.at, r.canonical) for r in claim.store.read(game_id)]
        for game_id in game_ids
    }


def listed(claim) -> list[str]:
    page = games.lobby(claim, FINISHED, 0, GAMES + 10, LobbyFilter())
    assert page.total == len(page.games)
    return sorted(summary.game_id for summary in page.games)


def ended(claim, config, archive_url):
    """`GAMES` games played to their end, their archive timers due at once, and the
    application on the archive of `archive_url`."""
    config = replace(config, archive_after=0.0, archive_url=archive_url)
    claim = games.Claim.connect(config, client=claim.store._redis, clock=claim.clock, jobs=False)
    rng = random.Random(7)
    ids = [play(claim.store, new_game(claim.store, seed=n), rng=rng).id for n in range(GAMES)]
    games.rebuild(claim, ids)  # the projections, and the archive timers
    return claim, ids


def test_a_move_killed_at_any_moment_loses_and_halves_nothing(
    claim, config, sqlite_archive_url, redis_url, redis_client, prefix
):
    killed_again_and_again(
        ended(claim, config, sqlite_archive_url), redis_url, redis_client, prefix
    )


@pytest.mark.single_redis
def test_a_move_to_postgresql_killed_at_any_moment_loses_and_halves_nothing(
    claim, config, postgres_archive_url, redis_url, redis_client, prefix
):
    moved = ended(claim, config, postgres_archive_url)
    killed_again_and_again(moved, redis_url, redis_client, prefix)


def killed_again_and_again(ended, redis_url, redis_client, prefix):
    claim, ids = ended
    before, lobby = logs(claim, ids), listed(claim)
    assert lobby == sorted(ids)
    rng = random.Random(11)
    kills, midway = 0, set()
    for _ in range(KILLS):
        process = mover(claim.config, redis_url)
        assert process.stdout.readline().strip() == "ready"
        for _ in range(rng.randrange(3)):  # a chunk or two moved, then a moment into the next
            process.stdout.readline()
        time.sleep(rng.uniform(0.0, 0.02))
        process.send_signal(signal.SIGKILL)
        process.wait()
        kills += process.returncode == -signal.SIGKILL
        assert logs(claim, ids) == before  # every game whole, in Redis or in the archive
        assert listed(claim) == lobby  # each listed once
        midway.add(claim.archive.count())
    assert kills >= KILLS // 2  # most were killed mid-move, not after it
    assert len(midway - {0, GAMES}) >= 3  # ... at several points of it
    process = mover(claim.config, redis_url)
    said = process.communicate(timeout=120)[0].split()
    assert (said[0], said[-1]) == ("ready", "done")
    assert claim.archive.count() == GAMES
    assert logs(claim, ids) == before and listed(claim) == lobby
    leftovers = [game_id for game_id in ids if keys_naming(redis_client, prefix, game_id)]
    assert leftovers == []
    claim.close()
