"""The expert's analysis: a blunder that decides a game is marked, each decision is
judged from what its seat could see and nothing else, and the same game gives the same
analysis."""

from __future__ import annotations

import itertools
import random

import pytest

from service.ai import analysis, greedy
from service.ai.analysis import BLUNDER, _SeatView, analyse
from service.ai.determinize import sample_state, states
from service.ai.greedy import ranked
from service.domain import (
    Observation,
    Settings,
    State,
    apply,
    legal_decisions,
    new_game,
    observe,
    result,
    shuffled_deck,
)
from tests.ai.oracles.endgame import solve
from tests.domain.factories import CLAIM, CLAIM2, SEVEN, SEVEN2
from tests.sizes import sized

SEED = "test-game/analysis-1"


def played_out(state: State, choose, decisions: list) -> State:
    """`state` played to its end, each decision chosen by `choose(state)` and added to
    `decisions` as (seat, decision)."""
    while state.to_act is not None:
        decision = choose(state)
        decisions.append((state.to_act, decision))
        state = apply(state, decision)
    return state


def by_greedy(state: State):
    return greedy(observe(state, state.to_act), random.Random(0))


def perfectly(state: State):
    """The decision of perfect play (a 2-player phase 2, small enough to solve)."""
    return solve(state, state.to_act, budget=1_000_000).decision


def a_decided_blunder(cards_left: int = 5):
    """A 2-player game that greedy plays until each hand has `cards_left` cards in
    phase 2, where the seat to act holds a won game and throws it away with one
    decision; both then play perfectly. (settings, deck, decisions, the blunder's index)."""
    settings = Settings(2, CLAIM)
    for seed in range(100):
        deck = shuffled_deck(settings.factions, random.Random(seed))
        state, decisions = new_game(settings, deck), []
        while not (state.phase == 2 and len(state.hands[state.to_act]) == cards_left):
            decisions.append((state.to_act, by_greedy(state)))
            state = apply(state, decisions[-1][1])
        seat = state.to_act
        if solve(state, seat, budget=1_000_000).value != 1.0:
            continue
        for decision in legal_decisions(state):
            after = apply(state, decision)
            other = after.to_act
            if other != seat and solve(after, other, budget=1_000_000).value == 1.0:
                index = len(decisions)
                decisions.append((seat, decision))
                final = played_out(after, perfectly, decisions)
                assert result(final).winner == other  # the game turned on it
                return settings, deck, decisions, index
    raise AssertionError("no game with a deciding blunder among the seeds tried")


def test_a_blunder_that_loses_a_won_game_is_marked_with_the_better_decision():
    settings, deck, decisions, index = a_decided_blunder()
    judged = list(analyse(settings, deck, decisions, SEED, start=index))
    blunder = judged[0]
    assert blunder.index == index and blunder.played == decisions[index][1]
    assert (blunder.before, blunder.after) == (1.0, 0.0)
    assert blunder.exact and blunder.loss > BLUNDER and blunder.mark == "blunder"
    state = new_game(settings, deck)
    for seat, decision in decisions[:index]:
        state = apply(state, decision, seat=seat)
    better = apply(state, blunder.best)  # the better decision keeps the game won
    if better.to_act == blunder.seat:
        assert solve(better, blunder.seat, budget=1_000_000).value == 1.0
    else:
        assert solve(better, better.to_act, budget=1_000_000).value == 0.0
    assert [j.mark for j in judged[1:]] == [None] * (len(judged) - 1)  # perfect play after


def winners(deals: list[State], decision) -> set:
    """Who wins each of `deals` after `decision`, greedy playing on."""
    return {result(played_out(apply(deal, decision), by_greedy, [])).winner for deal in deals}


