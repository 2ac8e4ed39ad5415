"""Rollout speed: whole games played by greedy at every seat, in the compact engine
(the Python oracle, tests/ai/oracles/) and in the compiled one (numba).

    .venv/bin/python bench/rollouts.py [--games 2000] [--seed 1]

The expert spends most of its time in such playouts (`compiled.rollout`).
Deals random legal decks (bench/ladder.py's `dealt`), plays each with greedy at every
seat in both engines, and prints, per player count and engine, the CPU microseconds
of a game's phase 1, of its phase 2, and of the whole game (the compiled engine's
first call, which compiles or loads it, is left out).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from ladder import dealt
from tqdm import tqdm

from service.ai import compiled

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.ai.oracles
from tests.ai.oracles.compact_greedy import KnowingGame, decide


def python_game(settings, deck) -> tuple[float, float]:
    game = KnowingGame.deal(settings, deck)
    start = time.process_time()
    while game.phase == 1:
        game.apply(decide(game))
    middle = time.process_time()
    while game.to_act is not None:
        game.apply(decide(game))
    return middle - start, time.process_time() - middle


def compiled_game(settings, deck) -> tuple[float, float]:
    indexes = np.array([card.index for card in deck], dtype=np.int64)
    game = compiled.deal(compiled.settings_array(settings), indexes, settings.first_leader)
    start = time.process_time()
    compiled.play_phase1(game)
    middle = time.process_time()
    compiled.play_out(game)
    return middle - start, time.process_time() - middle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per player count")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    compiled_game(*dealt(args.seed, 2, 0))  # compiled, or loaded from numba's cache
    rows = []
    for players in (2, 3, 4):
        for engine, play in (("python", python_game), ("compiled", compiled_game)):
            phase1 = phase2 = 0.0
            for deal in tqdm(
                range(args.games), desc=f"{players} players, {engine}", file=sys.stderr
            ):
                first, second = play(*dealt(args.seed, players, deal))
                phase1, phase2 = phase1 + first, phase2 + second
            us = 1e6 / args.games
            rows.append((players, engine, phase1 * us, phase2 * us, (phase1 + phase2) * us))
    print(f"{'players':<8} {'engine':<9} {'phase 1 us':>10} {'phase 2 us':>10} {'game us':>10}")
    for players, engine, first, second, whole in rows:
        print(f"{players:<8} {engine:<9} {first:>10.1f} {second:>10.1f} {whole:>10.1f}")


if __name__ == "__main__":
    main()
