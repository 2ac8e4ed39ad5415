"""Rollouts: a sampled state played to its end by the greedy player at every seat.

The expert builds whole states itself (`determinize.py`) and then needs every seat's
decisions in them, thousands of times per decision. `observe` would redact the whole
history at each step; `SeatView` instead shows a seat's view of a state lazily, with
the fields of `Observation` that the greedy player reads, each as `observe` would
give it (tests/ai/test_rollout.py holds them equal), but for the history: it is shown
unredacted, and the players read only its public parts and the seat's own.
"""

from __future__ import annotations

import random

from service.ai.greedy import greedy
from service.domain import (
    Card,
    Decision,
    Faction,
    Observation,
    Play,
    State,
    apply,
    legal_decisions,
    result,
)


class SeatView:
    """What `seat` may see of `state`, in the shape of an `Observation` (the fields
    the players read), computed when read."""

    __slots__ = ("seat", "state")

    def __init__(self, state: State, seat: int):
        self.state = state
        self.seat = seat

    @property
    def players(self) -> int:
        return self.state.settings.players

    @property
    def factions(self) -> tuple[Faction, ...]:
        return self.state.settings.factions

    @property
    def phase(self) -> int:
        return self.state.phase

    @property
    def leader(self) -> int:
        return self.state.leader

    @property
    def hand(self) -> tuple[Card, ...]:
        return self.state.hands[self.seat]

    @property
    def follower_pile(self) -> tuple[Card, ...]:
        return self.state.follower_piles[self.seat]

    @property
    def peek(self) -> Card | None:
        peek = self.state.peek
        if peek is not None and self.state.seer_choice and peek.seat == self.seat:
            return peek.card
        return None

    @property
    def legal(self) -> tuple[Decision, ...]:
        return legal_decisions(self.state) if self.state.to_act == self.seat else ()

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(map(len, self.state.hands))

    @property
    def prizes(self) -> tuple[Card, ...]:
        return self.state.prizes

    @property
    def trick(self) -> tuple[Play, ...]:
        return self.state.trick

    @property
    def acquired(self):
        return self.state.acquired

    @property
    def discard(self) -> tuple[Card, ...]:
        return self.state.discard

    @property
    def score_piles(self) -> tuple[tuple[Card, ...], ...]:
        return self.state.score_piles

    @property
    def gnomes_in_front(self) -> tuple[tuple[Card, ...], ...]:
        return self.state.gnomes_in_front

    @property
    def trolls_aside(self) -> tuple[Card, ...]:
        return self.state.trolls_aside

    @property
    def removed(self) -> tuple[Card, ...]:
        return self.state.removed

    @property
    def rounds(self):
        return self.state.rounds


def seat_view(state: State, seat: int) -> Observation:
    """`seat`'s view of `state` for the players, without the cost of `observe`."""
    return SeatView(state, seat)  # type: ignore[return-value]


MARGIN = 0.2  # weight of the faction margin in a rollout's score


def rollout(state: State, side: int, rng: random.Random) -> float:
    """The score for `side` when every seat plays greedy from `state` to the end: the
    outcome (1 win, 1/2 draw, 0 loss) plus a little for the margin in factions, which
    tells apart the many deals whose outcome one decision does not change."""
    while state.to_act is not None:
        state = apply(state, greedy(seat_view(state, state.to_act), rng))
    return score(state, side)


def score(state: State, side: int) -> float:
    """A finished game's outcome for `side`, plus `MARGIN` times its lead in factions
    over the best other side, as a share of the factions."""
    final = result(state)
    factions = [key[0] for key in final.side_keys]
    mine = factions.pop(side)
    margin = (mine - max(factions)) / len(final.faction_winners)
    won = 0.5 if final.winner is None else float(final.winner == side)
    return won + MARGIN * margin
