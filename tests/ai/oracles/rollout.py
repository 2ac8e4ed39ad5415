"""The oracle of the compiled rollouts: a sampled game played on by the greedy player
at every seat, in plain Python.

The expert needs every seat's decisions in the games it deals itself
(`determinize.py`), thousands of times per decision; it plays them compiled
(`compiled.rollout`). Here the same rollouts play on the compact engine
(`compact.py`) with the compact greedy (`compact_greedy.py`), which decides as the
greedy player would from each seat's observation, and are scored as the compiled ones
are: with 2 or 3 players from phase 1, by each seat's chance of winning where phase 2
starts (the fitted worths of `service/ai/worths.py`), else by the played-out score.
tests/ai/test_compiled.py holds the compiled rollouts to these.
"""

from __future__ import annotations

import math

from service.ai.compiled import MARGIN
from service.ai.worths import LEADS, MOST, PHASE2_WORTHS, TOP, UNDEAD
from service.domain.scoring import winning_side

from .compact_greedy import KnowingGame, decide


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
