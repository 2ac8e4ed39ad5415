"""Fit the worths by which the expert's rollouts judge a phase 2 without playing it.

    .venv/bin/python bench/phase2_worths.py --players 2
    .venv/bin/python bench/phase2_worths.py --players 3
    .venv/bin/python bench/phase2_worths.py --players 2 --solve-from 8 --from-table

Plays `--games` games of greedy at every seat on the compact engine (the Python
oracles of tests/ai/oracles/), on random legal decks, and records each at the first
step of phase 2: every seat's features there (`rollout.features`, the features of
service/ai/worths.py: its hand, the Undead it scored in phase 1, whether it leads, the
factions it holds most or highest of); then the game's outcome (a draw shared by all;
with `--solve-from N`, a 2-player game is played by greedy until N cards are left in
each hand and then solved exactly, as the expert ends it). Fits the model of
`rollout.chances`: each seat's weight is the sum of its features' worths, and its
chance of winning the softmax of the seats' weights (with 2 players, the logistic of
the difference), by maximum likelihood (Adagrad, a little L2). Prints how often the
fitted model names the winner of a decided game and its log loss, on the games fitted
and on a tenth kept out of the fit (`--from-table`: the fit starts from `worths.py`'s
table, and that table's figures are printed first), and the worths as the table that
service/ai/worths.py holds, to paste there.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from multiprocessing import Pool
from pathlib import Path

from tqdm import tqdm

from service.ai.worths import FEATURES, LEADS, MOST, PHASE2_WORTHS, TOP, UNDEAD
from service.domain import FACTION_CARDS, Settings, random_factions, shuffled_deck

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.ai.oracles
from tests.ai.oracles.compact_greedy import KnowingGame, decide
from tests.ai.oracles.endgame import solve_game
from tests.ai.oracles.rollout import chances, features, outcome

CHUNK = 500  # games per task
FACTIONS = sorted(FACTION_CARDS, key=lambda faction: FACTION_CARDS[faction][0].index)


def play(task: tuple[int, int, int, int]) -> list[tuple[list[list[int]], list[float]]]:
    """`CHUNK` games of greedy at every seat: per game, every seat's features at the
    start of phase 2 and its share of the outcome, solved exactly from `solve_from`
    cards in hand with 2 players (0: played out by greedy to the end)."""
    seed, players, chunk, solve_from = task
    rng = random.Random(f"{seed}:{players}:{chunk}")
    samples = []
    for _ in range(CHUNK):
        settings = Settings(players, random_factions(players, rng), rng.randrange(players))
        game = KnowingGame.deal(settings, shuffled_deck(settings.factions, rng))
        while game.phase == 1:
            game.apply(decide(game))
        seats = features(game)
        while game.to_act is not None and (game.trick_cards or len(game.hands[0]) > solve_from):
            game.apply(decide(game))
        if game.to_act is None:
            keys = game.side_keys()  # a side is a seat with 2 or 3 players
            won = [outcome(keys, seat) for seat in range(players)]
        else:
            value = solve_game(game, game.to_act, math.inf).value  # for the acting seat
            won = [value, 1 - value] if game.to_act == 0 else [1 - value, value]
        samples.append((seats, won if 1.0 in won else [1 / players] * players))
    return samples


def fit(samples, epochs: int, rate: float, l2: float, start: list[float]) -> list[float]:
    """Maximum likelihood worths by Adagrad, one sample at a time, from `start`."""
    worths = list(start)
    squares = [1e-8] * FEATURES
    for _ in tqdm(range(epochs), desc="fit", unit="epoch"):
        for seats, shares in samples:
            gradient: dict[int, float] = {}
            for seat, share, chance in zip(seats, shares, chances(worths, seats), strict=True):
                for f in seat:
                    gradient[f] = gradient.get(f, 0.0) + share - chance
            for f, g in gradient.items():
                g -= l2 * worths[f]
                squares[f] += g * g
                worths[f] += rate * g / math.sqrt(squares[f])
    return worths


def log_loss(samples, worths: list[float]) -> float:
    """The mean negative log-likelihood of the outcomes."""
    total = 0.0
    for seats, shares in samples:
        total -= sum(
            share * math.log(chance)
            for share, chance in zip(shares, chances(worths, seats), strict=True)
            if share
        )
    return total / len(samples)


def named(samples, worths: list[float]) -> float:
    """The share of decided games whose winner the model gives the best chance."""
    right = decided = 0
    for seats, shares in samples:
        if max(shares) < 1:
            continue
        decided += 1
        ps = chances(worths, seats)
        right += ps.index(max(ps)) == shares.index(1.0)
    return right / decided


def _report(name: str, samples, held: int, worths: list[float]) -> None:
    print(
        f"{name}: winner named in {named(samples[:-held], worths):.1%} of the decided "
        f"games fitted, {named(samples[-held:], worths):.1%} of the {held} held out; "
        f"log loss {log_loss(samples[:-held], worths):.4f} fitted, "
        f"{log_loss(samples[-held:], worths):.4f} held out"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2, choices=(2, 3))
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--rate", type=float, default=0.05)
    parser.add_argument("--l2", type=float, default=0.001)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--solve-from",
        type=int,
        default=0,
        help="2 players: solve each game exactly once the hands hold this many cards "
        "(greedy plays phase 2 until then), for the outcome as experts play it; 0: never",
    )
    parser.add_argument(
        "--from-table",
        action="store_true",
        help="start the fit from worths.py's table (else from zero), and print how that "
        "table does on the same games",
    )
    args = parser.parse_args()
    if args.solve_from and args.players != 2:
        parser.error("--solve-from: only a 2-player phase 2 hides nothing")
    chunks = range(max(1, args.games // CHUNK))
    tasks = [(args.seed, args.players, chunk, args.solve_from) for chunk in chunks]
    samples = []
    with Pool(args.processes) as pool:
        for chunk in tqdm(pool.imap(play, tasks), total=len(tasks), desc="games", unit="x500"):
            samples.extend(chunk)
    held = len(samples) // 10  # the last tenth is kept out of the fit, to test it
    start = list(PHASE2_WORTHS[args.players]) if args.from_table else [0.0] * FEATURES
    if args.from_table:
        _report("worths.py's table", samples, held, start)
    worths = fit(samples[:-held], args.epochs, args.rate, args.l2, start)
    _report("fitted", samples, held, worths)
    print(f"    {args.players}: (")
    rows = [
        (f"{faction.value} 0-9", start, start + 10)
        for faction, start in zip(FACTIONS, range(0, 100, 10), strict=True)
    ]
    rows += [
        ("UNDEAD", UNDEAD, LEADS),
        ("LEADS", LEADS, MOST),
        ("MOST", MOST, TOP),
        ("TOP", TOP, FEATURES),
    ]
    for name, start, end in rows:
        print("        " + ", ".join(f"{w:+.2f}" for w in worths[start:end]) + f",  # {name}")
    print("    ),")


if __name__ == "__main__":
    main()
