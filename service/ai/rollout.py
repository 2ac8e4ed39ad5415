"""Rollouts: a sampled game played on by the greedy player at every seat.

The expert builds whole games itself (`determinize.py`) and then needs every seat's
decisions in them, thousands of times per decision. Here they are played on the
compact engine (`compact.py`) by the compact greedy (`compact_greedy.py`), which
decides as the greedy player would from each seat's observation, with each seat's
knowledge kept as the game goes instead of an observation built at every step. The
expert's searches play the same rollouts compiled (`compiled.rollout`, held to these);
this module keeps the worths, the features they are read from, and the rollout of a
2-player endgame's few decisions.

With 2 or 3 players, a rollout from phase 1 stops where phase 2 starts and is scored
by each seat's chance of winning from there: a softmax of worths of the seats' hands
(`PHASE2_WORTHS`), fitted by bench/phase2_worths.py to greedy's games (it names the
winner of 75% of decided 2-player greedy games from there, 67% of 3-player ones). A
chance is a smoother score than one playout of phase 2, and costs less: the search
gets more deals in its time.
"""

from __future__ import annotations

import math

from service.domain.scoring import winning_side

from .compact_greedy import KnowingGame, decide

MARGIN = 0.2  # weight of the faction margin in a rollout's score

# A seat's features at the start of phase 2: each card of its hand (its index), UNDEAD
# for each card it scored in phase 1 (Undead only), LEADS if it leads, and per faction
# (+ its rank) MOST if it holds more of its cards than any other seat, TOP if it holds
# its highest card.
UNDEAD, LEADS, MOST, TOP, FEATURES = 100, 101, 102, 112, 122
# Per number of players, each feature's worth (a log-odds), as fitted on 200,000 greedy
# games by `bench/phase2_worths.py --players 2`, then `--players 3`.
# fmt: off
PHASE2_WORTHS: dict[int, tuple[float, ...]] = {
    2: (
        +0.04, +0.06, +0.16, +0.21, +0.34, +0.42, +0.50, +0.49, +0.41, +0.30,  # DO 0-9
        +0.03, -0.01, -0.02, +0.02, +0.04, +0.08, +0.14, +0.19, +0.23, +0.13,  # DR 0-9
        +0.24, +0.16, +0.11, +0.05, +0.02, -0.05, -0.09, -0.16, -0.15, -0.06,  # DW 0-9
        +0.00, -0.27, +0.00, -0.22, +0.00, -0.04, +0.00, +0.21, +0.00, +0.06,  # GI 0-9
        +0.00, -0.20, +0.00, -0.19, +0.00, -0.03, +0.00, +0.22, +0.00, +0.12,  # GN 0-9
        -0.44, -0.40, -0.37, -0.33, -0.27, -0.19, -0.09, +0.03, +0.07, -0.01,  # GO 0-9
        +0.00, +0.00, -0.15, -0.14, -0.14, -0.07, +0.03, +0.15, +0.17, +0.07,  # KN 0-9
        -0.20, -0.20, -0.19, -0.17, -0.13, -0.03, +0.08, +0.23, +0.25, +0.06,  # SE 0-9
        -0.19, -0.16, -0.15, -0.14, -0.11, -0.03, +0.03, +0.10, +0.11, -0.05,  # TR 0-9
        -0.16, -0.14, -0.14, -0.11, -0.10, -0.01, +0.06, +0.16, +0.18, +0.31,  # UN 0-9
        +0.17,  # UNDEAD
        -0.03,  # LEADS
        +0.18, -0.18, +0.26, +0.15, +0.03, +0.05, +0.23, -0.05, +0.05, -0.03,  # MOST
        +0.36, +0.58, -0.29, +0.56, +0.27, +0.27, +0.59, +0.49, +0.43, +0.19,  # TOP
    ),
    3: (
        +0.14, +0.06, +0.13, +0.16, +0.25, +0.36, +0.55, +0.65, +0.71, +0.63,  # DO 0-9
        +0.06, +0.03, +0.03, +0.10, +0.14, +0.17, +0.23, +0.22, +0.30, +0.36,  # DR 0-9
        +0.21, +0.02, -0.07, -0.15, -0.22, -0.26, -0.30, -0.31, -0.34, -0.30,  # DW 0-9
        +0.00, -0.24, +0.00, -0.24, +0.00, -0.16, +0.00, +0.10, +0.00, +0.18,  # GI 0-9
        +0.00, -0.16, +0.00, -0.21, +0.00, -0.13, +0.00, +0.13, +0.00, +0.17,  # GN 0-9
        -0.36, -0.39, -0.39, -0.43, -0.43, -0.45, -0.44, -0.39, -0.31, -0.25,  # GO 0-9
        +0.00, +0.00, -0.14, -0.16, -0.13, -0.08, -0.02, +0.10, +0.19, +0.14,  # KN 0-9
        -0.13, -0.18, -0.20, -0.22, -0.20, -0.20, -0.11, +0.02, +0.08, +0.05,  # SE 0-9
        -0.16, -0.18, -0.18, -0.17, -0.17, -0.13, -0.07, -0.01, +0.09, -0.02,  # TR 0-9
        -0.15, -0.17, -0.20, -0.20, -0.18, -0.15, -0.10, +0.01, +0.10, +0.21,  # UN 0-9
        +0.20,  # UNDEAD
        -0.02,  # LEADS
        +0.11, -0.02, +0.27, +0.11, +0.11, +0.14, +0.24, +0.14, +0.12, +0.08,  # MOST
        +0.23, +0.51, -0.04, +0.66, +0.48, +0.41, +0.76, +0.70, +0.53, +0.48,  # TOP
    ),
}
# fmt: on


