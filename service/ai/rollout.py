"""Rollouts: a sampled game played to its end by the greedy player at every seat.

The expert builds whole games itself (`determinize.py`) and then needs every seat's
decisions in them, thousands of times per decision. They are played on the compact
engine (`compact.py`) by the compact greedy (`compact_greedy.py`), which decides as
the greedy player would from each seat's observation, with each seat's knowledge
kept as the game goes instead of an observation built at every step.

With 2 players the last `SOLVED_TAIL` rounds of phase 2 hide nothing and are small
enough to search: the rollout takes perfect play's outcome there (`endgame.py`), as
the expert itself plays them, instead of greedy's. It costs about a sixth more time a
rollout (bench/rollouts.py); bench/endgame.py prints how often a playout ends as
perfect play does, with and without it.
"""

from __future__ import annotations

from service.domain.scoring import winning_side

from .compact_greedy import KnowingGame, decide
from .endgame import solve_game

MARGIN = 0.2  # weight of the faction margin in a rollout's score
SOLVED_TAIL = 3  # cards in each hand from which a 2-player phase 2 is solved exactly


def rollout(world: KnowingGame, code: int, side: int) -> float:
    """`score` for `side` of the game after the decision `code` in `world` (left as
    it is), every seat then playing greedy to the end. With 2 players, the outcome of
    the last `SOLVED_TAIL` rounds is perfect play's instead of greedy's."""
    game = world.copy()
    game.apply(code)
    return score(game, side, finish(game, side))


def finish(game: KnowingGame, side: int) -> float | None:
    """Play `game` to its end with greedy at every seat; with 2 players, return
    `side`'s outcome when perfect play ends its last `SOLVED_TAIL` rounds (None with
    more players)."""
    won = None
    while game.to_act is not None:
        if won is None and _solved_tail(game):
            value = solve_game(game, game.to_act).value  # for the seat to act
            won = value if game.to_act == side else 1 - value
        game.apply(decide(game))
    return won


def _solved_tail(game: KnowingGame) -> bool:
    """Whether a 2-player phase 2 is between two of its last `SOLVED_TAIL` rounds."""
    return (
        game.players == 2
        and game.phase == 2
        and not game.trick_cards
        and len(game.hands[0]) <= SOLVED_TAIL
    )


def play_out(game: KnowingGame) -> None:
    """Every seat plays greedy until the game is over."""
    while game.to_act is not None:
        game.apply(decide(game))


def score(game: KnowingGame, side: int, won: float | None = None) -> float:
    """A finished game's outcome for `side` (1 win, 1/2 draw, 0 loss; `won` instead
    if given), plus `MARGIN` times its lead in factions over the best other side, as a
    share of the factions: the margin tells apart the many deals whose outcome one
    decision does not change."""
    keys = game.side_keys()
    factions = [key[0] for key in keys]
    mine = factions.pop(side)
    margin = (mine - max(factions)) / len(game.factions)
    return (outcome(keys, side) if won is None else won) + MARGIN * margin


def outcome(keys: tuple[tuple[int, int, int], ...], side: int) -> float:
    """1 if `side` won the game of these side keys, 1/2 a draw, 0 a loss."""
    winner = winning_side(keys)
    return 0.5 if winner is None else float(winner == side)
