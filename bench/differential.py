"""Replay and the AI's compact engine against apply: random legal games played three
ways, compared at every step.

    .venv/bin/python bench/differential.py [--decisions 1000000] [--seed 1]
                                           [--processes 2]

Each game deals a random legal deck for 2, 3 or 4 players (in turn) and plays
uniformly random legal decisions to the end, once with `apply` after `apply` and once
with a `Replay` and once with a `CompactGame` (service/ai/compact.py): at every step
the legal decisions and the seat to act must be equal, the Replay's whole state
(`Replay.state()`) and the compact game's position (`CompactGame.position()`, of the
state read into a compact game) too, and at the end the result. Prints how many
decisions and games were compared, per player count, and the first difference if any
(exit status 1). The tests run the same comparison on a few games
(tests/domain/test_rules.py, tests/ai/test_compact.py).
"""

from __future__ import annotations

import argparse
import random
import sys
from multiprocessing import Pool

from tqdm import tqdm

from service.ai.compact import CODES, DECISIONS, CompactGame
from service.domain import (
    Replay,
    Settings,
    apply,
    legal_decisions,
    new_game,
    random_factions,
    result,
    shuffled_deck,
)

GAMES_PER_TASK = 50


def compare(task: tuple[int, int]) -> tuple[int, int, int, str | None]:
    """(players, games, decisions, first difference or None) for one batch of games."""
    seed, players = task
    rng = random.Random(seed)
    decisions = 0
    for game in range(GAMES_PER_TASK):
        settings = Settings(players, random_factions(players, rng), rng.randrange(players))
        deck = shuffled_deck(settings.factions, rng)
        state = new_game(settings, deck)
        replay = Replay(state)
        compact = CompactGame.deal(settings, deck)
        while state.to_act is not None:
            legal = legal_decisions(state)
            if replay.legal_decisions() != legal or replay.to_act != state.to_act:
                return players, game, decisions, f"seed {seed}: legal decisions differ"
            if tuple(map(DECISIONS.get, compact.legal_decisions())) != legal:
                return players, game, decisions, f"seed {seed}: compact legal decisions differ"
            decision = rng.choice(legal)
            state = apply(state, decision, seat=state.to_act)
            replay.apply(decision, seat=replay.to_act)
            compact.apply(CODES[decision])
            decisions += 1
            if replay.state() != state:
                return players, game, decisions, f"seed {seed}: states differ after {decision}"
            if compact.position() != CompactGame.from_state(state).position():
                return players, game, decisions, f"seed {seed}: compact differs after {decision}"
        if compact.result() != result(state):
            return players, game, decisions, f"seed {seed}: compact result differs"
    return players, GAMES_PER_TASK, decisions, None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=1_000_000, help="at least this many")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    totals = {players: [0, 0] for players in (2, 3, 4)}
    done = 0
    task = 0
    with Pool(args.processes) as pool, tqdm(total=args.decisions, unit="decision") as bar:
        while done < args.decisions:
            tasks = [(args.seed * 1_000_000 + task + n, 2 + (task + n) % 3) for n in range(64)]
            task += len(tasks)
            for players, games, decisions, difference in pool.imap_unordered(compare, tasks):
                if difference is not None:
                    sys.exit(f"{players} players: {difference}")
                totals[players][0] += games
                totals[players][1] += decisions
                done += decisions
                bar.update(decisions)
    print(f"{'players':>7} {'games':>7} {'decisions':>10}  every state identical")
    for players, (games, decisions) in totals.items():
        print(f"{players:>7} {games:>7,} {decisions:>10,}")
    print(f"{'all':>7} {sum(g for g, _ in totals.values()):>7,} {done:>10,}")


if __name__ == "__main__":
    main()
