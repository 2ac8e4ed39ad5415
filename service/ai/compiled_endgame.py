"""Exact play of a 2-player phase 2, where nothing is hidden, on the compiled engine's
game arrays (`compiled.py`, numba).

In phase 2 the draw pile is empty and every card is in a hand or played, and played
cards are public (RULES.md 5 and 8). With 2 players the opponent's hand is therefore
the deck less the seat's own hand and every played card: the seat knows the whole
state, and the rest of the game is a finite game of perfect information. `solve`
searches it to the end with alpha-beta on the outcome (win 1, draw 1/2, loss 0);
`exploit`, for a game lost against perfect play, searches this side's decisions
against greedy's replies. A line ends as soon as one seat is sure of a majority of the
factions (`_decided`): about half the positions to search with 8 to 11 cards left in
hand (bench/endgame.py). Each search stops past a budget of positions, or when the
caller's `time_up()` says so.

The searches restate the Python oracle tests/ai/oracles/endgame.py in the same order,
held by tests/ai/test_compiled.py to its decision, value and count of positions, and
run about 13 times as fast, so the expert plays exactly (and, in a game lost against
perfect play, for greedy's mistakes) rounds earlier. A position between rounds is
remembered in a hash table of its own (a 64-bit hash of the hands, the seat to act and
the piles to be scored); numba reads no clock, so a search by time runs in slices of
`SLICE` positions, each starting again from the root with the table kept, and asks
the caller's clock between slices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from service.domain import Decision, State

from .codes import DECISIONS
from .compiled import (
    FACTIONS,
    GNOMES,
    HANDS,
    NOBODY,
    SCORES,
    TO_ACT,
    TRICK_CARDS,
    TRICK_COUNT,
    TROLLS,
    UNSEEN,
    WORK_SIZE,
    _decide,
    _winning_at,
    apply,
    from_state,
    legal,
    side_keys,
    winning_side,
)

WIN, DRAW, LOSS = 1.0, 0.5, 0.0
OUT = -1.0  # a search that ran out of its positions
SLICE = 8_192  # positions between two looks at the caller's clock: about 20 ms
TABLE_BITS = 18  # a table of 2**18 positions (6 MB)
PROBES = 8  # slots looked at for a position before one is overwritten
DEPTH = 32  # plays a search may look ahead: a 2-player phase 2 has 26 at most
SCRATCH = 36 + WORK_SIZE  # per depth: `_ordered`'s codes, sort keys, trick and legal codes


class Solution(NamedTuple):
    """The best decision and the outcome it secures against any reply (or, from
    `exploit`, against greedy's)."""

    decision: Decision
    value: float  # WIN, DRAW or LOSS for the side that solved
    positions: int  # positions searched


def solve(
    state: State, side: int, budget: float = 50_000, time_up: Callable[[], bool] | None = None
) -> Solution | None:
    """The best decision for the acting seat, on `side`, with the game's value for
    that side when both sides play perfectly; None past `budget` positions or once
    `time_up()` says so."""
    return _sliced(from_state(state), side, budget, time_up, against_greedy=False)


def exploit(
    state: State, side: int, budget: float = 50_000, time_up: Callable[[], bool] | None = None
) -> Solution | None:
    """The best decision for the acting seat, on `side`, against an opponent that
    plays greedy (`compiled._decide`), for a game lost against perfect play that a
    greedy opponent may still lose: its outcome against greedy; None past `budget`
    positions or `time_up()`."""
    return _sliced(from_state(state), side, budget, time_up, against_greedy=True)


def _sliced(game, side, budget, time_up, against_greedy: bool) -> Solution | None:
    """`_best_at` of `game` within `budget` positions, in slices of `SLICE` while
    `time_up` is given (each starting again from the root, the table kept)."""
    keys = np.zeros(1 << TABLE_BITS, dtype=np.uint64)
    lows, highs = np.empty(1 << TABLE_BITS), np.empty(1 << TABLE_BITS)
    games = np.empty((DEPTH, len(game)), dtype=np.int64)
    games[:] = game  # each depth's fields that phase 2 leaves alone, once
    scratch = np.empty((DEPTH, SCRATCH), dtype=np.int64)
    counter = np.zeros(2, dtype=np.int64)  # positions searched, and allowed
    searched = 0
    while True:
        allowed = budget - searched
        counter[0], counter[1] = 0, min(allowed, SLICE if time_up else 2**62)
        code, value = _best_at(games, scratch, side, keys, lows, highs, counter, against_greedy)
        searched += int(counter[0])
        if value != OUT:
            return Solution(DECISIONS.get(code), value, searched)
        if time_up is None or searched >= budget or time_up():
            return None


# Positions: their outcome, decisions in order, a decided game, the table -------------


@njit(cache=True)
def _outcome(g, side) -> float:
    winner = winning_side(side_keys(g))
    return DRAW if winner == -1 else WIN if winner == side else LOSS


@njit(cache=True)
def _ordered(g, scratch) -> int:
    """`endgame._ordered`, written to `scratch[:16]`: the legal decisions, likeliest
    best first so that alpha-beta cuts early: a leader's highest cards; a follower's
    cheapest winning cards, then its lowest. Returns how many."""
    codes, sort_keys, cards, work = scratch[:16], scratch[16:32], scratch[32:36], scratch[36:]
    n = legal(g, work)
    count = g[TRICK_COUNT]
    cards[:count] = g[TRICK_CARDS : TRICK_CARDS + count]
    for i in range(n):
        card = work[i]
        if count == 0:
            key = 9 - card % 10
        else:
            cards[count] = card
            wins = _winning_at(cards, count + 1) == count
            key = (0 if wins else 10) + card % 10
        at = i  # a stable insertion sort, as Python's sorted
        while at > 0 and sort_keys[at - 1] > key:
            sort_keys[at], codes[at] = sort_keys[at - 1], codes[at - 1]
            at -= 1
        sort_keys[at], codes[at] = key, card
    return n


@njit(cache=True)
def _decided(g) -> int:
    """`endgame._decided`: the seat sure to win whatever is played between two rounds
    (more cards of a majority of the factions than the other can still reach), or -1."""
    sure0 = sure1 = factions = 0
    for faction in range(10):
        if not g[FACTIONS + faction]:
            continue
        factions += 1
        mine = theirs = open_ = 0
        for card in range(faction * 10, faction * 10 + 10):
            mine += g[SCORES + card]
            theirs += g[SCORES + 100 + card]
            open_ += g[HANDS + card] + g[HANDS + 100 + card] + g[TROLLS + card]
            open_ += g[GNOMES + card] + g[GNOMES + 100 + card]
        if mine > theirs + open_:
            sure0 += 1
        elif theirs > mine + open_:
            sure1 += 1
    majority = factions // 2 + 1
    if sure0 >= majority:
        return 0
    if sure1 >= majority:
        return 1
    return -1


@njit(cache=True)
def _child(games, depth, code) -> None:
    """games[depth + 1] := games[depth] after the decision `code`: a copy of only the
    fields that a 2-player phase 2 changes (a whole game's copy is 18 KB)."""
    g, child = games[depth], games[depth + 1]
    child[: HANDS + 200] = g[: HANDS + 200]
    for start in (SCORES, GNOMES, UNSEEN):
        child[start : start + 200] = g[start : start + 200]
    child[TROLLS : TROLLS + 100] = g[TROLLS : TROLLS + 100]
    apply(child, code)


_FNV = np.uint64(1099511628211)


@njit(cache=True)
def _key(g) -> np.uint64:
    """A 64-bit hash of what the rest of a 2-player phase 2 depends on between rounds
    (`endgame._position`): the hands, the seat to act, the score piles, the Gnomes in
    front and the Trolls set aside. Never 0 (an empty slot)."""
    h = np.uint64(14695981039346656037)
    for start in (HANDS, HANDS + 100, SCORES, SCORES + 100, GNOMES, GNOMES + 100, TROLLS):
        for faction in range(10):
            if g[FACTIONS + faction]:
                for card in range(faction * 10, faction * 10 + 10):
                    h = (h ^ np.uint64(g[start + card])) * _FNV
        h = (h ^ np.uint64(255)) * _FNV
    h = (h ^ np.uint64(g[TO_ACT])) * _FNV
    # murmur3's finalizer: every bit of h in the low bits, which pick the slot
    h = (h ^ (h >> np.uint64(33))) * np.uint64(0xFF51AFD7ED558CCD)
    h = (h ^ (h >> np.uint64(33))) * np.uint64(0xC4CEB9FE1A85EC53)
    return (h ^ (h >> np.uint64(33))) | np.uint64(1)


@njit(cache=True)
def _find(keys, key) -> int:
    """The slot holding `key`, else the first empty one of its `PROBES`, else its
    first (to be overwritten)."""
    mask = len(keys) - 1
    first = np.int64(key & np.uint64(mask))  # (int64 with uint64 would be a float)
    for probe in range(PROBES):
        slot = (first + probe) & mask
        if keys[slot] == key or keys[slot] == 0:
            return slot
    return first


@njit(cache=True)
def _store(keys, lows, highs, key, low, high) -> None:
    slot = _find(keys, key)
    keys[slot], lows[slot], highs[slot] = key, low, high


# The searches ----------------------------------------------------------------------------


@njit(cache=True)
def _best_at(games, scratch, side, keys, lows, highs, counter, against_greedy):
    """`endgame._best_at`: the best decision at games[0] and its value, or value OUT:
    the root's decisions in `_ordered` order until one wins, each child's value by
    `_exploit_value` if `against_greedy` (the table keeping exact values, as lows),
    else by alpha-beta (`_solve_value`) within (the best so far, WIN)."""
    work, stakes = np.empty(WORK_SIZE, dtype=np.int64), np.empty(10)
    best_code, best = -1, -1.0
    codes = scratch[0, :16]
    for i in range(_ordered(games[0], scratch[0])):
        _child(games, 0, codes[i])
        if against_greedy:
            score = _exploit_value(games, scratch, side, keys, lows, counter, work, stakes)
        else:
            score = _solve_value(
                games, scratch, side, max(best, LOSS), WIN, keys, lows, highs, counter
            )
        if score == OUT:
            return -1, OUT
        if score > best:
            best_code, best = codes[i], score
        if best == WIN:
            break
    return best_code, best


@njit(cache=True)
def _solve_value(games, scratch, side, alpha_in, beta_in, keys, lows, highs, counter) -> float:
    """`solve_game`'s `value` of games[1] within (alpha_in, beta_in), the bounds of
    positions between rounds kept in the table; OUT past the budget. Its recursion
    is unrolled onto a stack of frames, one per depth (numba cannot cache a recursive
    function)."""
    alpha, beta = np.empty(DEPTH), np.empty(DEPTH)
    start_alpha, start_beta, best = np.empty(DEPTH), np.empty(DEPTH), np.empty(DEPTH)
    count, at = np.zeros(DEPTH, dtype=np.int64), np.zeros(DEPTH, dtype=np.int64)
    key = np.zeros(DEPTH, dtype=np.uint64)  # 0: not between rounds
    d, alpha[1], beta[1] = 1, alpha_in, beta_in
    while True:
        # Enter games[d]: its value at once, or its frame set up.
        counter[0] += 1
        if counter[0] > counter[1]:
            return OUT
        g = games[d]
        known, value = False, 0.0
        key[d] = 0
        if g[TO_ACT] == NOBODY:
            known, value = True, _outcome(g, side)
        elif g[TRICK_COUNT] == 0:  # between rounds: the bounds known of it
            key[d] = _key(g)
            slot = _find(keys, key[d])
            low, high = LOSS, WIN
            if keys[slot] == key[d]:
                low, high = lows[slot], highs[slot]
            else:
                decided = _decided(g)
                if decided >= 0:
                    low = high = WIN if decided == side else LOSS
                    _store(keys, lows, highs, key[d], low, high)
            if low >= beta[d] or low == high:
                known, value = True, low
            elif high <= alpha[d]:
                known, value = True, high
            else:
                alpha[d], beta[d] = max(alpha[d], low), min(beta[d], high)
        if not known:
            start_alpha[d], start_beta[d] = alpha[d], beta[d]
            best[d] = LOSS if g[TO_ACT] == side else WIN
            count[d], at[d] = _ordered(g, scratch[d]), 0
        while True:
            if known:  # games[d]'s value goes to the frame above
                d -= 1
                if d == 0:
                    return value
                if games[d][TO_ACT] == side:
                    best[d], alpha[d] = max(best[d], value), max(alpha[d], value)
                else:
                    best[d], beta[d] = min(best[d], value), min(beta[d], value)
                if alpha[d] >= beta[d]:
                    at[d] = count[d]  # a cut: no more children
            if at[d] < count[d]:  # the next child, entered above
                _child(games, d, scratch[d, at[d]])
                at[d] += 1
                alpha[d + 1], beta[d + 1] = alpha[d], beta[d]
                d += 1
                break
            if key[d]:  # every child seen: the bounds it proved
                slot = _find(keys, key[d])
                low, high = LOSS, WIN
                if keys[slot] == key[d]:
                    low, high = lows[slot], highs[slot]
                if best[d] <= start_alpha[d]:
                    high = min(high, best[d])  # failed low: an upper bound
                elif best[d] >= start_beta[d]:
                    low = max(low, best[d])  # failed high: a lower bound
                else:
                    low = high = best[d]
                _store(keys, lows, highs, key[d], low, high)
            known, value = True, best[d]


@njit(cache=True)
def _exploit_value(games, scratch, side, keys, values, counter, work, stakes) -> float:
    """`exploit`'s `value` of games[1]: the other seat plays greedy's decisions, this
    side each of its own; the best outcome it can reach, OUT past the budget. Its
    recursion unrolled onto a stack of frames, as `_solve_value`'s."""
    best = np.empty(DEPTH)
    count, at = np.zeros(DEPTH, dtype=np.int64), np.zeros(DEPTH, dtype=np.int64)
    key = np.zeros(DEPTH, dtype=np.uint64)
    d = 1
    while True:
        # Enter games[d]: greedy's replies, then its value at once or its frame.
        g = games[d]
        while g[TO_ACT] != NOBODY and g[TO_ACT] != side:
            apply(g, _decide(g, work, stakes))
        known, value = False, 0.0
        decided = _decided(g) if g[TO_ACT] != NOBODY and g[TRICK_COUNT] == 0 else -1
        if g[TO_ACT] == NOBODY:
            known, value = True, _outcome(g, side)
        elif decided >= 0:
            known, value = True, WIN if decided == side else LOSS
        else:
            counter[0] += 1
            if counter[0] > counter[1]:
                return OUT
            key[d] = _key(g) if g[TRICK_COUNT] == 0 else np.uint64(0)
            slot = _find(keys, key[d])
            if key[d] and keys[slot] == key[d]:
                known, value = True, values[slot]
            else:
                best[d] = LOSS
                count[d], at[d] = _ordered(g, scratch[d]), 0
        while True:
            if known:
                d -= 1
                if d == 0:
                    return value
                best[d] = max(best[d], value)
                if best[d] == WIN:
                    at[d] = count[d]
            if at[d] < count[d]:
                _child(games, d, scratch[d, at[d]])
                at[d] += 1
                d += 1
                break
            if key[d]:
                _store(keys, values, values, key[d], best[d], best[d])
            known, value = True, best[d]
