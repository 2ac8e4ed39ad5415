"""The rollouts' cheap seat view (`rollout.SeatView`) against the engine's `observe`."""

import pytest

from service.ai.greedy import value_function
from service.ai.rollout import SeatView
from service.domain import observe
from tests.ai.test_players import random_states

# The fields of `Observation` that SeatView shows, and that the players read.
SHOWN = ("players", "factions", "phase", "leader", "hand", "gnomes_in_front")
SHOWN += ("trolls_aside", "removed")


@pytest.mark.parametrize("seed", [1, 2])
def test_a_seat_view_shows_what_observe_shows_the_seat(seed):
    compared = 0
    for state in random_states(games=6, seed=seed):
        for seat in range(state.players):
            view, observation = SeatView(state, seat), observe(state, seat)
            for name in SHOWN:
                assert getattr(view, name) == getattr(observation, name), name
            compared += 1
    assert compared > 1000


def test_a_seat_views_history_shows_the_rounds_unredacted():
    """The history is the one field shown as it is: what observe hides in it (the
    cards other seats drew) is there, and everything observe shows is the same."""
    hidden = 0
    for state in random_states(games=6, seed=3):
        for seat in range(state.players):
            view, observation = SeatView(state, seat), observe(state, seat)
            assert len(view.rounds) == len(observation.rounds)
            for shown, observed in zip(view.rounds, observation.rounds, strict=True):
                assert shown.plays == observed.plays and shown.winner == observed.winner
                for full, seen in zip(shown.acquired, observed.acquired, strict=True):
                    assert (full.seat, full.source) == (seen.seat, seen.source)
                    assert seen.card in (None, full.card)
                    hidden += seen.card is None
    assert hidden > 0  # some draws were hidden by observe, and shown by SeatView


def test_greedy_values_a_seat_view_as_it_values_the_observation():
    """A rollout's greedy player is the greedy player: every legal decision gets the
    same value from the seat view as from `observe`, in every phase and player count."""
    valued = 0
    for state in random_states(games=12, seed=4):
        seat = state.to_act
        view, observation = SeatView(state, seat), observe(state, seat)
        if len(observation.legal) < 2:
            continue
        assert view.legal == observation.legal
        of_view, of_observation = value_function(view), value_function(observation)
        for decision in observation.legal:
            assert of_view(decision) == of_observation(decision), decision
            valued += 1
    assert valued > 3000
