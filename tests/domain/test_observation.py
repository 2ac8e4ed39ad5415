"""What each seat may see (RULES.md 8)."""

import random
import re

import pytest

from service.domain import IllegalDecision, apply, legal_decisions, observe, unplayable

from .factories import SEVEN, a_game, codes, play

SEERS_DECK = ("GN", "GI", "SE", "TR", "DR")


def test_a_seat_sees_its_own_hand_and_only_the_sizes_of_the_others():
    state = a_game(3, SEVEN)
    seen = observe(state, 1)
    assert seen.hand == state.hands[1] and seen.hand_sizes == (12, 12, 12)
    assert observe(state, None).hand == ()


def test_partners_do_not_see_each_others_hands_with_four_players():
    hands = {0: "GO0 GO1 GO2 GO3 GO4 GO5 GO6 GO7 GO8", 2: "UN1 UN2 UN3 UN4 UN5 UN6 UN7 UN8 UN9"}
    state = a_game(4, SEVEN, hands=hands)
    seen = observe(state, 0)
    assert codes(seen.hand) == hands[0].split()
    shown = set(re.findall(r"Card\('(\w+)'\)", repr(seen)))
    assert shown and not shown & set(hands[2].split())  # no partner's card anywhere


def test_the_drawn_card_is_seen_by_the_drawer_only_while_the_prize_is_public():
    state = play(a_game(hands={0: "GO3", 1: "GO5"}, draw="KN7 DW2"), "play GO3", "play GO5")
    drawn = [a for a in observe(state, 1).rounds[0].acquired if a.seat == 0]
    assert drawn[0].card is None and drawn[0].source == "draw"
    assert codes(observe(state, 0).follower_pile) == ["DW2"]
    assert observe(state, 1).follower_pile_sizes == (1, 1)
    taken = [a for a in observe(state, 0).rounds[0].acquired if a.seat == 1]
    assert codes([taken[0].card]) == ["KN7"] and taken[0].source == "prize"


def test_the_card_a_seer_shows_is_seen_by_the_seer_winner_only():
    state = a_game(factions=SEERS_DECK, hands={0: "SE3", 1: "SE7"}, draw="GN1 TR4")
    state = play(state, "play SE3", "play SE7")
    assert codes([observe(state, 1).peek]) == ["TR4"]
    assert observe(state, 0).peek is None and observe(state, None).peek is None
    state = apply(state, "take GN1")
    assert codes([observe(state, 1).rounds[0].peek.card]) == ["TR4"]
    assert observe(state, 0).rounds[0].peek is None


def test_the_acting_seat_sees_its_legal_decisions_and_no_one_else_does():
    state = a_game()
    assert observe(state, 0).legal == legal_decisions(state)
    assert observe(state, 1).legal == () and observe(state, None).legal == ()


def test_the_deck_order_is_hidden_until_the_game_is_over_then_everything_is_public():
    state = a_game()
    assert observe(state, 0).deck is None and observe(state, 0).result is None
    while state.to_act is not None:
        state = apply(state, legal_decisions(state)[0])
    seen = observe(state, None)
    assert seen.deck == state.deck and seen.rounds == state.rounds and seen.result is not None


def test_a_seat_that_must_follow_is_told_why_it_may_not_play_its_other_cards():
    state = play(a_game(hands={0: "GO3", 1: "GO5 KN9 DO2 UN1"}), "play GO3")
    hand = observe(state, 1).hand
    told = unplayable(observe(state, 1))
    assert {"KN9", "UN1"} <= {card.code for card in told}
    assert set(told) == {card for card in hand if card.faction.code not in ("GO", "DO")}
    assert set(told.values()) == {"must follow Goblins (or play a Doppelganger)"}


def test_without_doppelgangers_in_the_deck_none_is_offered_as_the_way_out():
    state = a_game(factions=SEERS_DECK, hands={0: "GN1", 1: "GN3 SE7"})
    told = unplayable(observe(play(state, "play GN1"), 1))
    assert set(told.values()) == {"must follow Gnomes"}
    with pytest.raises(IllegalDecision) as refused:
        apply(play(state, "play GN1"), "play SE7")
    assert refused.value.reason == "must follow Gnomes: seat 1 holds one"


def test_after_a_doppelganger_lead_a_seat_holding_one_is_told_it_holds_one():
    state = play(a_game(hands={0: "DO1", 1: "DO5 GO3"}), "play DO1")
    told = unplayable(observe(state, 1))
    assert "GO3" in {card.code for card in told}
    assert set(told.values()) == {"must follow Doppelgangers: you hold one"}


def test_the_leader_and_the_seats_not_to_act_are_told_nothing():
    state = a_game()
    assert unplayable(observe(state, 0)) == {}  # the leader plays anything
    assert unplayable(observe(state, 1)) == {} and unplayable(observe(state, None)) == {}


def test_a_seat_that_must_take_a_prize_first_may_play_no_card():
    hands = {0: "GO1", 1: "GO2", 2: "GO9"}
    state = play(a_game(3, SEVEN, hands=hands), "play GO1", "play GO2", "play GO9")
    seat = state.to_act
    assert legal_decisions(state)[0].kind == "take"
    told = unplayable(observe(state, seat))
    assert set(told) == set(state.hands[seat])
    assert set(told.values()) == {"take a prize first"}


def test_a_seer_winner_may_take_a_prize_or_the_top_card_before_playing():
    state = a_game(factions=SEERS_DECK, hands={0: "SE3", 1: "SE7"}, draw="GN1 TR4")
    state = play(state, "play SE3", "play SE7")
    told = unplayable(observe(state, 1))
    assert set(told) == set(state.hands[1])
    assert set(told.values()) == {"take a prize or the draw pile's top card first"}


def test_the_unplayable_cards_are_the_hand_less_the_legal_plays_all_game_long():
    state = a_game(3, SEVEN)
    rng = random.Random(3)
    while state.to_act is not None:
        seen = observe(state, state.to_act)
        plays = {decision.card for decision in seen.legal if decision.kind == "play"}
        told = unplayable(seen)
        assert set(told) <= set(seen.hand) and not set(told) & plays
        if plays:
            assert set(told) | plays == set(seen.hand)
        state = apply(state, rng.choice(legal_decisions(state)))
