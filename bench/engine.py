"""Engine speed: random legal games for 2, 3 and 4 players on one core.

    .venv/bin/python bench/engine.py [--games 3000] [--seed 1]

Each game shuffles a random legal deck, deals, and plays uniformly random legal
decisions to the end: every decision is one `legal_decisions` plus one `apply`.
Prints decisions per second and games per second for each player count.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from tqdm import tqdm

from service.domain import Settings, random_factions
from service.simulation import random_game


def measure(players: int, games: int, seed: int) -> tuple[float, float]:
    """(decisions per second, games per second) over `games` random games."""
    rng = random.Random(seed)
    decisions = 0
    elapsed = 0.0
    for _ in tqdm(range(games), desc=f"{players} players", unit="game", file=sys.stderr):
        settings = Settings(players, random_factions(players, rng))
        start = time.perf_counter()
        _, made = random_game(settings, rng)
        elapsed += time.perf_counter() - start
        decisions += made
    return decisions / elapsed, games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="games per player count")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows = [(players, *measure(players, args.games, args.seed)) for players in (2, 3, 4)]
    print(f"{'players':>7} {'decisions/s':>12} {'games/s':>9}")
    for players, per_decision, per_game in rows:
        print(f"{players:>7} {per_decision:>12,.0f} {per_game:>9,.0f}")


if __name__ == "__main__":
    main()
