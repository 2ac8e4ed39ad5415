"""Rollouts: a sampled game played to its end by the greedy player at every seat.

The expert builds whole games itself (`determinize.py`) and then needs every seat's
decisions in them, thousands of times per decision. They are played on the compact
engine (`compact.py`) by the compact greedy (`compact_greedy.py`), which decides as
the greedy player would from each seat's observation, with each seat's knowledge
kept as the game goes instead of an observation built at every step.
"""

from __future__ import annotations

from service.domain.scoring import winning_side

from .compact_greedy import KnowingGame, decide

MARGIN = 0.2  # weight of the faction margin in a rollout's score


def rollout(world: KnowingGame, code: int, side: int) -> float:
    """`score` for `side` of the game after the decision `code` in `world` (left as
    it is), every seat then playing greedy to the end."""
    game = world.copy()
    game.apply(code)
    play_out(game)
    return score(game, side)


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
