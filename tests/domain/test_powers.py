"""Phase 2 (RULES.md 5) and the powers of Dwarves, Gnomes, Giants and Trolls (RULES.md 6)."""

from service.domain import parse_cards

from .factories import CLAIM, SEVEN, SEVEN2, codes, in_phase2, play


def test_in_phase_2_the_winner_puts_every_card_of_the_round_on_their_score_pile():
    state = play(in_phase2(hands={0: "SE3 SE1", 1: "SE7 SE2"}), "play SE3", "play SE7")
    assert codes(state.score_piles[1]) == ["SE3", "SE7"] and state.score_piles[0] == ()


def test_undead_are_ordinary_in_phase_2():
    state = play(
        in_phase2(factions=CLAIM, hands={0: "UN3 GO1", 1: "UN7 GO2"}), "play UN3", "play UN7"
    )
    assert codes(state.score_piles[1]) == ["UN3", "UN7"] and state.discard == ()


def test_dwarves_go_to_the_loser_of_the_round_with_two_players():
    state = in_phase2(factions=CLAIM, hands={0: "GO5 GO1", 1: "DW9 UN1"})
    state = play(state, "play GO5", "play DW9")
    assert codes(state.score_piles[0]) == ["GO5"] and codes(state.score_piles[1]) == ["DW9"]


def test_the_winners_own_dwarf_goes_to_the_loser_with_two_players():
    state = play(
        in_phase2(factions=CLAIM, hands={0: "DW3 GO1", 1: "DW8 GO2"}), "play DW3", "play DW8"
    )
    assert codes(state.score_piles[0]) == ["DW3", "DW8"] and state.score_piles[1] == ()


def test_dwarves_go_to_the_player_of_the_lowest_card_with_three_players():
    state = in_phase2(3, SEVEN, hands={0: "GO5 GO1", 1: "DW7 UN5", 2: "UN1 UN6"})
    state = play(state, "play GO5", "play DW7", "play UN1")
    assert codes(state.score_piles[2]) == ["DW7"] and codes(state.score_piles[0]) == ["GO5", "UN1"]


def test_on_equal_lowest_values_the_dwarves_go_to_the_one_who_played_last():
    state = in_phase2(3, SEVEN, hands={0: "GO5 GO1", 1: "DW2 UN5", 2: "UN2 UN6"})
    state = play(state, "play GO5", "play DW2", "play UN2")
    assert codes(state.score_piles[2]) == ["DW2"]


def test_gnomes_won_in_phase_2_are_placed_in_front_of_the_winner():
    state = play(in_phase2(hands={0: "GN3 GN1", 1: "GN5 GN1"}), "play GN3", "play GN5")
    assert codes(state.gnomes_in_front[1]) == ["GN3", "GN5"] and state.score_piles[1] == ()


def test_gnomes_in_front_go_to_the_score_pile_at_the_end_of_the_game():
    state = in_phase2(hands={0: "GN3", 1: "GN5"}, last_round=True)
    state = state._replace(gnomes_in_front=(parse_cards(["GN1"]), ()))
    state = play(state, "play GN3", "play GN5")
    assert state.to_act is None
    assert codes(state.score_piles[0]) == ["GN1"] and codes(state.score_piles[1]) == ["GN3", "GN5"]
    assert state.gnomes_in_front == ((), ())


def test_each_giant_removes_a_gnome_of_its_value_from_in_front_of_the_losing_opponent():
    state = in_phase2(hands={0: "GI1 GN9", 1: "GI3 GN9"})
    state = state._replace(gnomes_in_front=(parse_cards(["GN3", "GN5"]), parse_cards(["GN3"])))
    state = play(state, "play GI1", "play GI3")
    assert codes(state.gnomes_in_front[0]) == ["GN5"]  # GN3 removed; no GN1 to remove
    assert codes(state.gnomes_in_front[1]) == ["GN3"]  # never hurts the winner
    assert codes(state.removed) == ["GN3"] and codes(state.score_piles[1]) == ["GI1", "GI3"]


def test_a_giant_played_by_the_loser_still_removes_for_the_winner():
    state = in_phase2(hands={0: "GI5 GN9", 1: "GI7 GN9"})
    state = state._replace(gnomes_in_front=(parse_cards(["GN5"]), parse_cards(["GN5"])))
    state = play(state, "play GI5", "play GI7")
    assert state.gnomes_in_front[0] == () and codes(state.gnomes_in_front[1]) == ["GN5"]


def test_with_three_players_a_giant_removes_a_gnome_from_each_opponent():
    state = in_phase2(3, SEVEN2, hands={0: "GI7 UN1", 1: "GI3 UN2", 2: "UN1 UN3"})
    state = state._replace(gnomes_in_front=(parse_cards(["GN3"]),) * 3)
    state = play(state, "play GI7", "play GI3", "play UN1")
    assert [codes(g) for g in state.gnomes_in_front] == [["GN3"], [], []]


def test_with_four_players_a_giant_never_removes_from_the_winners_partner():
    hands = {0: "GI7 UN1", 1: "GI3 UN2", 2: "UN1 UN3", 3: "UN2 UN4"}
    state = in_phase2(4, SEVEN2, hands=hands)
    state = state._replace(gnomes_in_front=(parse_cards(["GN3"]),) * 4)
    state = play(state, "play GI7", "play GI3", "play UN1", "play UN2")
    assert [codes(g) for g in state.gnomes_in_front] == [["GN3"], [], ["GN3"], []]


def test_a_giant_with_no_matching_gnome_removes_nothing():
    state = in_phase2(hands={0: "GI9 GN9", 1: "GI1 GN9"})
    state = state._replace(gnomes_in_front=(parse_cards(["GN3"]), ()))
    state = play(state, "play GI9", "play GI1")
    assert codes(state.gnomes_in_front[0]) == ["GN3"] and state.removed == ()


def test_a_troll_winner_keeps_one_troll_and_sets_the_others_aside():
    state = play(in_phase2(hands={0: "TR3 SE5", 1: "TR8 SE1"}), "play TR3", "play TR8")
    assert codes(state.score_piles[1]) == ["TR8"] and codes(state.trolls_aside) == ["TR3"]


def test_a_winner_takes_a_set_aside_troll_even_in_a_round_with_no_troll():
    state = in_phase2(hands={0: "TR3 SE5", 1: "TR8 SE1"})
    state = play(state, "play TR3", "play TR8", "play SE1", "play SE5")
    assert codes(state.score_piles[0]) == ["SE1", "SE5", "TR3"] and state.trolls_aside == ()


def test_the_winner_takes_the_highest_troll_of_the_played_and_set_aside_ones():
    # RULES.md 6 [decision]: the highest, not the lower one of the English summary's example.
    state = in_phase2(hands={0: "TR2 SE5", 1: "TR5 SE1"})
    state = state._replace(trolls_aside=parse_cards(["TR1", "TR9"]))
    state = play(state, "play TR2", "play TR5")
    assert codes(state.score_piles[1]) == ["TR9"]
    assert codes(state.trolls_aside) == ["TR1", "TR2", "TR5"]


def test_the_winner_of_the_last_round_takes_every_troll_still_set_aside():
    state = in_phase2(hands={0: "TR2", 1: "TR6"}, last_round=True)
    state = state._replace(trolls_aside=parse_cards(["TR1", "TR4"]))
    state = play(state, "play TR2", "play TR6")
    assert codes(state.score_piles[1]) == ["TR1", "TR2", "TR4", "TR6"]
    assert state.trolls_aside == ()
