"""The expert's analysis of a finished game: each decision judged from its seat.

For every decision, the deciding seat's chance of winning is estimated from that
seat's observation at the time (RULES.md 8), nothing else: the hidden cards are dealt
again consistently with what the seat knows (`determinize.py`), and in each deal the
decision played and greedy's best few are played out by greedy at every seat; every
candidate is played in the same deals. A 2-player phase 2 hides nothing: there each
candidate is solved exactly (`endgame.py`) when the search is small enough (about 9
cards a hand), else played out once by greedy (deterministic: its verdict, 1 or 0).

The seat's chance before a decision is that of the best candidate (the expert's
preferred decision), after it that of the decision played; the difference is what the
decision lost, marked past `INACCURACY`, `MISTAKE` and `BLUNDER` when it is also more
than `SIGNIFICANCE` standard errors of the paired differences of the deals (a loss
that the deals drawn could have made up is not marked). A chance counts a win as 1
and a draw as the share of the sides that drew.

The work is fixed (`DEALS` per decision, `ENDGAME_POSITIONS`), and each decision's
deals are drawn from a `random.Random` seeded with the game's seed and the decision's
index: the same game gives the same analysis, in any process, in any order.
Changing any of these changes the analysis: `ANALYSIS_VERSION` says which it is.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from service.domain import (
    Card,
    Decision,
    Observation,
    Settings,
    State,
    apply,
    legal_decisions,
    new_game,
    observe,
    result,
    side_of,
)

from .determinize import sample_state, states
from .endgame import solve
from .greedy import greedy, ranked

ANALYSIS_VERSION = 1  # of the method and its figures below: a new one is a new analysis
DEALS = 40  # sampled deals per decision, every candidate played in each
CANDIDATES = 3  # greedy's best decisions weighed beside the one played
ENDGAME_POSITIONS = 20_000  # per candidate, for an exact 2-player phase 2
# What a decision lost, in the seat's chance of winning, to be marked (more than):
INACCURACY, MISTAKE, BLUNDER = 0.10, 0.20, 0.30
SIGNIFICANCE = 2.0  # ... and in standard errors of the loss, when sampled
MARKS = ((BLUNDER, "blunder"), (MISTAKE, "mistake"), (INACCURACY, "inaccuracy"))


@dataclass(frozen=True, slots=True)
class Judged:
    """One decision as the expert judges it from the deciding seat's knowledge."""

    index: int  # among the game's decisions, 0 first
    seat: int
    side: int  # the seat's side: itself, or its team with 4 players
    played: Decision
    before: float  # the side's chance of winning with the best decision
    after: float  # ... with the decision played
    chances: tuple[float, ...]  # every side's chance after it, as the seat sees it
    best: Decision  # the expert's preferred decision (chance: `before`)
    exact: bool  # solved exactly (a 2-player phase 2), not sampled
    error: float  # the standard error of the loss: 0 when exact, infinite for one playout

    @property
    def loss(self) -> float:
        return self.before - self.after

    @property
    def mark(self) -> str | None:
        """ "blunder", "mistake", "inaccuracy", or None."""
        if self.loss <= SIGNIFICANCE * self.error:
            return None
        return next((name for threshold, name in MARKS if self.loss > threshold), None)


def analyse(
    settings: Settings,
    deck: Sequence[Card],
    decisions: Sequence[tuple[int, Decision]],
    seed: str,
    start: int = 0,
    stop: int | None = None,
) -> Iterator[Judged]:
    """The decisions `start` to `stop` (all by default) of the game dealt from `deck`
    in which `decisions` (seat, decision) were made, each judged from its seat's
    observation only."""
    stop = len(decisions) if stop is None else stop
    state = new_game(settings, deck)
    for index, (seat, decision) in enumerate(decisions[:stop]):
        if index >= start:
            yield judge(observe(state, seat), decision, random.Random(f"{seed}/{index}"), index)
        state = apply(state, decision, seat=seat)


def judge(observation: Observation, played: Decision, rng: random.Random, index: int = 0) -> Judged:
    """`played`, one of `observation.legal`, against greedy's best few decisions, as
    the observing seat can tell."""
    candidates = [played] + [d for d in ranked(observation)[:CANDIDATES] if d != played]
    outcomes, exact = estimate(observation, candidates, rng)
    chances = {d: tuple(map(_mean, zip(*deals, strict=True))) for d, deals in outcomes.items()}
    side = observation.side
    best = max(candidates, key=lambda d: (chances[d][side], d == played))
    gaps = [b[side] - p[side] for b, p in zip(outcomes[best], outcomes[played], strict=True)]
    return Judged(
        index=index,
        seat=observation.seat,
        side=side,
        played=played,
        before=chances[best][side],
        after=chances[played][side],
        chances=chances[played],
        best=best,
        exact=exact,
        error=0.0 if exact else _standard_error(gaps),
    )