def a_blunder_whatever_the_cards_unseen():
    """A 3-player game that greedy plays into phase 2 until the seat to act, with a
    few cards left, wins with one decision and loses with another in each of 100 deals
    of the cards it cannot see (played out by greedy); it plays the losing one, and
    greedy plays on. (settings, deck, decisions, the blunder's index, the winning
    decision)."""
    settings = Settings(3, SEVEN)
    for seed in range(100):
        deck = shuffled_deck(settings.factions, random.Random(seed))
        state, decisions = new_game(settings, deck), []
        while state.to_act is not None:
            seat, legal = state.to_act, legal_decisions(state)
            if state.phase == 2 and len(state.hands[seat]) <= 3 and len(legal) > 1:
                deals = list(itertools.islice(states(observe(state, seat), random.Random(1)), 100))
                for good, bad in itertools.permutations(legal, 2):
                    if winners(deals, good) == {seat} and seat not in winners(deals, bad):
                        index = len(decisions)
                        decisions.append((seat, bad))
                        final = played_out(apply(state, bad), by_greedy, decisions)
                        assert result(final).winner != seat
                        return settings, deck, decisions, index, good
            decisions.append((seat, by_greedy(state)))
            state = apply(state, decisions[-1][1])
    raise AssertionError("no such game among the seeds tried")


def test_a_blunder_under_hidden_cards_is_marked_from_the_sampled_deals():
    settings, deck, decisions, index, good = a_blunder_whatever_the_cards_unseen()
    [blunder] = analyse(settings, deck, decisions, SEED, start=index, stop=index + 1)
    assert not blunder.exact and blunder.best == good
    assert blunder.before > 0.9 and blunder.after < 0.1 and blunder.mark == "blunder"


def a_game(players: int, deck_seed: int, factions=None):
    """A game of greedy seats: (settings, deck, decisions)."""
    settings = Settings(players, factions or (CLAIM if players == 2 else SEVEN2))
    deck = shuffled_deck(settings.factions, random.Random(deck_seed))
    decisions = []
    played_out(new_game(settings, deck), by_greedy, decisions)
    return settings, deck, decisions


@pytest.mark.parametrize(
    "players, factions, deck_seed",
    [
        *sized([], [(2, CLAIM, 5)]),  # (the Seer's game below is one of 2 players too)
        (4, SEVEN2, 5),  # seat 0's partner's cards changed too
        (2, CLAIM2, 9),  # seat 1 peeks at the draw pile with a Seer at decision 2
    ],
)
def test_a_seats_decisions_are_judged_the_same_whatever_it_could_not_see(
    players, factions, deck_seed
):
    """The same game up to the decision `up_to`, dealt again with every card seat 0
    had not seen by then placed elsewhere (a deck that agrees with all seat 0 saw),
    then played on: seat 0's decisions up to there are judged alike, as seat 0 saw
    the same; seat 1, which saw other cards, is judged otherwise."""
    up_to = 9
    settings, deck, decisions = a_game(players, deck_seed, factions)
    state = new_game(settings, deck)
    for seat, decision in decisions[:up_to]:
        state = apply(state, decision, seat=seat)
    seen = observe(state, 0)
    other_state = sample_state(seen, random.Random(17))
    assert observe(other_state, 0) == seen and other_state.deck != deck
    other_decisions = decisions[:up_to]
    played_out(other_state, by_greedy, other_decisions)

    judged = list(analyse(settings, deck, decisions, SEED, stop=up_to + 1))
    judged_again = list(analyse(settings, other_state.deck, other_decisions, SEED, stop=up_to + 1))
    mine = [(a, b) for a, b in zip(judged, judged_again, strict=True) if a.seat == 0]
    assert len(mine) >= 2 and all(a == b for a, b in mine)
    theirs = [(a, b) for a, b in zip(judged, judged_again, strict=True) if a.seat == 1]
    assert any(a != b for a, b in theirs)


