"""The game loop: RULES.md sections 2 (decisions), 3 (a round), 4 (phase 1), 5 and
the Knights, Undead, Doppelgangers, Dragons and Seers of section 6."""

import random
from collections import Counter

import pytest

from service.domain import (
    Card,
    Decision,
    GameOver,
    IllegalDecision,
    NotYourTurn,
    Replay,
    Settings,
    apply,
    legal_decisions,
    new_game,
    random_factions,
    shuffled_deck,
)

from .factories import SEVEN, a_game, codes, play

ALL_DWARVES = "DW0 DW1 DW2 DW3 DW4 DW5 DW6 DW7 DW8 DW9"
ALL_UNDEAD = "UN0 UN1 UN2 UN3 UN4 UN5 UN6 UN7 UN8 UN9"
ALL_TROLLS = "TR0 TR1 TR2 TR3 TR4 TR5 TR6 TR7 TR8 TR9"
THIRTEEN_GOBLINS = "GO0 GO0 GO0 GO0 GO0 GO1 GO2 GO3 GO4 GO5 GO6 GO7 GO9"
SEERS_DECK = ("GN", "GI", "SE", "TR", "DR")


def legal(state) -> list[str]:
    return [str(decision) for decision in legal_decisions(state)]


# RULES.md 3 step 1
def test_the_leader_may_play_any_card_of_their_hand():
    state = a_game(hands={0: "GO3 KN5 UN1"})
    assert legal(state) == sorted({f"play {card}" for card in state.hands[0]})


# RULES.md 3 step 2
def test_a_player_holding_the_led_faction_must_follow_it_or_play_a_doppelganger():
    state = play(a_game(hands={0: "GO3", 1: "GO5 KN9 DO2 UN1"}), "play GO3")
    assert {"play GO5", "play DO2"} <= set(legal(state))
    assert not {"play KN9", "play UN1"} & set(legal(state))


def test_a_knight_may_not_be_played_by_a_player_holding_a_goblin():
    state = play(a_game(hands={0: "GO3", 1: "GO5 KN9"}), "play GO3")
    with pytest.raises(IllegalDecision, match="must follow Goblins"):
        apply(state, "play KN9")


def test_a_player_without_the_led_faction_may_play_anything():
    state = play(a_game(hands={0: ALL_DWARVES + " GO1 GO2 GO3"}), "play DW4")
    assert legal(state) == sorted({f"play {card}" for card in state.hands[1]})


def test_when_doppelgangers_are_led_a_player_holding_one_must_play_one():
    state = play(a_game(hands={0: "DO5", 1: "DO2 GO7 KN3"}), "play DO5")
    assert legal(state) and all(d.card.faction.code == "DO" for d in legal_decisions(state))


# RULES.md 3 step 3
def test_the_highest_card_of_the_led_faction_wins():
    state = play(a_game(hands={0: "GO3", 1: "GO5"}), "play GO3", "play GO5")
    assert state.rounds[0].winner == 1


def test_equal_values_go_to_the_card_played_first():
    state = play(a_game(hands={0: "GO0", 1: "GO0"}), "play GO0", "play GO0")
    assert state.rounds[0].winner == 0


def test_a_card_of_another_faction_never_wins_so_the_leader_wins_if_nobody_follows():
    state = play(a_game(hands={0: ALL_DWARVES + " GO1 GO2 GO3", 1: "UN9"}), "play DW0", "play UN9")
    assert state.rounds[0].winner == 0


def test_a_doppelganger_after_another_lead_follows_and_its_value_competes():
    state = play(a_game(hands={0: "GO5", 1: "GO1 DO7"}), "play GO5", "play DO7")
    assert state.rounds[0].winner == 1


# RULES.md 6, Knights
def test_a_knight_wins_a_round_that_goblins_led_whatever_the_values():
    state = play(a_game(hands={0: THIRTEEN_GOBLINS, 1: "KN2"}), "play GO9", "play KN2")
    assert state.rounds[0].winner == 1


def test_with_several_knights_in_a_goblin_led_round_the_highest_knight_wins():
    goblins = "GO0 GO0 GO0 GO0 GO0 GO1 GO2 GO3 GO4 GO5 GO6 GO7"
    state = a_game(3, SEVEN, hands={0: goblins, 1: "KN4", 2: "KN7"})
    state = play(state, "play GO7", "play KN4", "play KN7")
    assert state.winner == 2 and state.to_act == 2  # the winner chooses a prize


