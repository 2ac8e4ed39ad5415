"""The expert's decisions against those of a git revision's expert, position by position.

    .venv/bin/python bench/decisions.py [--baseline main] [--every 10]

For a change that should leave the expert's play as it was (a refactor, an engine
moved): at positions of the conformance games (tests/conformance/games.jsonl) with
more than one legal decision, every 2-player phase-2 position (where the endgame
searches and their last resort decide) and every `--every`th other one, it asks the
expert of this tree and the expert of the revision `--baseline` (bench/baseline.py:
checked out into a worktree, asked in a process of its own) for their decision, each
with its fixed work budget and a `random.Random` named after the position. Prints, per
kind of position and per way this tree's expert decided it (searched, or by its last
resort `expert.best_playout`), how many decisions were the same and how many differed,
then the first positions that differed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

from baseline import Baseline, checkout
from tqdm import tqdm

from service.ai import Expert, expert
from service.domain import Decision, Settings, apply, new_game, observe

CONFORMANCE = Path(__file__).resolve().parents[1] / "tests" / "conformance" / "games.jsonl"


def positions(every: int):
    """(name, kind, game as bench/baseline.py reads it, state) of the positions
    compared, in the order of the conformance games."""
    for line in CONFORMANCE.open(encoding="utf-8"):
        game = json.loads(line)
        settings = Settings(game["players"], game["factions"], game["first_leader"])
        state = new_game(settings, game["deck"])
        asked = {"players": game["players"], "factions": game["factions"]}
        asked |= {"leader": game["first_leader"], "deck": [str(c) for c in state.deck]}
        decisions = []
        for number, step in enumerate(game["steps"]):
            endgame = game["players"] == 2 and state.phase == 2
            if len(step["legal"]) > 1 and (endgame or number % every == 0):
                kind = "2-player phase 2" if endgame else "other"
                yield f"{game['id']}/{number}", kind, asked | {"decisions": decisions[:]}, state
            decision = Decision.parse(step["move"])
            decisions.append((state.to_act, str(decision)))
            state = apply(state, decision)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="main", metavar="REF", help="a git revision")
    parser.add_argument("--every", type=int, default=10, help="one other position in this many")
    args = parser.parse_args()
    baseline = Baseline(checkout(args.baseline))
    baseline.warm()
    expert.warm()
    resorted = []  # the positions this tree's expert decided by its last resort
    best_playout = expert.best_playout
    expert.best_playout = lambda state, side: resorted.append(1) or best_playout(state, side)
    player, counts, differing = Expert(), Counter(), []
    for name, kind, game, state in tqdm(list(positions(args.every)), file=sys.stderr):
        seat, before = state.to_act, len(resorted)
        now = str(player(observe(state, seat), random.Random(name)))
        then, _ = baseline.decide(game, seat, name, None, "cpu")
        how = "last resort" if len(resorted) > before else "searched"
        counts[kind, how, "same" if now == then else "differed"] += 1
        if now != then:
            differing.append(f"{name}: {now}, {args.baseline}: {then}")
    print(f"the expert's decisions against {args.baseline}'s, fixed work budget, same seeds")
    print(f"{'positions':<18} {'decided by':<12} {'same':>6} {'differed':>9}")
    for kind, how in sorted({key[:2] for key in counts}):
        same, other = counts[kind, how, "same"], counts[kind, how, "differed"]
        print(f"{kind:<18} {how:<12} {same:>6} {other:>9}")
    for line in differing[:20]:
        print(line)


if __name__ == "__main__":
    main()
