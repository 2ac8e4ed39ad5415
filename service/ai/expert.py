"""The expert player: search over the states the seat cannot tell apart.

Determinized Monte Carlo: deal the hidden cards again, consistently with everything
the seat knows (`determinize.py`); in each deal play a candidate decision and then the
rest of the game with the greedy player at every seat (`compiled.rollout`), with 2 or
3 players only up to phase 2, whose chances are judged from the hands (`worths.py`);
choose the candidate with the best average outcome.
Every candidate is played in the same deals, and the budget goes by successive
halving: after each pass the worse half of the candidates is dropped and the deals
for the rest are doubled.

With 2 players phase 2 hides nothing (`compiled_endgame.py`): the seat solves the rest
of the game exactly when that search is small enough. When the game is lost against
perfect play, it looks for a line that wins against greedy's replies (the likeliest
mistakes); otherwise, and failing that, it plays each decision out with greedy in the
one state there is.

`evaluate` estimates every legal decision's chance of winning, for the analysis of a
finished game, by playing each out to the end in sampled deals.

Every search plays on the compiled engine (`compiled.py`, numba), which this module
loads at its first search only.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from service.domain import (
    Decision,
    Observation,
    Settings,
    State,
    apply,
    legal_decisions,
    legal_faction_sets,
    new_game,
    observe,
    shuffled_deck,
)

from . import greedy
from .codes import CODES, DECISIONS
from .determinize import Plan, sample_state, worlds
from .worths import PHASE2_WORTHS

ENDGAME_SHARE = 0.8  # of a budget's seconds for the exact search
EXPLOIT_SHARE = 0.95  # of them until the search against greedy's replies ends
EVALUATE_DEALS = 64  # `evaluate`'s sampled deals by default
BATCH = 4  # deals sampled and played out between two looks at the clock


@dataclass(frozen=True, slots=True)
class Budget:
    """Time for one decision: `seconds` on `clock`, a clock the caller passes (the
    AI reads none of its own), such as `time.monotonic`."""

    seconds: float
    clock: Callable[[], float]


@dataclass(frozen=True, slots=True)
class Expert:
    """An expert player with a fixed work budget, so that its play depends on its
    inputs only: about `steps` simulated decisions per decision, and at most
    `endgame_positions` positions to solve a 2-player phase 2 exactly. Given a
    `Budget`, it searches by time instead: each pass of the halving gets its share of
    the seconds (at least two deals), the endgame solver most of them, and it answers
    when they are spent."""

    steps: int = 6_000
    endgame_positions: int = 6_000
    candidates: int = 13  # greedy's best decisions searched (13: every legal one)
    confidence: float = 1.0  # standard errors by which to beat greedy's choice

    def __call__(
        self, observation: Observation, rng: random.Random, budget: Budget | None = None
    ) -> Decision:
        """The decision with the best average outcome over the sampled deals."""
        legal = observation.legal
        if len(legal) == 1:
            return legal[0]
        side = observation.side
        if observation.players == 2 and observation.phase == 2:
            state = sample_state(observation, rng)  # the only state there is
            return self._endgame(state, side, budget)
        return self._search(observation, rng, side, budget)

    def _endgame(self, state: State, side: int, budget: Budget | None) -> Decision:
        """A 2-player phase 2: exact play if the search fits in `endgame_positions`,
        or in `ENDGAME_SHARE` of the budget's seconds. When every decision loses
        against perfect play, a decision that wins against greedy's replies, if the
        search for one ends in as many positions again (or by `EXPLOIT_SHARE` of the
        seconds). Otherwise, and failing that, the decision whose greedy playout
        scores best: the likeliest to profit from a mistake."""
        from . import compiled_endgame as exact  # numba: only processes that search load it

        limits = self._limits(budget)
        solution = exact.solve(state, side, *limits(ENDGAME_SHARE))
        if solution is not None and solution.value > exact.LOSS:
            return solution.decision
        if solution is not None:  # lost against perfect play: look for a swindle
            line = exact.exploit(state, side, *limits(EXPLOIT_SHARE))
            if line is not None and line.value > exact.LOSS:
                return line.decision
        return best_playout(state, side)

    def _limits(self, budget: Budget | None):
        """A function of a share of the budget's seconds: the positions and the
        `time_up` an endgame search gets by it. Without a budget, `endgame_positions`
        and no clock; with one, no count and the clock until that share of its
        seconds from now."""
        if budget is None:
            return lambda share: (self.endgame_positions, None)
        start = budget.clock()

        def limits(share: float) -> tuple[float, Callable[[], bool]]:
            until = start + budget.seconds * share
            return math.inf, lambda: budget.clock() >= until

        return limits

    def _search(
        self, observation: Observation, rng: random.Random, side: int, budget: Budget | None
    ) -> Decision:
        """Successive halving of greedy's next best candidates against its own choice
        (the baseline, played in every deal too) on shared sampled deals; the baseline
        stays unless the best candidate beats it clearly."""
        baseline, *rivals = map(CODES.get, greedy.ranked(observation)[: self.candidates])
        gains = {code: [] for code in rivals}  # per deal: score less the baseline's score
        length = _plays_left(observation)
        passes = max(1, math.ceil(math.log2(len(rivals) + 1)))
        deal = _dealer(observation, rng, side)
        deals = 0
        start = budget.clock() if budget else 0.0
        for done in range(1, passes + 1):
            # Each pass spends its share of the budget on the decisions left.
            least = deals + 2
            target = deals + max(2, self.steps // (passes * (len(rivals) + 1) * length))
            until = start + budget.seconds * done / passes if budget else 0.0
            while deals < least or (budget.clock() < until if budget else deals < target):
                batch = BATCH if budget else min(BATCH, max(target, least) - deals)
                scores = deal([baseline, *rivals], batch)
                deals += batch
                for at, code in enumerate(rivals, start=1):
                    gains[code] += (scores[:, at] - scores[:, 0]).tolist()
            rivals.sort(key=lambda code: sum(gains[code]), reverse=True)
            if len(rivals) == 1:
                break
            rivals = rivals[: (len(rivals) + 1) // 2]
        best = rivals[0]
        return DECISIONS[best if _clearly_positive(gains[best], self.confidence) else baseline]


def best_playout(state: State, side: int) -> Decision:
    """The legal decision of `state` (2 players, phase 2) whose playout with greedy at
    both seats scores best for `side` (`compiled.rollout`), the first on a tie."""
    from . import compiled  # numba: only processes that search load it (see `compiled`)

    world, played_out = compiled.from_state(state), np.empty(0)  # no worths: played out
    return max(
        legal_decisions(state), key=lambda d: compiled.rollout(world, CODES[d], side, played_out)
    )


def _dealer(observation: Observation, rng: random.Random, side: int):
    """A function of (codes, deals): the `compiled.rollout` scores of each decision of
    `codes` (array columns) in each of `deals` new sampled games (rows), played in
    the compiled engine (`compiled.scores`)."""
    from . import compiled  # numba: only processes that search load it (see `compiled`)

    plan = Plan.of(observation)
    generator = compiled.generator(rng.getrandbits(64))
    worths = np.array(PHASE2_WORTHS.get(observation.players, ()), dtype=np.float64)
    if observation.phase == 2:
        worths = worths[:0]

    def scores(codes: list[int], deals: int) -> np.ndarray:
        codes = np.array(codes, dtype=np.int64)
        deal = (plan.base, plan.first_leader, plan.history, plan.sampling, generator)
        return compiled.scores(codes, deals, side, worths, *deal)

    return scores


def evaluate(
    observation: Observation, seed: int | str, budget: int = EVALUATE_DEALS
) -> dict[Decision, float]:
    """Each legal decision's chance that the seat's side wins the game (a draw counts
    half), as the seat can estimate it from its observation alone: every decision is
    played out by greedy at every seat in the same `budget` sampled deals (one with 2
    players in phase 2, where nothing is hidden). A pure function of its inputs: the
    deals come from `random.Random(seed)`."""
    from . import compiled  # numba: only processes that search load it (see `compiled`)

    rng = random.Random(seed)
    side = observation.side
    if observation.players == 2 and observation.phase == 2:
        budget = 1
    deals = worlds(observation, rng)
    totals = dict.fromkeys(observation.legal, 0.0)
    for _ in range(budget):
        world = next(deals)
        for decision in totals:
            totals[decision] += compiled.outcome(world, CODES[decision], side)
    return {decision: total / budget for decision, total in totals.items()}


def warm() -> None:
    """Load the compiled rollouts and endgame searches (numba compiles them on their
    first call, or loads them from its cache): a process that forks work horses calls
    this first, so that each does not load them again at its first decision."""
    from . import compiled_endgame

    for players in (4, 2):
        settings = Settings(players, legal_faction_sets(players)[0])
        state = new_game(settings, shuffled_deck(settings.factions, random.Random(0)))
        view = observe(state, state.to_act)
        Expert(steps=1)(view, random.Random(0))
        evaluate(view, 0, budget=1)
    while state.phase == 1 or len(state.hands[state.to_act]) > 3:  # a 2-player endgame
        state = apply(state, greedy.greedy(observe(state, state.to_act), random.Random(0)))
    compiled_endgame.solve(state, state.to_act)
    compiled_endgame.exploit(state, state.to_act)
    best_playout(state, state.to_act)


def _clearly_positive(gains: list[float], z: float) -> bool:
    """Whether the mean of paired gains is above zero by `z` standard errors."""
    n = len(gains)
    mean = sum(gains) / n
    if mean <= 0 or n < 2:
        return False
    variance = sum((g - mean) ** 2 for g in gains) / (n - 1)
    return mean > z * math.sqrt(variance / n)


def _plays_left(observation: Observation) -> int:
    """The cards still to be played in a rollout: to the end of the game, or with 2 or
    3 players in phase 1 to the end of phase 1 (`compiled.rollout`)."""
    left = sum(observation.hand_sizes)
    if observation.phase == 1 and observation.players not in PHASE2_WORTHS:
        left += observation.players * Settings(observation.players, observation.factions).hand_size
    return max(1, left)
