"""Who wins each faction and the game (RULES.md 7)."""

from service.domain import Faction, parse_cards, result

from .factories import CLAIM, SEVEN, a_game


def finished(players=2, factions=CLAIM, piles=()):
    """A game over, with these score piles (card codes, one string per seat)."""
    state = a_game(players, factions)
    return state._replace(to_act=None, score_piles=tuple(parse_cards(p.split()) for p in piles))


def winner_of(state, code):
    return result(state).faction_winner(Faction(code))


def test_a_faction_goes_to_the_player_with_most_of_its_cards():
    assert winner_of(finished(piles=("GO0 GO1", "GO9")), "GO") == 0


def test_on_equal_counts_the_highest_card_decides():
    assert winner_of(finished(piles=("UN9 UN1", "UN8 UN7")), "UN") == 0


def test_on_equal_highest_cards_the_next_highest_decides():
    assert winner_of(finished(piles=("GO9 GO5 GO0", "GO9 GO5 GO1")), "GO") == 1


def test_a_faction_tied_card_for_card_goes_to_nobody():
    assert winner_of(finished(piles=("GO0 GO3", "GO0 GO3")), "GO") is None


def test_a_faction_that_nobody_holds_goes_to_nobody():
    assert winner_of(finished(piles=("GO0", "GO1 GO2")), "DW") is None


def test_with_four_players_partners_count_their_score_piles_together():
    state = finished(4, SEVEN, piles=("UN1", "UN9 UN8", "UN2 UN3", ""))
    assert winner_of(state, "UN") == 0  # seats 0+2 hold three Undead, seats 1+3 two


def test_the_game_goes_to_the_side_with_most_factions():
    state = finished(piles=("GO1 KN2 UN1", "DO9 DO8 DO7"))
    assert result(state).side_keys == ((3, 3, 4), (1, 3, 24))
    assert result(state).winner == 0


def test_on_equal_factions_more_cards_in_the_won_factions_win():
    state = finished(piles=("GO1 GO2 GO3", "KN9"))
    assert result(state).side_keys == ((1, 3, 6), (1, 1, 9))
    assert result(state).winner == 0


def test_on_equal_factions_and_cards_the_higher_value_sum_wins():
    state = finished(piles=("GO1 GO2", "KN9 KN8"))
    assert result(state).winner == 1


def test_a_game_equal_in_factions_cards_and_values_is_a_draw():
    # RULES.md 7 [decision]: the unified order for every player count ends in a draw.
    state = finished(piles=("GO2 GO3", "KN2 KN3"))
    assert result(state).side_keys == ((1, 2, 5), (1, 2, 5))
    assert result(state).winner is None


def test_with_three_players_the_same_order_decides_and_equal_sides_draw():
    state = finished(3, SEVEN, piles=("GO3 GO4", "KN3 KN4", "UN0"))
    assert result(state).side_keys == ((1, 2, 7), (1, 2, 7), (1, 1, 0))
    assert result(state).winner is None
