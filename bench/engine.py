"""Engine speed: random legal games for 2, 3 and 4 players on one core.

    .venv/bin/python bench/engine.py [--games 3000] [--seed 1]

Each game shuffles a random legal deck, deals, and plays uniformly random legal
decisions to the end: every decision is one `legal_decisions` plus one checked
decision. Prints decisions per second and games per second for each player count,
played three ways, in turns on the same deals and decisions: `apply` after `apply` (a
new immutable `State` each time, as the AI's greedy rollouts use it), a `Replay` (one
state taken through the game in place, as the fold and `claim simulate` use it;
`service.simulation.random_game`), and the compact engine (`CompactGame`, cards as
ints, unchecked: the Python oracle that holds the AI's compiled engine to the domain,
tests/ai/oracles/compact.py, whose speed the differential tests spend;
bench/differential.py checks that it plays as the domain does).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from tqdm import tqdm

from service.domain import (
    Settings,
    State,
    apply,
    legal_decisions,
    new_game,
    random_factions,
    shuffled_deck,
)
from service.simulation import random_game

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.ai.oracles
from tests.ai.oracles.compact import CompactGame


def applied_game(settings: Settings, rng: random.Random) -> tuple[State, int]:
    """`random_game` with `apply` after `apply`."""
    state = new_game(settings, shuffled_deck(settings.factions, rng))
    decisions = 0
    while state.to_act is not None:
        state = apply(state, rng.choice(legal_decisions(state)))
        decisions += 1
    return state, decisions


def compact_game(settings: Settings, rng: random.Random) -> tuple[CompactGame, int]:
    """`random_game` in the compact engine."""
    game = CompactGame.deal(settings, shuffled_deck(settings.factions, rng))
    decisions = 0
    while game.to_act is not None:
        game.apply(rng.choice(game.legal_decisions()))
        decisions += 1
    return game, decisions


PLAYS = {"apply": applied_game, "replay": random_game, "compact": compact_game}


def measure(players: int, games: int, seed: int) -> dict[str, tuple[float, float]]:
    """(decisions per second, games per second) over `games` random games, each game
    played every way in turns, with the same deal and decisions."""
    rng = random.Random(seed)
    decisions = 0
    elapsed = dict.fromkeys(PLAYS, 0.0)
    for _ in tqdm(range(games), desc=f"{players} players", unit="game", file=sys.stderr):
        settings = Settings(players, random_factions(players, rng))
        state = rng.getstate()
        for way, play in PLAYS.items():
            rng.setstate(state)
            start = time.perf_counter()
            _, made = play(settings, rng)
            elapsed[way] += time.perf_counter() - start
        decisions += made
    return {way: (decisions / seconds, games / seconds) for way, seconds in elapsed.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="games per player count")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows = {players: measure(players, args.games, args.seed) for players in (2, 3, 4)}
    print(f"{'players':>7} {'way':>7} {'decisions/s':>12} {'games/s':>9}")
    for players, ways in rows.items():
        for way, (per_decision, per_game) in ways.items():
            print(f"{players:>7} {way:>7} {per_decision:>12,.0f} {per_game:>9,.0f}")


if __name__ == "__main__":
    main()
