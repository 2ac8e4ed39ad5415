"""Properties over random decks and decisions, 2-4 players (hypothesis)."""

import pickle
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain import (
    Settings,
    apply,
    full_deck,
    legal_decisions,
    legal_faction_sets,
    new_game,
    observe,
    result,
    shuffled_deck,
)


@st.composite
def deals(draw):
    """Settings, a deck order and a seed for the decisions."""
    players = draw(st.sampled_from((2, 3, 4)))
    factions = draw(st.sampled_from(legal_faction_sets(players)))
    game = Settings(players, factions, draw(st.integers(0, players - 1)))
    deck = shuffled_deck(factions, random.Random(draw(st.integers(0, 2**32))))
    return game, deck, draw(st.integers(0, 2**32))


def play_out(game, deck, seed):
    """Every state of a game with random legal decisions, and the decisions."""
    rng = random.Random(seed)
    states = [new_game(game, deck)]
    decisions = []
    while states[-1].to_act is not None:
        choices = legal_decisions(states[-1])
        assert choices, "a game that is not over always has a legal decision"
        decisions.append(rng.choice(choices))
        states.append(apply(states[-1], decisions[-1]))
    return states, decisions


def places(state) -> Counter:
    """Every card wherever it lies; a finished round's trick is already elsewhere."""
    cards = Counter(state.draw_pile + state.discard + state.trolls_aside + state.removed)
    for seat in range(state.players):
        cards.update(state.hands[seat] + state.follower_piles[seat])
        cards.update(state.score_piles[seat] + state.gnomes_in_front[seat])
    cards.update(state.remaining_prizes)
    if state.winner is None:  # the round is still being played
        cards.update(play.card for play in state.trick)
    return cards


@settings(max_examples=40, deadline=None)
@given(deals())
def test_every_card_is_in_exactly_one_place_at_every_step(deal):
    game, deck, seed = deal
    states, _ = play_out(game, deck, seed)
    whole = Counter(full_deck(game.factions))
    for number, state in enumerate(states):
        assert places(state) == whole, f"after decision {number}"


@settings(max_examples=25, deadline=None)
@given(deals())
def test_the_same_deck_and_decisions_give_the_same_game(deal):
    game, deck, seed = deal
    states, decisions = play_out(game, deck, seed)
    again = [new_game(game, list(map(str, deck)))]
    for decision in decisions:
        again.append(apply(again[-1], str(decision)))
    assert again == states
    assert result(again[-1]) == result(states[-1])


@settings(max_examples=25, deadline=None)
@given(deals())
def test_apply_never_changes_its_input(deal):
    game, deck, seed = deal
    rng = random.Random(seed)
    state = new_game(game, deck)
    while state.to_act is not None:
        before = pickle.dumps(state)
        following = apply(state, rng.choice(legal_decisions(state)))
        assert pickle.dumps(state) == before
        state = following


@settings(max_examples=25, deadline=None)
@given(deals())
def test_a_game_takes_two_hands_of_plays_from_every_seat(deal):
    game, deck, seed = deal
    _, decisions = play_out(game, deck, seed)
    plays = [d for d in decisions if d.kind == "play"]
    assert len(plays) == 2 * game.hand_size * game.players


def hide_differently(state, seat):
    """The same game as `seat` may know it, with the hidden cards changed: another
    seat's hand or follower pile swaps a card with the draw pile, whose order turns."""
    draw_pile = list(reversed(state.draw_pile))
    hands = [list(hand) for hand in state.hands]
    piles = [list(pile) for pile in state.follower_piles]
    for other in range(state.players):
        for mine in (hands[other], piles[other]):
            if other != seat and mine and draw_pile:
                mine[0], draw_pile[0] = draw_pile[0], mine[0]
    return state._replace(
        hands=tuple(map(tuple, hands)),
        follower_piles=tuple(map(tuple, piles)),
        draw_pile=tuple(draw_pile),
    )


@settings(max_examples=30, deadline=None)
@given(deals())
def test_an_observation_never_shows_what_section_8_hides_from_its_seat(deal):
    game, deck, seed = deal
    states, _ = play_out(game, deck, seed)
    for state in states[:-1]:
        for seat in (*range(game.players), None):
            seen = observe(state, seat)
            assert seen == observe(hide_differently(state, seat), seat)
            assert seen.deck is None and seen.result is None
            for record in seen.rounds + (seen,):
                for acquisition in record.acquired:
                    if acquisition.seat != seat and acquisition.source != "prize":
                        assert acquisition.card is None, "another seat's draw"
            for record in seen.rounds:
                assert record.peek is None or record.peek.seat == seat
            assert seen.hand == (state.hands[seat] if seat is not None else ())


@settings(max_examples=10, deadline=None)
@given(deals())
def test_everything_is_public_once_the_game_is_over(deal):
    game, deck, seed = deal
    final = play_out(game, deck, seed)[0][-1]
    seen = observe(final, None)
    assert seen.deck == final.deck
    assert seen.rounds == final.rounds
    assert seen.result == result(final)
