"""What a seat knows of the cards it cannot see (`service/ai/knowledge.py`)."""

from collections import Counter

from service.ai.knowledge import known_followers, outstanding, outstanding_counts
from service.domain import observe
from tests.ai.test_players import random_states


def cards_out_of_sight(state, seat):
    """From the whole state: the cards in other hands and in the draw pile (but for
    one a Seer shows the seat now), and in phase 1 in other follower piles, less the
    ones the seat knows are there."""
    cards = Counter(state.draw_pile)
    if state.seer_choice and state.peek.seat == seat:
        cards[state.peek.card] -= 1
    known = known_followers(observe(state, seat))
    for other in range(state.players):
        if other != seat:
            cards.update(state.hands[other])
            cards.update(state.follower_piles[other])
            cards.subtract(known[other] if state.phase == 1 else ())
    return +cards


def test_the_outstanding_cards_are_those_out_of_the_seats_sight():
    compared = 0
    for state in random_states(games=9, seed=7):
        for seat in range(state.players):
            expected = cards_out_of_sight(state, seat)
            assert outstanding(observe(state, seat)) == expected
            counts = outstanding_counts(observe(state, seat))
            assert counts == dict(expected) and list(counts) == sorted(counts)  # code order
            compared += 1
    assert compared > 1500
