"""AI strength: a tournament between the levels of `service.ai` over random legal decks.

    .venv/bin/python bench/ladder.py --players 2 --pairing greedy:random --games 400
    .venv/bin/python bench/ladder.py --players 3 --pairing expert:greedy --games 150
    .venv/bin/python bench/ladder.py --pairing expert:greedy --expert-seconds 0.2
    .venv/bin/python bench/ladder.py --players 4 --pairing expert+greedy:greedy --games 100
    .venv/bin/python bench/ladder.py --baseline 2bdc64e --games 300 --expert-seconds 0.2

A pairing `a:b` seats one `a` (the first side with 4 players: seats 0 and 2) against
`b` in every other seat; with 4 players `a+c:b` seats a team of `a` and `c` against a
team of two `b`. Each deal is played once per seat rotation (twice with 2 or 4
players, with the sides swapped; three times with 3), so both levels hold the same
cards. Prints, per pairing, the share of games the `a` seat wins (a draw counts half)
with its 95% Wilson interval (the progress bar shows the share so far); then, per
level, the seconds per decision (mean, 95th percentile and maximum over the decisions
with a choice), measured around each call, and the CPU seconds alike.

`--from-phase2` has greedy play every seat's phase 1 and the levels phase 2 only:
two versions of a level run on the same seed then play the same positions, and
differ only in how they play phase 2 (with 2 players, where nothing is hidden).

`--expert-seconds` counts the process's CPU time (`--clock cpu`, the default), so that
a loaded machine slows the games but does not change the work an expert does in a
decision; `--clock wall` counts the monotonic clock, as `claim worker` does.

`--baseline REF` adds the level `baseline`: the expert of the git revision REF, in a
worktree of its own and a process of its own (bench/baseline.py), its time counted in
that process's CPU; the pairing defaults to `expert:baseline`. (2bdc64e is the expert
as released before issue 31.)
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from multiprocessing import Pool

from baseline import Baseline, checkout
from tqdm import tqdm

from service.ai import Budget, Expert, warm
from service.domain import (
    Decision,
    Settings,
    apply,
    new_game,
    observe,
    random_factions,
    result,
    shuffled_deck,
    side_of,
)
from service.games.turns import PLAYERS

BASELINE = "baseline"  # the level of the expert of another revision (`--baseline`)
LEVELS = (*PLAYERS, BASELINE)
CLOCKS = {"cpu": time.process_time, "wall": time.monotonic}
_baseline: Baseline | None = None  # this process's, when a pairing has the level


def use_baseline(tree) -> None:
    """In each process of the pool: the baseline's expert is the one of `tree`."""
    global _baseline
    _baseline = None if tree is None else Baseline(tree)


def play_deal(task: tuple) -> tuple[str, list[float], dict]:
    """Play one deal in every seat rotation: the pairing, the `a` side's score in each
    game (1 win, 1/2 draw, 0 loss), and each level's seconds per decision."""
    seed, hero, rival, players, deal, expert_seconds, clock, from_phase2 = task
    hero, partner = hero.split("+") if "+" in hero else (hero, hero)
    settings, deck = dealt(seed, players, deal)
    sides = 2 if players == 4 else players
    scores, seconds = [], defaultdict(list)
    for rotation in range(sides):
        hero_side = rotation
        levels = [
            rival if side_of(players, s) != hero_side else hero if s < 2 else partner
            for s in range(players)
        ]
        names = [f"{seed}:{players}:{deal}:{rotation}:{s}" for s in range(players)]
        rngs = [random.Random(name) for name in names]
        factions = [faction.value for faction in settings.factions]
        game = {"players": players, "factions": factions, "leader": settings.first_leader}
        game |= {"deck": [str(card) for card in deck], "decisions": []}
        state = new_game(settings, deck)
        while state.to_act is not None:
            seat = state.to_act
            view = observe(state, seat)
            if from_phase2 and state.phase == 1:
                decision = PLAYERS["greedy"](view, rngs[seat])
            else:
                start, cpu = time.perf_counter(), time.process_time()
                if levels[seat] == BASELINE:
                    text, cpu_taken = _baseline.decide(
                        game, seat, names[seat], expert_seconds, clock
                    )
                    decision = Decision.parse(text)
                else:
                    player = PLAYERS[levels[seat]]
                    decision = decide(player, view, rngs[seat], expert_seconds, CLOCKS[clock])
                    cpu_taken = time.process_time() - cpu
                if len(view.legal) > 1:
                    seconds[levels[seat]].append(time.perf_counter() - start)
                    seconds[levels[seat] + " cpu"].append(cpu_taken)
            game["decisions"].append((seat, str(decision)))
            state = apply(state, decision, seat)
        winner = result(state).winner
        scores.append(0.5 if winner is None else float(winner == hero_side))
    team = hero if partner == hero else f"{hero}+{partner}"
    return f"{team}:{rival}", scores, dict(seconds)