def test_knights_are_ordinary_when_goblins_are_not_led():
    state = play(a_game(hands={0: ALL_UNDEAD + " GO1 GO2 GO3", 1: "KN9"}), "play UN0", "play KN9")
    assert state.rounds[0].winner == 0


# RULES.md 3 step 5 and 6, Dragons
def test_the_last_player_of_a_dragon_leads_next_even_when_it_lost():
    state = a_game(factions=SEERS_DECK, hands={0: ALL_TROLLS + " GN1 GN3 GN5", 1: "DR0"})
    state = play(state, "play TR5", "play DR0")
    assert state.rounds[0].winner == 0
    assert state.leader == 1 and state.to_act == 1


def test_with_two_dragons_in_a_round_the_last_one_played_decides_the_next_leader():
    state = play(a_game(factions=SEERS_DECK, hands={0: "DR9", 1: "DR0"}), "play DR9", "play DR0")
    assert state.rounds[0].winner == 0 and state.leader == 1


def test_a_dragon_decides_the_next_leader_with_three_players():
    state = a_game(3, SEVEN, hands={0: "DR9", 1: "DR3", 2: "DR1"})
    state = play(state, "play DR9", "play DR3", "play DR1")
    state = apply(state, legal_decisions(state)[0])
    assert state.rounds[0].winner == 0 and state.leader == 2


def test_a_dragon_in_the_last_round_of_phase_1_decides_who_leads_phase_2():
    # RULES.md 3 step 5 [decision]: the rule holds across the phase change.
    state = a_game(factions=SEERS_DECK)
    last = state._replace(
        round=12,
        hands=((Card.parse("TR5"),), (Card.parse("DR0"),)),
        follower_piles=(tuple(state.hands[0][:12]), tuple(state.hands[1][:12])),
        prizes=(Card.parse("GN1"),),
        draw_pile=(Card.parse("GN3"),),
    )
    state = play(last, "play TR5", "play DR0")
    assert state.phase == 2 and state.round == 0
    assert state.to_act == 1 and state.round_leaders[-1] == 1


# RULES.md 4, two players
def test_the_winner_of_a_round_takes_the_prize_and_the_loser_draws_the_top_card():
    state = a_game(hands={0: "GO3", 1: "GO5"}, draw="KN7 DW2")
    assert codes(state.prizes) == ["KN7"]
    state = play(state, "play GO3", "play GO5")
    assert codes(state.follower_piles[1]) == ["KN7"]
    assert codes(state.follower_piles[0]) == ["DW2"]
    assert codes(state.discard) == ["GO3", "GO5"]


def test_phase_1_lasts_until_hands_and_draw_pile_are_empty_then_follower_piles_become_hands():
    state = a_game(3, SEVEN)
    while state.phase == 1:
        state = apply(state, legal_decisions(state)[0])
    assert state.round == 0 and len(state.rounds) == 12 and not state.draw_pile
    for seat in range(3):
        acquired = [a.card for r in state.rounds for a in r.acquired if a.seat == seat]
        assert Counter(state.hands[seat]) == Counter(acquired)
        assert state.follower_piles[seat] == ()


# RULES.md 6, Undead
def test_undead_played_in_phase_1_go_to_the_score_pile_of_the_rounds_winner():
    state = play(a_game(hands={0: "UN3", 1: "UN7"}), "play UN3", "play UN7")
    assert codes(state.score_piles[1]) == ["UN3", "UN7"] and state.discard == ()


def test_an_undead_won_as_a_prize_goes_to_the_follower_pile():
    state = play(a_game(hands={0: "GO3", 1: "GO5"}, draw="UN5"), "play GO3", "play GO5")
    assert codes(state.follower_piles[1]) == ["UN5"] and state.score_piles == ((), ())


def test_a_doppelganger_imitating_an_undead_is_discarded_not_scored():
    state = play(a_game(hands={0: "UN3", 1: "UN1 DO8"}), "play UN3", "play DO8")
    assert state.rounds[0].winner == 1
    assert codes(state.score_piles[1]) == ["UN3"] and codes(state.discard) == ["DO8"]


# RULES.md 6, Seers, two players
def seer_win():
    state = a_game(factions=SEERS_DECK, hands={0: "SE3", 1: "SE7"}, draw="GN1 TR4 GI9")
    return play(state, "play SE3", "play SE7")


