"""Decks and the deal (RULES.md 2)."""

import pytest

from service.domain import (
    PRESETS,
    InvalidDeck,
    InvalidSettings,
    Settings,
    UnknownCard,
    full_deck,
    legal_faction_sets,
    new_game,
)

from .factories import CLAIM, SEVEN, a_game


@pytest.mark.parametrize(("players", "count", "cards"), [(2, 40, 52), (3, 12, 72), (4, 12, 72)])
def test_the_legal_decks_are_one_pair_and_the_right_number_of_singles(players, count, cards):
    decks = legal_faction_sets(players)
    assert len(decks) == count == len(set(decks))
    for factions in decks:
        codes = {f.code for f in factions}
        assert {"GO", "KN"} <= codes or {"GN", "GI"} <= codes
        assert len(full_deck(factions)) == cards
        Settings(players, factions)  # accepted


def test_the_presets_are_claim_and_claim_2():
    assert [f.code for f in PRESETS["claim"]] == ["GO", "KN", "UN", "DO", "DW"]
    assert [f.code for f in PRESETS["claim2"]] == ["GN", "GI", "DR", "TR", "SE"]


@pytest.mark.parametrize(
    ("players", "factions", "message"),
    [
        (2, ("GO", "KN", "GN", "GI", "UN"), "exactly one pair"),
        (2, ("GO", "UN", "DO", "DW", "DR"), "half a pair"),
        (2, ("GO", "KN", "UN", "UN", "DW"), "appears twice"),
        (2, ("GO", "KN", "UN", "DO", "DW", "DR", "SE"), "use 5 factions"),
        (3, CLAIM, "use 7 factions"),
        (2, ("GO", "KN", "UN", "DO", "XX"), "unknown faction"),
        (5, CLAIM, "2, 3 or 4 players"),
    ],
)
def test_an_illegal_composition_is_rejected_with_a_clear_error(players, factions, message):
    with pytest.raises(InvalidSettings, match=message):
        Settings(players, factions)


def test_a_deck_that_is_not_exactly_the_cards_of_its_factions_is_rejected():
    deck = [str(card) for card in full_deck(Settings(2, CLAIM).factions)]
    deck[0] = "SE1"
    with pytest.raises(InvalidDeck, match="not in these factions or too many: SE1"):
        new_game(Settings(2, CLAIM), deck)
    with pytest.raises(InvalidDeck, match="missing"):
        new_game(Settings(2, CLAIM), deck[1:])


def test_a_deck_with_an_unknown_card_code_is_rejected():
    deck = [str(card) for card in full_deck(Settings(2, CLAIM).factions)]
    deck[0] = "GO10"
    with pytest.raises(UnknownCard, match="GO10"):
        new_game(Settings(2, CLAIM), deck)


@pytest.mark.parametrize(("players", "hand", "draw"), [(2, 13, 26), (3, 12, 36), (4, 9, 36)])
def test_the_deal_gives_each_seat_its_hand_and_leaves_the_draw_pile(players, hand, draw):
    state = a_game(players, CLAIM if players == 2 else SEVEN)
    assert [len(h) for h in state.hands] == [hand] * players
    turned_up = 1 if players == 2 else 2
    assert len(state.draw_pile) + len(state.prizes) == draw and len(state.prizes) == turned_up


def test_seat_0_takes_the_first_cards_of_the_deck_and_the_rest_is_the_draw_pile_top_first():
    deck = list(reversed(full_deck(Settings(2, CLAIM).factions)))
    state = new_game(Settings(2, CLAIM), deck)
    assert sorted(state.hands[0]) == sorted(deck[:13]) and sorted(state.hands[1]) == sorted(
        deck[13:26]
    )
    assert state.prizes == (deck[26],) and state.draw_pile == tuple(deck[27:])


def test_the_first_leader_is_seat_0_unless_the_settings_say_otherwise():
    assert a_game().to_act == 0
    assert a_game(3, SEVEN, first_leader=2).to_act == 2
    with pytest.raises(InvalidSettings, match="first leader"):
        Settings(2, CLAIM, first_leader=2)