def estimate(
    observation: Observation, candidates: Sequence[Decision], rng: random.Random
) -> tuple[dict[Decision, list[tuple[float, ...]]], bool]:
    """Each candidate's wins per side in each deal that the observing seat cannot
    tell from the real game (one when nothing is hidden); and whether they are the
    game's values under perfect play."""
    if observation.players == 2 and observation.phase == 2:
        state = sample_state(observation, rng)  # the only state there is
        solved = {}
        for decision in candidates:
            if (chances := _solved(apply(state, decision))) is None:
                break  # too big to solve yet: the rest would be too
            solved[decision] = [chances]
        else:
            return solved, True
        return {d: [_shares(_played_out(apply(state, d), rng))] for d in candidates}, False
    outcomes = {d: [] for d in candidates}
    worlds = states(observation, rng)
    for _ in range(DEALS):
        world = next(worlds)
        for decision in candidates:
            outcomes[decision].append(_shares(_played_out(apply(world, decision), rng)))
    return outcomes, False


def _solved(state: State) -> tuple[float, ...] | None:
    """A 2-player state's chances under perfect play, or None past the budget."""
    if state.to_act is None:
        return _shares(state)
    side = side_of(2, state.to_act)
    solution = solve(state, side, ENDGAME_POSITIONS)
    if solution is None:
        return None
    mine, theirs = solution.value, 1 - solution.value
    return (mine, theirs) if side == 0 else (theirs, mine)


def _played_out(state: State, rng: random.Random) -> State:
    """`state` played to its end by greedy at every seat."""
    while state.to_act is not None:
        state = apply(state, greedy(_SeatView(state, state.to_act), rng))  # type: ignore[arg-type]
    return state


class _SeatView:
    """The fields of `observe(state, seat)` that greedy reads, computed when read: five
    times faster than `observe`, which redacts the whole history at every step (a
    2-player game analysed in 10 s, not 50), for these playouts on the domain's `State`
    (the expert's own rollouts play on the compact engine). The history is shown
    unredacted: greedy reads only its public parts and the seat's own
    (tests/ai/test_analysis.py holds the other fields equal to `observe`'s)."""

    __slots__ = ("seat", "state")

    def __init__(self, state: State, seat: int):
        self.state, self.seat = state, seat

    players = property(lambda self: self.state.settings.players)
    factions = property(lambda self: self.state.settings.factions)
    phase = property(lambda self: self.state.phase)
    leader = property(lambda self: self.state.leader)
    hand = property(lambda self: self.state.hands[self.seat])
    follower_pile = property(lambda self: self.state.follower_piles[self.seat])
    hand_sizes = property(lambda self: tuple(map(len, self.state.hands)))
    prizes = property(lambda self: self.state.prizes)
    trick = property(lambda self: self.state.trick)
    acquired = property(lambda self: self.state.acquired)
    discard = property(lambda self: self.state.discard)
    score_piles = property(lambda self: self.state.score_piles)
    gnomes_in_front = property(lambda self: self.state.gnomes_in_front)
    trolls_aside = property(lambda self: self.state.trolls_aside)
    removed = property(lambda self: self.state.removed)
    rounds = property(lambda self: self.state.rounds)

    @property
    def peek(self) -> Card | None:
        peek = self.state.peek
        if peek is not None and self.state.seer_choice and peek.seat == self.seat:
            return peek.card
        return None

    @property
    def legal(self) -> tuple[Decision, ...]:
        return legal_decisions(self.state) if self.state.to_act == self.seat else ()


def _shares(state: State) -> tuple[float, ...]:
    """A finished game's win per side: 1 to the winner, or shared by the sides that
    drew (those with the best key)."""
    final = result(state)
    if final.winner is not None:
        return tuple(float(side == final.winner) for side in range(len(final.side_keys)))
    top = max(final.side_keys)
    drawn = final.side_keys.count(top)
    return tuple(1 / drawn if key == top else 0.0 for key in final.side_keys)


def _mean(values) -> float:
    return sum(values) / len(values)


def _standard_error(values: list[float]) -> float:
    """Of the mean of `values`; unknown (infinite) for one value: one playout does not
    tell how sure it is, and a loss it shows is never marked."""
    n = len(values)
    if n < 2:
        return math.inf
    mean = _mean(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