def test_a_seer_win_lets_the_winner_take_the_prize_or_the_top_card():
    state = seer_win()
    assert state.to_act == 1 and legal(state) == ["take GN1", "take deck"]


def test_taking_the_top_card_after_a_seer_win_gives_the_prize_to_the_loser():
    state = apply(seer_win(), "take deck")
    assert codes(state.follower_piles[1]) == ["TR4"] and codes(state.follower_piles[0]) == ["GN1"]
    assert codes(state.prizes) == ["GI9"]  # the next round's prize


def test_taking_the_prize_after_a_seer_win_leaves_the_loser_the_card_the_seer_saw():
    state = apply(seer_win(), "take GN1")
    assert codes(state.follower_piles[1]) == ["GN1"] and codes(state.follower_piles[0]) == ["TR4"]
    assert state.rounds[0].peek == (1, Card.parse("TR4"))


def test_a_doppelganger_imitating_a_seer_gives_no_peek():
    factions = ("GN", "GI", "SE", "DO", "TR")
    state = a_game(factions=factions, hands={0: "SE3", 1: "SE1 DO9"}, draw="GN1 TR4")
    state = play(state, "play SE3", "play DO9")
    assert state.rounds[0].winner == 1 and state.rounds[0].peek is None
    assert codes(state.follower_piles[1]) == ["GN1"] and codes(state.follower_piles[0]) == ["TR4"]


# RULES.md 4, three and four players
DWARVES_SPLIT = {0: "DW0 DW1 DW2 DW3 DW5", 1: "DW4 DW6 DW7 DW8 DW9", 2: "GO9"}


def test_with_three_players_the_winner_chooses_a_prize_the_second_takes_the_other_the_third_draws():
    state = a_game(3, SEVEN, hands=DWARVES_SPLIT, draw="GO0 KN9 UN4")
    state = play(state, "play DW5", "play DW4", "play GO9")
    assert state.to_act == 0 and legal(state) == ["take GO0", "take KN9"]
    state = apply(state, "take KN9")
    piles = [codes(pile) for pile in state.follower_piles]
    assert piles == [["KN9"], ["GO0"], ["UN4"]]


def test_non_followers_are_ranked_by_value_whatever_their_faction():
    hands = {0: ALL_DWARVES + " GO1 GO2", 1: "GO3", 2: "UN7"}
    state = a_game(3, SEVEN, hands=hands, draw="GO0 KN9 UN4")
    state = play(state, "play DW0", "play GO3", "play UN7", "take GO0")
    # seat 2 (UN7) outranks seat 1 (GO3): it gets the other prize, seat 1 draws.
    assert [codes(pile) for pile in state.follower_piles] == [["GO0"], ["UN4"], ["KN9"]]


def test_among_followers_equal_values_rank_the_card_played_earlier_first():
    state = a_game(3, SEVEN, hands={0: "GO9", 1: "GO0", 2: "GO0"}, draw="KN2 KN3 UN4")
    state = play(state, "play GO9", "play GO0", "play GO0", "take KN3")
    assert [codes(pile) for pile in state.follower_piles] == [["KN3"], ["KN2"], ["UN4"]]


def test_in_a_goblin_led_round_knights_rank_before_the_goblins_that_followed():
    # RULES.md 4 [decision]
    hands = {0: "GO0 GO0 GO0 GO0 GO0 GO1 GO2 GO3 GO5", 1: "GO4 GO6 GO7 GO8 GO9", 2: "KN3", 3: "KN2"}
    state = a_game(4, SEVEN, hands=hands, draw="UN1 UN2 UN3 UN4")
    state = play(state, "play GO5", "play GO7", "play KN3", "play KN2")
    assert state.to_act == 2  # the highest Knight won
    state = apply(state, "take UN2")
    piles = [codes(pile) for pile in state.follower_piles]
    assert piles == [["UN4"], ["UN3"], ["UN2"], ["UN1"]]


def test_with_three_players_a_seer_winner_taking_the_top_card_lets_the_second_choose():
    state = a_game(3, SEVEN, hands={0: "SE9", 1: "SE2", 2: "SE1"}, draw="GO0 KN9 UN4")
    state = play(state, "play SE9", "play SE2", "play SE1")
    assert legal(state) == ["take GO0", "take KN9", "take deck"]
    state = apply(state, "take deck")
    assert state.to_act == 1 and legal(state) == ["take GO0", "take KN9"]
    state = apply(state, "take GO0")
    assert [codes(pile) for pile in state.follower_piles] == [["UN4"], ["GO0"], ["KN9"]]


