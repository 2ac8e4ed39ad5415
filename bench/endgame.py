"""The 2-player endgame solver: how far from the end it solves, and how fast.

    .venv/bin/python bench/endgame.py [--games 40] [--positions 22000] [--seed 7]
    .venv/bin/python bench/endgame.py --compiled --seconds 0.16

Plays random 2-player deals with greedy at both seats; at every lead of phase 2 it
asks `solve` for the leader, with a budget of `--positions` positions (the Python
solver's 0.16 s of a 0.2 s budget is about 20,000 on this machine), or of `--seconds`
of CPU as the expert gives it. `--compiled`: the compiled solver
(`compiled_endgame.solve`, which the expert uses) instead of its Python oracle
(tests/ai/oracles/endgame.py). Prints,
by cards left in hand, how often the solver finished within the budget and the
positions it searched when it did, and how often greedy's playout from the position
(greedy at both seats, as in the expert's rollouts) ends as perfect play does; then
the positions per second over all the searches.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from tqdm import tqdm

from service import ai
from service.ai import compiled_endgame, greedy
from service.domain import Settings, apply, legal_faction_sets, new_game, observe, shuffled_deck

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.ai.oracles
from tests.ai.oracles.compact_greedy import KnowingGame
from tests.ai.oracles.endgame import solve
from tests.ai.oracles.rollout import outcome, play_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--positions", type=int, default=22_000, help="budget of each search")
    parser.add_argument("--seconds", type=float, help="CPU seconds of each search instead")
    parser.add_argument("--compiled", action="store_true", help="the compiled solver")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if args.compiled:
        ai.warm()  # compiled, or loaded from numba's cache: not in the times
    search = compiled_endgame.solve if args.compiled else solve
    rng = random.Random(args.seed)
    solved = defaultdict(list)  # cards in hand -> positions searched, None if out of budget
    agree = defaultdict(int)  # cards in hand -> playouts ending as perfect play
    searched, seconds = 0, 0.0
    for _ in tqdm(range(args.games), unit="game", file=sys.stderr):
        factions = rng.choice(legal_faction_sets(2))
        state = new_game(Settings(2, factions), shuffled_deck(factions, rng))
        while state.to_act is not None:
            if state.phase == 2 and not state.trick:
                start = time.process_time()
                if args.seconds is None:
                    solution = search(state, state.to_act, args.positions)
                else:
                    solution = search(state, state.to_act, math.inf, _until(start + args.seconds))
                seconds += time.process_time() - start
                searched += solution.positions if solution else args.positions
                cards = len(state.hands[state.to_act])
                solved[cards].append(solution.positions if solution else None)
                if solution:
                    agree[cards] += _playout(state, state.to_act) == solution.value
            state = apply(state, greedy(observe(state, state.to_act), rng))
    engine = "compiled" if args.compiled else "Python"
    budget = f"{args.seconds} s of CPU" if args.seconds else f"{args.positions:,} positions"
    print(f"{engine} solver, budget {budget}, {args.games} deals")
    print(f"{'cards':>5} {'solved':>9} {'positions (median, max)':>24} {'playout right':>14}")
    for cards in sorted(solved):
        found = [n for n in solved[cards] if n is not None]
        spread = f"{statistics.median(found):,.0f}, {max(found):,}" if found else "-"
        right = f"{agree[cards] / len(found):.0%}" if found else "-"
        print(f"{cards:>5} {len(found):>4}/{len(solved[cards]):<4} {spread:>24} {right:>14}")
    if args.seconds is None:  # (by time, a search given up has no count of its positions)
        print(f"positions/s of CPU over all searches: {searched / seconds:,.0f}")


def _until(end: float):
    """A `time_up` that says so once the process's CPU clock reaches `end`."""
    return lambda: time.process_time() >= end


def _playout(state, side: int) -> float:
    """`side`'s outcome of greedy's playout from `state`."""
    game = KnowingGame.from_state(state)
    play_out(game)
    return outcome(game.side_keys(), side)


if __name__ == "__main__":
    main()
