"""What the benchmarks share: a Redis to measure on, random deals played to their end,
and finding worker processes."""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import tempfile
from contextlib import contextmanager
from pathlib import Path

import redis

from service.config import Config
from service.domain import Settings, apply, legal_decisions, new_game, shuffled_deck
from service.events import DecisionMade
from service.runtime.embedded_redis import EmbeddedRedis


@contextmanager
def redis_url():
    """REDIS_URL, else the URL of an embedded Redis in a temporary directory."""
    if url := Config.from_env().redis_url:
        yield url
        return
    with tempfile.TemporaryDirectory(prefix="claim-bench-") as directory:
        server = EmbeddedRedis(Path(directory), fsync=Config.from_env().fsync)
        server.start()
        try:
            yield server.url
        finally:
            server.stop()


def random_game(settings: Settings, rng: random.Random) -> tuple[tuple, list[DecisionMade]]:
    """A random deal played to its end in memory: the deck and every decision."""
    deck = shuffled_deck(settings.factions, rng)
    state, decisions = new_game(settings, deck), []
    while state.to_act is not None:
        decision = rng.choice(legal_decisions(state))
        decisions.append(DecisionMade(state.to_act, decision))
        state = apply(state, decision)
    return deck, decisions


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, found by parent: RQ's work horses leave their
    parent's process group."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def delete_keys(connection: redis.Redis, prefix: str) -> None:
    """Delete every key under `prefix:`, a thousand at a time."""
    keys = list(connection.scan_iter(match=f"{prefix}:*", count=1000))
    for at in range(0, len(keys), 1000):
        connection.delete(*keys[at : at + 1000])


def add_chromium(parser: argparse.ArgumentParser) -> None:
    """A benchmark's `--chromium` option: the browser (default CLAIM_CHROMIUM, else
    /usr/bin/chromium), refused when there is none."""
    parser.add_argument(
        "--chromium",
        type=_browser,
        default=os.environ.get("CLAIM_CHROMIUM") or "/usr/bin/chromium",
        help="the browser (default: CLAIM_CHROMIUM, else /usr/bin/chromium)",
    )


def _browser(path: str) -> str:
    if not Path(path).exists():
        raise argparse.ArgumentTypeError(f"no browser at {path}: --chromium or CLAIM_CHROMIUM")
    return path
