"""Replay and the AI's compact engine against apply: random legal games played three
ways, compared at every step; with --greedy, the compact greedy against greedy (the
Python oracles of tests/ai/oracles/, which hold the compiled engine).

    .venv/bin/python bench/differential.py [--decisions 1000000] [--seed 1]
                                           [--processes 2]
    .venv/bin/python bench/differential.py --greedy [--decisions 100000]

Each game deals a random legal deck for 2, 3 or 4 players (in turn) and plays
uniformly random legal decisions to the end, once with `apply` after `apply` and once
with a `Replay` and once with a `CompactGame` (tests/ai/oracles/compact.py): at every step
the legal decisions and the seat to act must be equal, the Replay's whole state
(`Replay.state()`) and the compact game's position (`CompactGame.position()`, of the
state read into a compact game) too, and at the end the result. Prints how many
decisions and games were compared, per player count, and the first difference if any
(exit status 1). The tests run the same comparison on a few games
(tests/domain/test_rules.py, tests/ai/test_compact.py).

With --greedy each position of games played by greedy with some random decisions (a
share drawn per game), over Claim 1, Claim 2 and mixed decks, is decided twice: by
the compact greedy on a `KnowingGame` (tests/ai/oracles/compact_greedy.py, which the
compiled rollouts restate) and by `greedy` on the seat's `observe`; every decision
must be equal.
Prints the positions compared per player count and deck (tests/ai/test_compact_greedy.py
runs the same comparison, a hundred thousand positions).
"""

from __future__ import annotations

import argparse
import random
import sys
from multiprocessing import Pool
from pathlib import Path

from tqdm import tqdm

from service.ai.codes import CODES, DECISIONS
from service.ai.greedy import greedy
from service.domain import (
    Replay,
    Settings,
    apply,
    legal_decisions,
    legal_faction_sets,
    new_game,
    observe,
    random_factions,
    result,
    shuffled_deck,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.ai.oracles
from tests.ai.oracles.compact import CompactGame
from tests.ai.oracles.compact_greedy import KnowingGame, decide

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


CLAIM_1 = frozenset(("GO", "KN", "UN", "DO", "DW"))
CLAIM_2 = frozenset(("GN", "GI", "DR", "TR", "SE"))


def deck_kind(factions) -> str:
    codes = {faction.value for faction in factions}
    return "Claim 1" if codes <= CLAIM_1 else "Claim 2" if codes <= CLAIM_2 else "mixed"


def compare_greedy(task: tuple[int, int]) -> tuple[str, int, int, str | None]:
    """(players and deck, games, positions, first difference or None) for a batch."""
    seed, players = task
    rng = random.Random(seed)
    sets = legal_faction_sets(players)
    if players == 2:  # Claim 1, Claim 2 or mixed, in turn over the batches
        kind = ("Claim 1", "Claim 2", "mixed")[seed // 3 % 3]
        sets = [factions for factions in sets if deck_kind(factions) == kind]
    positions = 0
    for _ in range(GAMES_PER_TASK):
        settings = Settings(players, rng.choice(sets), rng.randrange(players))
        deck = shuffled_deck(settings.factions, rng)
        state, game = new_game(settings, deck), KnowingGame.deal(settings, deck)
        explore = rng.random()
        while state.to_act is not None:
            code = decide(game)
            wanted = greedy(observe(state, state.to_act), rng)
            positions += 1
            if DECISIONS[code] != wanted:
                where = f"phase {state.phase} round {state.round} seat {state.to_act}"
                return "", 0, positions, f"seed {seed}, {where}: {DECISIONS[code]} != {wanted}"
            if rng.random() < explore:
                code = rng.choice(game.legal_decisions())
            state = apply(state, DECISIONS[code])
            game.apply(code)
    return f"{players} players, {deck_kind(settings.factions)}", GAMES_PER_TASK, positions, None


def main_greedy(args) -> None:
    totals: dict[str, list[int]] = {}
    done = task = 0
    with Pool(args.processes) as pool, tqdm(total=args.decisions, unit="position") as bar:
        while done < args.decisions:
            tasks = [(args.seed * 1_000_000 + task + n, 2 + (task + n) % 3) for n in range(6)]
            task += len(tasks)
            for where, games, positions, difference in pool.imap_unordered(compare_greedy, tasks):
                if difference is not None:
                    sys.exit(f"the compact greedy decides otherwise: {difference}")
                counts = totals.setdefault(where, [0, 0])
                counts[0] += games
                counts[1] += positions
                done += positions
                bar.update(positions)
    print(f"{'players, deck':<20} {'games':>7} {'positions':>10}  every decision equal")
    for where, (games, positions) in sorted(totals.items()):
        print(f"{where:<20} {games:>7,} {positions:>10,}")
    print(f"{'all':<20} {sum(g for g, _ in totals.values()):>7,} {done:>10,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, help="at least this many (1e6; --greedy 1e5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--greedy", action="store_true", help="compare the compact greedy")
    args = parser.parse_args()
    if args.greedy:
        args.decisions = args.decisions or 100_000
        main_greedy(args)
        return
    args.decisions = args.decisions or 1_000_000
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
