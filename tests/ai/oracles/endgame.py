"""The oracle of the compiled endgame searches: exact play of a 2-player phase 2 in
plain Python.

In phase 2 the draw pile is empty and every card is in a hand or played, and played
cards are public (RULES.md 5 and 8). With 2 players the opponent's hand is therefore
the deck less the seat's own hand and every played card: the seat knows the whole
state, and the rest of the game is a finite game of perfect information.
`solve` searches it to the end with alpha-beta on the outcome (win 1, draw 1/2,
loss 0), within a budget of positions, or until a time's up that the caller tells
(the solver reads no clock). A line ends as soon as one seat is sure of a majority of
the factions (`_decided`): about half the positions to search with 8 to 11 cards
left in hand (bench/endgame.py). It plays in the compact engine (`compact.py`).
The expert and the analysis search compiled (`service/ai/compiled_endgame.py`, the
same searches in the same order, about 13 times as fast), held by
tests/ai/test_compiled.py to the decision, the value and the count of positions of
these.
"""

from __future__ import annotations

from collections.abc import Callable

from service.ai.codes import DECISIONS
from service.ai.compiled_endgame import DRAW, LOSS, WIN, Solution
from service.domain import State

from .compact import CompactGame, winning_at
from .compact_greedy import KnowingGame, decide

CHECK_EVERY = 256  # positions between two asks whether time is up: 5 to 25 ms


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
    return solve_game(CompactGame.from_state(state), side, budget, time_up)


def solve_game(
    root: CompactGame,
    side: int,
    budget: float = 50_000,
    time_up: Callable[[], bool] | None = None,
) -> Solution | None:
    """`solve` of a 2-player phase 2 in the compact engine (`root` left as it is)."""
    searched = 0
    bounds: dict[tuple, tuple[float, float]] = {}  # position -> (lowest, highest) value

    def value(node: CompactGame, alpha: float, beta: float) -> float:
        nonlocal searched
        searched += 1
        if searched > budget:
            raise _OutOfBudget
        if time_up is not None and searched % CHECK_EVERY == 0 and time_up():
            raise _OutOfBudget
        if node.to_act is None:
            return outcome(node.winner(), side)
        key = _position(node) if not node.trick_cards else None
        if key is not None:
            if key not in bounds and (decided := _decided(node)) is not None:
                bounds[key] = (won := outcome(decided, side)), won
                return won
            low, high = bounds.get(key, (LOSS, WIN))
            if low >= beta or low == high:
                return low
            if high <= alpha:
                return high
            alpha, beta = max(alpha, low), min(beta, high)
        start = alpha, beta
        mine = node.to_act == side
        best = LOSS if mine else WIN
        for code in _ordered(node):
            score = value(_after(node, code), alpha, beta)
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
        code, best = _best_at(root, lambda child, best: value(child, max(best, LOSS), WIN))
    except _OutOfBudget:
        return None
    return Solution(DECISIONS.get(code), best, searched)


def exploit(
    state: State,
    side: int,
    budget: float = 50_000,
    time_up: Callable[[], bool] | None = None,
) -> Solution | None:
    """The best decision for the acting seat, on `side`, against an opponent that
    plays greedy: a search over this side's decisions alone, the other's replies being
    greedy's (`compact_greedy.decide`), for a game lost against perfect play that a
    greedy opponent may still lose. Its value is the outcome against greedy; None if
    the search does not end within `budget` positions or before `time_up()`."""
    searched = 0
    known: dict[tuple, float] = {}  # position between rounds -> value

    def value(node: KnowingGame) -> float:
        nonlocal searched
        while node.to_act is not None and node.to_act != side:
            node.apply(decide(node))
        if node.to_act is None:
            return outcome(node.winner(), side)
        if not node.trick_cards and (decided := _decided(node)) is not None:
            return outcome(decided, side)
        searched += 1
        if searched > budget or (time_up is not None and searched % CHECK_EVERY == 0 and time_up()):
            raise _OutOfBudget
        key = _position(node) if not node.trick_cards else None
        if key in known:
            return known[key]
        best = LOSS
        for code in _ordered(node):
            best = max(best, value(_after(node, code)))
            if best == WIN:
                break
        if key is not None:
            known[key] = best
        return best

    root = KnowingGame.from_state(state)
    try:
        code, best = _best_at(root, lambda child, _: value(child))
    except _OutOfBudget:
        return None
    return Solution(DECISIONS.get(code), best, searched)


def _best_at(
    root: CompactGame, value: Callable[[CompactGame, float], float]
) -> tuple[int | None, float]:
    """The root's best decision and its value, `value(child, best so far)` of each,
    in `_ordered` order until one wins."""
    best_code, best = None, -1.0
    for code in _ordered(root):
        score = value(_after(root, code), best)
        if score > best:
            best_code, best = code, score
        if best == WIN:
            break
    return best_code, best


def _after(node: CompactGame, code: int) -> CompactGame:
    child = node.copy()
    child.apply(code)
    return child


def _decided(node: CompactGame) -> int | None:
    """The seat sure to win a 2-player game between two rounds of phase 2 whatever is
    played: it holds more cards of a majority of the factions than the other can still
    reach (score piles only grow; Gnomes in front may still be removed by Giants, and
    Trolls set aside and every card in hand may go to either seat). None while
    neither seat is sure of it."""
    counts = [[0] * 10 for _ in range(2)]  # per seat: its scored cards of each faction
    for seat, pile in enumerate(node.score_piles):
        for card in pile:
            counts[seat][card // 10] += 1
    open_ = [0] * 10  # per faction: cards that may still go to either seat
    for cards in (*node.hands, *node.gnomes_in_front, node.trolls_aside):
        for card in cards:
            open_[card // 10] += 1
    sure = [0, 0]
    for faction in node.factions:
        mine, theirs = counts[0][faction], counts[1][faction]
        if mine > theirs + open_[faction]:
            sure[0] += 1
        elif theirs > mine + open_[faction]:
            sure[1] += 1
    majority = len(node.factions) // 2 + 1
    for seat in (0, 1):
        if sure[seat] >= majority:
            return seat
    return None


def _position(node: CompactGame) -> tuple:
    """What the rest of a 2-player phase 2 depends on, between rounds: the hands, who
    leads, and the piles that will be scored, as multisets."""
    return (
        tuple(map(tuple, node.hands)),
        node.to_act,
        tuple(tuple(sorted(pile)) for pile in node.score_piles),
        tuple(tuple(sorted(gnomes)) for gnomes in node.gnomes_in_front),
        tuple(sorted(node.trolls_aside)),
    )


def _ordered(node: CompactGame) -> list[int]:
    """The legal decisions, likeliest best first so that alpha-beta cuts early: a
    leader's highest cards; a follower's cheapest winning cards, then its lowest."""
    codes = node.legal_decisions()  # plays: a play's code is its card
    if not node.trick_cards:
        return sorted(codes, key=lambda card: -(card % 10))
    trick = node.trick_cards

    def key(card: int) -> tuple[bool, int]:
        wins = winning_at(trick + [card]) == len(trick)
        return (not wins, card % 10)

    return sorted(codes, key=key)


def outcome(winner: int | None, side: int) -> float:
    """The value for `side` of a game that `winner` won (None: a draw): WIN, DRAW or
    LOSS."""
    if winner is None:
        return DRAW
    return WIN if winner == side else LOSS
