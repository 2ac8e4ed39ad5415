"""The expert's analysis of a finished game: each decision judged from its seat.

For every decision, the deciding seat's chance of winning is estimated from that
seat's observation at the time (RULES.md 8), nothing else: the hidden cards are dealt
again consistently with what the seat knows (`determinize.py`), and in each deal the
decision played and greedy's best few are played out by greedy at every seat; every
candidate is played in the same deals (`method` "deals"). A 2-player phase 2 hides
nothing: from `ENDGAME_CARDS` cards a hand, the position (for perfect play's decision
and value) and the decision played are solved exactly ("exact":
`compiled_endgame.solve`) when each search fits `ENDGAME_POSITIONS` (measured: up to
45,000 positions a candidate at 9 cards, 20,000 to 90,000 at 10, 45,000 to 380,000 at
11, 100,000 to 260,000 at 12 and 13; about a million positions a second). Before
that, or past the budget, each
candidate is played out `PLAYOUTS` times with both seats playing greedy's decision
but a random one with the chance `WANDER` at each ("playouts", the candidates in the
same playouts: graded, where one greedy playout would tell 1 or 0). That estimate is
rough: it can be far from perfect play's (a sure win put at a third, in a test), so it
is shown, never marked.

The seat's chance before a decision is that of the best candidate (the expert's
preferred decision), after it that of the decision played; the difference is what the
decision lost, marked past `INACCURACY`, `MISTAKE` and `BLUNDER` when it is exact, or
sampled and more than `SIGNIFICANCE` standard errors of the paired differences of the
deals (a loss that the deals drawn could have made up is not marked). A chance counts a win as 1
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
from .greedy import greedy, ranked

ANALYSIS_VERSION = 4  # of the method and its figures below: a new one is a new analysis
# (3: the solver ends a line at a decided game, so more endgames fit its positions;
# 4: the deals drawn by the compiled sampler, `compiled.sample_deck`)
DEALS = 40  # sampled deals per decision, every candidate played in each
CANDIDATES = 3  # greedy's best decisions weighed beside the one played
ENDGAME_CARDS = 10  # a 2-player phase 2 solved exactly from this many cards a hand...
ENDGAME_POSITIONS = 100_000  # ... within this many positions per candidate (about 1 s)
PLAYOUTS = 60  # else randomized playouts per candidate...
WANDER = 0.2  # ... each decision of which is a random legal one with this chance
METHODS = ("exact", "deals", "playouts")  # how a decision was judged, surest first
# What a decision lost, in the seat's chance of winning, to be marked (more than):
INACCURACY, MISTAKE, BLUNDER = 0.10, 0.20, 0.30
SIGNIFICANCE = 2.0  # ... and in standard errors of the loss, when sampled
MARKS = ((BLUNDER, "blunder"), (MISTAKE, "mistake"), (INACCURACY, "inaccuracy"))


@dataclass(frozen=True, slots=True)
class Judged:
    """One decision as the expert judges it from the deciding seat's knowledge."""

    index: int  # among the game's decisions, 0 first
    seat: int
    phase: int
    side: int  # the seat's side: itself, or its team with 4 players
    played: Decision
    before: float  # the side's chance of winning with the best decision
    after: float  # ... with the decision played
    chances: tuple[float, ...]  # every side's chance after it, as the seat sees it
    best: Decision  # the expert's preferred decision (chance: `before`)
    method: str  # one of METHODS
    error: float  # the standard error of the loss: 0 when exact

    @property
    def exact(self) -> bool:
        return self.method == "exact"

    @property
    def loss(self) -> float:
        return self.before - self.after

    @property
    def mark(self) -> str | None:
        """ "blunder", "mistake", "inaccuracy", or None (always, for a rough estimate)."""
        if self.method == "playouts" or self.loss <= SIGNIFICANCE * self.error:
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
    the observing seat can tell (the candidates it solves may be fewer: `estimate`)."""
    candidates = [played] + [d for d in ranked(observation)[:CANDIDATES] if d != played]
    outcomes, method = estimate(observation, candidates, rng)
    chances = {d: tuple(map(_mean, zip(*deals, strict=True))) for d, deals in outcomes.items()}
    side = observation.side
    best = max(chances, key=lambda d: (chances[d][side], d == played))
    gaps = [b[side] - p[side] for b, p in zip(outcomes[best], outcomes[played], strict=True)]
    return Judged(
        index=index,
        seat=observation.seat,
        phase=observation.phase,
        side=side,
        played=played,
        before=chances[best][side],
        after=chances[played][side],
        chances=chances[played],
        best=best,
        method=method,
        error=0.0 if method == "exact" else _standard_error(gaps),
    )


def estimate(
    observation: Observation, candidates: Sequence[Decision], rng: random.Random
) -> tuple[dict[Decision, list[tuple[float, ...]]], str]:
    """Each candidate's wins per side in each deal that the observing seat cannot
    tell from the real game, or in each playout of a 2-player phase 2 (one when it is
    solved); and the method (one of `METHODS`). Solved, the candidates are the decision
    played (the first) and perfect play's, whichever greedy ranks it; or, that too big
    to solve, those before the first too big to solve, when one of them wins (none can
    do better)."""
    if observation.players == 2 and observation.phase == 2:
        state = sample_state(observation, rng)  # the only state there is
        if len(observation.hand) <= ENDGAME_CARDS:
            played = candidates[0]
            if (root := _solved(state)) is not None:
                chances, best = root
                solved = {best: [chances]}
                if played != best and (after := _solved(apply(state, played))) is not None:
                    solved[played] = [after[0]]
                if played in solved:
                    return solved, "exact"
            solved = {}
            for decision in candidates:
                if (after := _solved(apply(state, decision))) is None:
                    break  # too big to solve yet: the rest would be too
                solved[decision] = [after[0]]
            if len(solved) == len(candidates) or any(
                deals[0][observation.side] == 1.0 for deals in solved.values()
            ):
                return solved, "exact"
        seeds = [rng.random() for _ in range(PLAYOUTS)]
        return {
            d: [_shares(_wandered(apply(state, d), random.Random(seed))) for seed in seeds]
            for d in candidates
        }, "playouts"
    outcomes = {d: [] for d in candidates}
    worlds = states(observation, rng)
    for _ in range(DEALS):
        world = next(worlds)
        for decision in candidates:
            outcomes[decision].append(_shares(_played_out(apply(world, decision), rng)))
    return outcomes, "deals"


def _solved(state: State) -> tuple[tuple[float, ...], Decision | None] | None:
    """A 2-player state's chances under perfect play and the decision of perfect play
    (None at the end), or None past the budget."""
    if state.to_act is None:
        return _shares(state), None
    from .compiled_endgame import solve  # numba: loaded by the workers that analyse

    side = side_of(2, state.to_act)
    solution = solve(state, side, ENDGAME_POSITIONS)
    if solution is None:
        return None
    mine, theirs = solution.value, 1 - solution.value
    return ((mine, theirs) if side == 0 else (theirs, mine)), solution.decision


def _played_out(state: State, rng: random.Random) -> State:
    """`state` played to its end by greedy at every seat."""
    while state.to_act is not None:
        state = apply(state, greedy(_SeatView(state, state.to_act), rng))  # type: ignore[arg-type]
    return state


def _wandered(state: State, rng: random.Random) -> State:
    """`state` played to its end by greedy at every seat, but for a random legal
    decision with the chance `WANDER` at each."""
    while (seat := state.to_act) is not None:
        if rng.random() < WANDER:
            decision = rng.choice(legal_decisions(state))
        else:
            decision = greedy(_SeatView(state, seat), rng)  # type: ignore[arg-type]
        state = apply(state, decision)
    return state


class _SeatView:
    """The fields of `observe(state, seat)` that greedy reads, computed when read: five
    times faster than `observe`, which redacts the whole history at every step (a
    2-player game analysed in 10 s, not 50), for these playouts on the domain's `State`
    (the expert's own rollouts play on the compiled engine). The history is shown
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
    """Of the mean of `values`; unknown (infinite) for one value."""
    n = len(values)
    if n < 2:
        return math.inf
    mean = _mean(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
