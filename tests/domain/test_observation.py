"""What each seat may see (RULES.md 8)."""

import re

from service.domain import apply, legal_decisions, observe

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
