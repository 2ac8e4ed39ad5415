"""Rollout speed: whole games played by greedy at every seat on the compact engine.

    .venv/bin/python bench/rollouts.py [--games 2000] [--seed 1]

The expert spends most of its time in such playouts (`rollout.py`). Deals random legal
decks (bench/ladder.py's `dealt`), plays each with `compact_greedy.decide` at every
seat, and prints, per player count, the CPU milliseconds of a game's phase 1, of its
phase 2, and of the whole game.
"""

from __future__ import annotations

import argparse
import sys
import time

from ladder import dealt
from tqdm import tqdm

from service.ai.compact_greedy import KnowingGame, decide


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per player count")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'players':<8} {'phase 1 ms':>10} {'phase 2 ms':>10} {'game ms':>10}")
    for players in (2, 3, 4):
        phase1 = phase2 = 0.0
        for deal in tqdm(range(args.games), desc=f"{players} players", file=sys.stderr):
            settings, deck = dealt(args.seed, players, deal)
            game = KnowingGame.deal(settings, deck)
            start = time.process_time()
            while game.phase == 1:
                game.apply(decide(game))
            middle = time.process_time()
            while game.to_act is not None:
                game.apply(decide(game))
            end = time.process_time()
            phase1, phase2 = phase1 + middle - start, phase2 + end - middle
        ms = 1000 / args.games
        game = phase1 + phase2
        print(f"{players:<8} {phase1 * ms:>10.2f} {phase2 * ms:>10.2f} {game * ms:>10.2f}")


if __name__ == "__main__":
    main()
