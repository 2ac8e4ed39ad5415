"""Exact play of a 2-player phase 2, where nothing is hidden.

In phase 2 the draw pile is empty and every card is in a hand or played, and played
cards are public (RULES.md 5 and 8). With 2 players the opponent's hand is therefore
the deck less the seat's own hand and every played card: the seat knows the whole
state, and the rest of the game is a finite game of perfect information.
`solve` searches it to the end with alpha-beta on the outcome (win 1, draw 1/2,
loss 0), through the rules engine itself, within a budget of positions, or until a
time's up that the caller tells (the solver reads no clock).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from service.domain import Decision, Play, State, apply, legal_decisions, result
from service.domain.cards import CODE_ORDER
from service.domain.powers import winning_play

WIN, DRAW, LOSS = 1.0, 0.5, 0.0
CHECK_EVERY = 256  # positions between two asks whether time is up: 5 to 25 ms


class Solution(NamedTuple):
    """The best decision and the outcome it secures against any reply."""

    decision: Decision
    value: float  # WIN, DRAW or LOSS for the side that solved
    positions: int  # positions searched


class _OutOfBudget(Exception):
    pass


def solve(
    state: State,
    side: int,
    budget: float = 50_000,
    time_up: Callable[[], bool] | None = None,
) -> Solution | None:
    """The best decision for the acting seat, on `side`, with the game's value for
    that side when both sides play perfectly; None if more than `budget` positions
    would have to be searched, or if `time_up()` says so before the search ends."""
    searched = 0
    bounds: dict[tuple, tuple[float, float]] = {}  # position -> (lowest, highest) value

    def value(node: State, alpha: float, beta: float) -> float:
        nonlocal searched
        searched += 1
        if searched > budget:
            raise _OutOfBudget
        if time_up is not None and searched % CHECK_EVERY == 0 and time_up():
            raise _OutOfBudget
        if node.to_act is None:
            return outcome(node, side)
        key = _position(node) if not node.trick else None
        if key is not None:
            low, high = bounds.get(key, (LOSS, WIN))
            if low >= beta or low == high:
                return low
            if high <= alpha:
                return high
            alpha, beta = max(alpha, low), min(beta, high)
        start = alpha, beta
        mine = node.to_act == side
        best = LOSS if mine else WIN
        for decision in _ordered(node):
            score = value(apply(node, decision), alpha, beta)
            if mine:
                best = max(best, score)
                alpha = max(alpha, score)
            else:
                best = min(best, score)
                beta = min(beta, score)
            if alpha >= beta:
                break
        if key is not None:
            low, high = bounds.get(key, (LOSS, WIN))
            if best <= start[0]:
                high = min(high, best)  # failed low: an upper bound
            elif best >= start[1]:
                low = max(low, best)  # failed high: a lower bound
            else:
                low = high = best
            bounds[key] = (low, high)
        return best

    try:
        best_decision, best = None, -1.0
        for decision in _ordered(state):
            score = value(apply(state, decision), max(best, LOSS), WIN)
            if score > best:
                best_decision, best = decision, score
            if best == WIN:
                break
    except _OutOfBudget:
        return None
    return Solution(best_decision, best, searched)


def _position(state: State) -> tuple:
    """What the rest of a 2-player phase 2 depends on, between rounds: the hands, who
    leads, and the piles that will be scored, as multisets."""
    return (
        state.hands,
        state.to_act,
        tuple(tuple(sorted(pile, key=CODE_ORDER)) for pile in state.score_piles),
        tuple(tuple(sorted(gnomes, key=CODE_ORDER)) for gnomes in state.gnomes_in_front),
        tuple(sorted(state.trolls_aside, key=CODE_ORDER)),
    )


def _ordered(state: State) -> list[Decision]:
    """The legal decisions, likeliest best first so that alpha-beta cuts early: a
    leader's highest cards; a follower's cheapest winning cards, then its lowest."""
    decisions = legal_decisions(state)
    if not state.trick:
        return sorted(decisions, key=lambda d: -d.card.value)
    seat = state.to_act

    def key(decision: Decision) -> tuple[bool, int]:
        wins = winning_play(state.trick + (Play(seat, decision.card),)).seat == seat
        return (not wins, decision.card.value)

    return sorted(decisions, key=key)


def outcome(state: State, side: int) -> float:
    """A finished game's value for `side`: WIN, DRAW or LOSS."""
    winner = result(state).winner
    if winner is None:
        return DRAW
    return WIN if winner == side else LOSS