def rollout(world: KnowingGame, code: int, side: int) -> float:
    """`score` for `side` of the game after the decision `code` in `world` (left as
    it is), every seat then playing greedy to the end; or, from phase 1 with worths
    fitted for as many players, greedy to the start of phase 2 and the chance of
    winning there."""
    game = world.copy()
    game.apply(code)
    worths = PHASE2_WORTHS.get(game.players) if world.phase == 1 else None
    if worths is None:
        play_out(game)
        return score(game, side)
    while game.phase == 1:
        game.apply(decide(game))
    return chances(worths, features(game))[side]


def features(game: KnowingGame) -> list[list[int]]:
    """Every seat's features in `game` (at the start of phase 2)."""
    counts = [[0] * 10 for _ in game.hands]
    tops = [[-1] * 10 for _ in game.hands]
    for seat, hand in enumerate(game.hands):
        for card in hand:
            rank = card // 10
            counts[seat][rank] += 1
            tops[seat][rank] = max(tops[seat][rank], card % 10)
    seats = []
    for seat, hand in enumerate(game.hands):
        mine = hand + [UNDEAD] * len(game.score_piles[seat])
        if game.leader == seat:
            mine.append(LEADS)
        others = [other for other in range(game.players) if other != seat]
        for rank in range(10):
            if counts[seat][rank] > max(counts[other][rank] for other in others):
                mine.append(MOST + rank)
            if tops[seat][rank] > max(tops[other][rank] for other in others):
                mine.append(TOP + rank)
        seats.append(mine)
    return seats


def chances(worths: tuple[float, ...] | list[float], seats: list[list[int]]) -> list[float]:
    """Each seat's chance of winning as fitted by bench/phase2_worths.py: the softmax
    of its features' summed worths."""
    weights = [sum(worths[f] for f in seat) for seat in seats]
    top = max(weights)
    exps = [math.exp(weight - top) for weight in weights]
    total = sum(exps)
    return [e / total for e in exps]


def play_out(game: KnowingGame) -> None:
    """Every seat plays greedy until the game is over."""
    while game.to_act is not None:
        game.apply(decide(game))


def score(game: KnowingGame, side: int) -> float:
    """A finished game's outcome for `side` (1 win, 1/2 draw, 0 loss), plus `MARGIN`
    times its lead in factions over the best other side, as a share of the factions:
    the margin tells apart the many deals whose outcome one decision does not change."""
    keys = game.side_keys()
    factions = [key[0] for key in keys]
    mine = factions.pop(side)
    margin = (mine - max(factions)) / len(game.factions)
    return outcome(keys, side) + MARGIN * margin


def outcome(keys: tuple[tuple[int, int, int], ...], side: int) -> float:
    """1 if `side` won the game of these side keys, 1/2 a draw, 0 a loss."""
    winner = winning_side(keys)
    return 0.5 if winner is None else float(winner == side)
