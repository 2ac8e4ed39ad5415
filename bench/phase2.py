"""Where a 2-player level wins and loses its games: phase 1 or phase 2.

    .venv/bin/python bench/phase2.py --pairing expert:greedy --deals 40 --solve-seconds 8

Plays `a` against `b` on random deals, both seatings, the expert at `--expert-seconds`
of CPU a decision. When a game reaches phase 2, where nothing is hidden, it solves
the position exactly (the Python oracle of the endgame solver, tests/ai/oracles/endgame.py,
up to `--solve-seconds` of CPU; a position too
big is tried again a round later). Prints, for the games whose phase 2 was solved,
how often `a` entered it with a game won or lost against perfect play, and how
often it won each kind in the end; then how often greedy's playout of the same
position, greedy at both seats, gives perfect play's outcome (the expert's rollouts
play phase 2 so).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

from ladder import dealt, decide
from tqdm import tqdm

from service.domain import apply, new_game, observe, result
from service.games.turns import PLAYERS

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.ai.oracles
from tests.ai.oracles.compact_greedy import KnowingGame
from tests.ai.oracles.endgame import solve
from tests.ai.oracles.rollout import outcome, play_out


def play_deal(task: tuple) -> list[tuple]:
    """Both seatings of one deal: per game, (a's value at phase 2 against perfect play
    or None, greedy's playout value there for a, a's final score)."""
    seed, a, b, deal, expert_seconds, solve_seconds = task
    settings, deck = dealt(seed, 2, deal)
    games = []
    for hero in range(2):
        levels = [a if seat == hero else b for seat in range(2)]
        rngs = [random.Random(f"{seed}:{deal}:{hero}:{seat}") for seat in range(2)]
        state, solved, playout = new_game(settings, deck), None, None
        while state.to_act is not None:
            if state.phase == 2 and solved is None and not state.trick:
                solved, playout = _judged(state, hero, solve_seconds)
            seat = state.to_act
            player = PLAYERS[levels[seat]]
            decision = decide(
                player, observe(state, seat), rngs[seat], expert_seconds, time.process_time
            )
            state = apply(state, decision, seat)
        winner = result(state).winner
        games.append((solved, playout, 0.5 if winner is None else float(winner == hero)))
    return games


def _judged(state, hero: int, seconds: float) -> tuple[float | None, float | None]:
    """`hero`'s value of the position against perfect play (None: too big to solve in
    `seconds`), and the outcome of greedy's playout from it."""
    seat = state.to_act
    until = time.process_time() + seconds
    solution = solve(state, seat, float("inf"), lambda: time.process_time() >= until)
    if solution is None:
        return None, None
    game = KnowingGame.from_state(state)
    play_out(game)
    mine = outcome(game.side_keys(), hero)
    return (solution.value if seat == hero else 1 - solution.value), mine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairing", default="expert:greedy")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--expert-seconds", type=float, default=0.2)
    parser.add_argument("--solve-seconds", type=float, default=8.0)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    a, _, b = args.pairing.partition(":")
    if not {a, b} <= set(PLAYERS):
        parser.error(f"a pairing is two of {', '.join(PLAYERS)} joined by ':'")
    tasks = [
        (args.seed, a, b, deal, args.expert_seconds, args.solve_seconds)
        for deal in range(args.deals)
    ]
    games = []
    with Pool(args.processes) as pool:
        for deal_games in tqdm(
            pool.imap_unordered(play_deal, tasks), total=len(tasks), unit="deal", file=sys.stderr
        ):
            games += deal_games
    judged = [game for game in games if game[0] is not None]
    print(f"{args.pairing}, 2 players, {len(games)} games, {len(judged)} with phase 2 solved")
    print(f"{'entering phase 2':<18} {'games':>6} {'a won in the end':>17}")
    for name, value in (("won", 1.0), ("drawn", 0.5), ("lost", 0.0)):
        kind = [score for solved, _, score in judged if solved == value]
        if kind:
            print(f"{name:<18} {len(kind):>6} {sum(kind) / len(kind):>17.1%}")
    agree = Counter(solved == playout for solved, playout, _ in judged)
    print(f"greedy's playout gives perfect play's outcome in {agree[True]} of {len(judged)}")


if __name__ == "__main__":
    main()