def test_the_same_game_gives_the_same_analysis_in_any_order():
    settings, deck, decisions = a_game(2, deck_seed=8)
    start = 16  # in phase 1, past its middle: shorter playouts
    whole = list(analyse(settings, deck, decisions, SEED, start=start, stop=start + 4))
    in_parts = [
        *analyse(settings, deck, decisions, SEED, start=start + 2, stop=start + 4),
        *analyse(settings, deck, decisions, SEED, start=start, stop=start + 2),
    ]
    assert sorted(in_parts, key=lambda judged: judged.index) == whole
    other_game = analyse(settings, deck, decisions, "another-game/analysis-1", start, start + 4)
    assert list(other_game) != whole  # the seed is the game's: the deals drawn differ


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_playouts_view_of_a_seat_is_its_observation_but_for_the_history(players):
    """The playouts show greedy each seat's view without redacting the history (its
    cost): every other field is the observation's, and greedy decides alike."""
    factions = {2: CLAIM, 3: SEVEN2, 4: SEVEN2}[players]
    settings = Settings(players, factions)
    state = new_game(settings, shuffled_deck(settings.factions, random.Random(players)))
    fields = [name for name in _SeatView.__dict__ if name in Observation.__dataclass_fields__]
    fields.remove("rounds")  # unredacted: greedy reads only its public parts
    fields.remove("acquired")  # likewise
    while state.to_act is not None:
        seat = state.to_act
        view, seen = _SeatView(state, seat), observe(state, seat)
        assert {f: getattr(view, f) for f in fields} == {f: getattr(seen, f) for f in fields}
        decision = greedy(view, random.Random(0))
        assert decision == greedy(seen, random.Random(0))
        state = apply(state, decision)


def test_a_2_player_phase_2_too_big_to_solve_is_judged_by_graded_playouts():
    """Its first tricks, 13 to 11 cards a hand: no one greedy playout's 1 or 0, but
    randomized playouts giving graded chances, a rough estimate never marked (deck 7:
    a phase 2 that is not one-sided)."""
    settings, deck, decisions = a_game(2, deck_seed=7)
    state, index = new_game(settings, deck), 0
    while state.phase == 1:
        state = apply(state, decisions[index][1], seat=decisions[index][0])
        index += 1
    rough = list(analyse(settings, deck, decisions, SEED, start=index, stop=index + 4))
    assert [judged.phase for judged in rough] == [2] * 4
    assert all(judged.method == "playouts" and judged.error < 1 for judged in rough)
    graded = [c for judged in rough for c in (judged.before, judged.after) if 0 < c < 1]
    assert graded  # a share of the playouts, not one playout's 1 or 0
    assert all(judged.mark is None for judged in rough)


def test_a_winning_decision_is_judged_exactly_though_its_rivals_are_too_big_to_solve(
    monkeypatch,
):
    """Nothing does better than a win: a decision played that is solved as a win is
    judged exact, whatever the other candidates; one too big to solve is played out."""
    settings, deck, decisions, index = a_decided_blunder()
    winner = index + 1  # the seat that profits, playing perfectly on
    solved = analysis._solved
    calls = []

    def played_only(state):  # the position too big to solve, and every candidate but the first
        calls.append(state)
        return solved(state) if len(calls) == 2 else None

    monkeypatch.setattr(analysis, "_solved", played_only)
    [judged] = analyse(settings, deck, decisions, SEED, start=winner, stop=winner + 1)
    assert len(calls) == 3  # the second candidate too big: no more tried
    assert judged.method == "exact" and (judged.before, judged.after) == (1.0, 1.0)
    assert judged.best == judged.played and judged.mark is None

    monkeypatch.setattr(analysis, "_solved", lambda state: None)
    [rough] = analyse(settings, deck, decisions, SEED, start=winner, stop=winner + 1)
    assert rough.method == "playouts" and rough.played == judged.played


def test_an_exact_judgement_weighs_perfect_play_whatever_greedy_ranks_it():
    """In a solved 2-player phase 2, `before` is the position's value under perfect
    play, and `best` its decision (or the decision played, as good), even where greedy
    ranks that decision low."""
    settings, deck, decisions, index = a_decided_blunder()
    start = index - 6
    judged = list(analyse(settings, deck, decisions, SEED, start=start))
    state = new_game(settings, deck)
    for seat, decision in decisions[:start]:
        state = apply(state, decision, seat=seat)
    outside_greedy = 0
    for one, (seat, decision) in zip(judged, decisions[start:], strict=True):
        solution = solve(state, seat, budget=1_000_000)
        assert one.exact and one.before == solution.value
        assert one.best in (solution.decision, one.played if one.after == one.before else None)
        outside_greedy += solution.decision not in ranked(observe(state, seat))[:3]
        state = apply(state, decision, seat=seat)
    assert outside_greedy  # the case: a decision greedy would not have weighed