def dealt(seed: int, players: int, deal: int) -> tuple[Settings, tuple]:
    """The settings and shuffled deck of the deal numbered `deal` of `seed`."""
    rng = random.Random(f"{seed}:{players}:{deal}")
    settings = Settings(players, random_factions(players, rng), rng.randrange(players))
    return settings, shuffled_deck(settings.factions, rng)


def decide(player, view, rng, expert_seconds: float | None, clock):
    """`player`'s decision; an expert's within `expert_seconds` (None: its fixed work
    budget) on `clock`: this process's CPU time, so that the load of the machine does
    not change the work done, or its monotonic clock, as `claim worker` gives it."""
    if isinstance(player, Expert) and expert_seconds is not None:
        return player(view, rng, Budget(expert_seconds, clock))
    return player(view, rng)


def wilson(score: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (draws as halves)."""
    if games == 0:
        return 0.0, 1.0
    p = score / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing (whole deals)")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument(
        "--pairing",
        action="append",
        help="a:b, one level against the other (repeatable; default greedy:random)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--expert-seconds",
        type=float,
        default=None,
        help="the expert's time per decision (default: its fixed work budget)",
    )
    parser.add_argument(
        "--clock",
        choices=tuple(CLOCKS),
        default="cpu",
        help="what --expert-seconds counts: the process's CPU time (default) or wall time",
    )
    parser.add_argument(
        "--from-phase2",
        action="store_true",
        help="greedy plays every seat's phase 1, the levels phase 2 only",
    )
    parser.add_argument(
        "--baseline",
        metavar="REF",
        help="the level `baseline`: the expert of this git revision (default pairing:"
        " expert:baseline)",
    )
    args = parser.parse_args()
    default = "expert:baseline" if args.baseline else "greedy:random"
    pairings = [p.split(":") for p in args.pairing or [default]]
    levels = LEVELS if args.baseline else tuple(PLAYERS)
    for pair in pairings:
        team = pair[0].split("+") if args.players == 4 else pair[:1]
        if len(pair) != 2 or len(team) > 2 or not {*team, pair[1]} <= set(levels):
            parser.error(
                f"a pairing is two of {', '.join(levels)} joined by ':'"
                " (with 4 players, the first may be a team: a+b)"
            )
    rotations = 2 if args.players == 4 else args.players
    deals = max(1, math.ceil(args.games / rotations))
    tasks = [
        (args.seed, a, b, args.players, deal, args.expert_seconds, args.clock, args.from_phase2)
        for a, b in pairings
        for deal in range(deals)
    ]
    scores, seconds = defaultdict(list), defaultdict(list)
    warm()  # the compiled rollouts, loaded before the processes fork: not in their times
    tree = None
    if args.baseline:
        tree = checkout(args.baseline)
        Baseline(tree).warm()
    with Pool(args.processes, initializer=use_baseline, initargs=(tree,)) as pool:
        bar = tqdm(total=len(tasks) * rotations, unit="game", file=sys.stderr)
        for pairing, deal_scores, deal_seconds in pool.imap_unordered(play_deal, tasks):
            scores[pairing] += deal_scores
            for level, values in deal_seconds.items():
                seconds[level] += values
            bar.update(len(deal_scores))
            bar.set_postfix_str(f"{pairing} {statistics.fmean(scores[pairing]):.1%}")
        bar.close()
    budget = "fixed work"
    if args.expert_seconds is not None:
        budget = f"{args.expert_seconds} s ({args.clock} time)"
    print(f"{args.players} players, seed {args.seed}, expert's budget per decision: {budget}")
    if tree is not None:
        print(f"baseline: the expert of {args.baseline} ({tree.name[:12]})")
    if args.from_phase2:
        print("phase 1 played by greedy at every seat, phase 2 by the levels")
    print(f"{'pairing':<22} {'games':>6} {'a wins':>7}  95% interval")
    for pairing, values in scores.items():
        low, high = wilson(sum(values), len(values))
        share = sum(values) / len(values)
        print(f"{pairing:<22} {len(values):>6} {share:>7.1%}  {low:.1%} - {high:.1%}")
    print(f"{'level':<12} {'decisions':>9} {'mean s':>9} {'p95 s':>9} {'max s':>9}")
    for name in [name for level in LEVELS for name in (level, level + " cpu")]:
        values = seconds.get(name)
        if values:
            print(
                f"{name:<12} {len(values):>9} {statistics.fmean(values):>9.4f}"
                f" {percentile(values, 0.95):>9.4f} {max(values):>9.4f}"
            )


if __name__ == "__main__":
    main()
