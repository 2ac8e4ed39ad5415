"""The expert's analysis of a finished 2-player game: how long one worker takes.

    .venv/bin/python bench/analysis.py [--games 3] [--seed 1]

Plays `--games` 2-player games in memory (greedy against random: decisions of every
quality to judge), writes each to the store as a finished game of AI seats, asks for
its analysis (`POST /games/{id}/analysis`'s use case, by a player registered here)
and times one `claim worker` (started here, on REDIS_URL if set, else on an embedded
Redis of its own) from the ask until the analysis is done, printing its progress as
the worker judges the decisions.
Prints each game's seconds, its decisions and marks, then the mean and the worst.

Target (issue 31): a 2-player game analysed in under 30 s on one worker.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

import redis
from common import delete_keys, redis_url
from tqdm import tqdm

from service import games
from service.ai import greedy, random_player
from service.config import Config, child_environment
from service.domain import Settings, apply, new_game, observe, random_factions
from service.events import AI, DecisionMade, SeatSpec

PATIENCE = 600  # seconds: a worker that takes longer is stuck


def played(claim: games.Claim, rng: random.Random) -> str:
    """A game of greedy (seat 0) against random, written to the store to its end."""
    settings = Settings(2, random_factions(2, rng))
    game = claim.store.create(settings, [SeatSpec(AI, "greedy"), SeatSpec(AI, "random")])
    state = new_game(settings, game.creation.deck)
    events = []
    while state.to_act is not None:
        seat = state.to_act
        player = greedy if seat == 0 else random_player
        decision = player(observe(state, seat), rng)
        events.append(DecisionMade(seat, decision))
        state = apply(state, decision)
    claim.store.append(game.id, events, expected_version=1)
    return game.id


def timed(claim: games.Claim, key: str, game_id: str) -> tuple[float, games.Analysis]:
    """Seconds from the ask (by the player of `key`) to the analysis done, its progress
    shown meanwhile."""
    start = time.monotonic()
    analysis = games.ask_analysis(claim, key, game_id)
    with tqdm(total=analysis.total, desc=f"game {game_id[:8]}", unit="decision") as progress:
        while analysis.status != "done":
            if analysis.status == "failed" or time.monotonic() - start > PATIENCE:
                status = analysis.status
                raise SystemExit(f"the analysis of {game_id}: {status}, see the worker's log")
            time.sleep(0.05)
            analysis = games.analysis(claim, game_id)
            progress.update(len(analysis.judged) - progress.n)
    return time.monotonic() - start, analysis


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with redis_url() as url, tempfile.TemporaryDirectory(prefix="claim-bench-") as directory:
        prefix = f"bench-{uuid.uuid4().hex[:8]}"
        archive = f"sqlite:///{directory}/archive.sqlite3"
        config = Config(redis_url=url, prefix=prefix, archive_url=archive)
        claim = games.Claim.connect(config)
        env = child_environment(REDIS_URL=url, CLAIM_PREFIX=prefix, CLAIM_ARCHIVE_URL=archive)
        log = open(os.path.join(directory, "worker.log"), "w")  # noqa: SIM115
        worker = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            seconds = []
            _, key = games.register(claim, "analyst")
            for _ in range(args.games):
                took, analysis = timed(claim, key, played(claim, rng))
                marks = [d["mark"] for d in analysis.judged if d["mark"]]
                seconds.append(took)
                print(
                    f"{took:.1f} s for {analysis.total} decisions"
                    f" ({took / analysis.total * 1000:.0f} ms each), {len(marks)} marked:"
                    f" {', '.join(f'{marks.count(m)} {m}' for m in sorted(set(marks)))}"
                )
        finally:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(30)
            log.close()
            claim.close()
            with redis.Redis.from_url(url) as connection:
                delete_keys(connection, prefix)
    print(
        f"2-player analysis on one worker: mean {statistics.mean(seconds):.1f} s,"
        f" worst {max(seconds):.1f} s over {len(seconds)} games (target: under 30 s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