def test_with_four_players_a_seer_winner_taking_the_top_card_leaves_the_fourth_to_draw():
    state = a_game(4, SEVEN, hands={0: "SE9", 1: "SE2", 2: "SE1", 3: "SE0"}, draw="GO0 KN9 UN4 UN5")
    state = play(state, "play SE9", "play SE2", "play SE1", "play SE0", "take deck", "take KN9")
    assert [codes(pile) for pile in state.follower_piles] == [["UN4"], ["KN9"], ["GO0"], ["UN5"]]


def test_the_first_ranked_still_chooses_between_two_equal_prizes():
    state = a_game(3, SEVEN, hands={0: "GO9", 1: "GO8", 2: "GO7"}, draw="GO0 GO0 UN4")
    state = play(state, "play GO9", "play GO8", "play GO7")
    assert state.to_act == 0 and legal(state) == ["take GO0"]


# Errors: RULES.md 2 (decisions); the state is never changed
def test_a_decision_by_a_seat_whose_turn_it_is_not_is_refused():
    state = a_game()
    with pytest.raises(NotYourTurn, match="seat 0's turn"):
        apply(state, legal_decisions(state)[0], seat=1)


def test_a_card_not_in_hand_is_refused_and_the_state_is_unchanged():
    state = a_game(hands={0: "GO3"}, draw="GO4")
    before = tuple(state)
    with pytest.raises(IllegalDecision, match="GO4 is not in seat 0's hand"):
        apply(state, "play GO4")
    assert tuple(state) == before


def test_taking_the_top_card_without_a_seer_win_is_refused():
    state = play(a_game(3, SEVEN, hands={0: "GO9", 1: "GO8", 2: "GO7"}), "play GO9", "play GO8")
    state = apply(state, "play GO7")
    with pytest.raises(IllegalDecision, match="no Seer choice pending"):
        apply(state, "take deck")


def test_playing_a_card_while_a_prize_must_be_chosen_is_refused():
    state = play(seer_win())
    with pytest.raises(IllegalDecision, match="must take a prize"):
        apply(state, Decision.parse("play GN1"))


def test_taking_a_prize_while_cards_are_played_is_refused():
    with pytest.raises(IllegalDecision, match="must play a card"):
        apply(a_game(draw="GO4"), "take GO4")


def test_no_decision_is_accepted_once_the_game_is_over():
    state = a_game()
    while state.to_act is not None:
        state = apply(state, legal_decisions(state)[-1])
    assert legal_decisions(state) == ()
    with pytest.raises(GameOver):
        apply(state, "play GO3")


# A Replay: many decisions in a row, each checked as `apply` checks it
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_replay_takes_the_states_that_apply_after_apply_takes(players):
    rng = random.Random(players)
    for _ in range(20):
        settings = Settings(players, random_factions(players, rng))
        state = new_game(settings, shuffled_deck(settings.factions, rng))
        replay = Replay(state)
        midway = []  # states taken from the replay on the way, and apply's then
        while state.to_act is not None:
            assert replay.legal_decisions() == legal_decisions(state)
            decision = rng.choice(legal_decisions(state))
            replay.apply(decision, seat=state.to_act)
            state = apply(state, decision)
            if rng.random() < 0.1:
                midway.append((replay.state(), state))
        assert replay.state() == state and replay.to_act is None
        assert all(taken == then for taken, then in midway)  # unchanged by what followed


def test_a_decision_a_replay_refuses_is_refused_as_apply_refuses_it_and_changes_nothing():
    state = play(seer_win())
    replay = Replay(state)
    tries = [("play GN1", None), ("take deck", 0), ("take GO0", None)]
    for decision, seat in tries:
        with pytest.raises(IllegalDecision) as by_apply:  # NotYourTurn is one
            apply(state, decision, seat=seat)
        with pytest.raises(IllegalDecision) as by_replay:
            replay.apply(decision, seat=seat)
        assert (type(by_replay.value), str(by_replay.value)) == (
            type(by_apply.value),
            str(by_apply.value),
        )
    assert replay.state() == state
    finished = Replay(state)
    while finished.to_act is not None:
        finished.apply(finished.legal_decisions()[0])
    with pytest.raises(GameOver):
        finished.apply("play GO3")
