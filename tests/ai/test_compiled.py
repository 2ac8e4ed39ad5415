"""The compiled engine (`compiled.py`) plays as its Python oracles do, the compact
engine and greedy on it (tests/ai/oracles/; tests/ai/test_compact_greedy.py compares
every position, each seat's knowledge and greedy's decision over a hundred thousand
positions): here the conformance games, the rollouts' scores, the deals, and the
expert's last resort in an endgame; and the compiled endgame searches
(`compiled_endgame.py`) search as the oracle's (`oracles/endgame.py`)."""

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest

from service.ai import compiled, compiled_endgame, expert
from service.ai.codes import CODES, DECISIONS
from service.ai.determinize import hidden, states, worlds
from service.ai.worths import PHASE2_WORTHS
from service.domain import (
    Decision,
    Settings,
    apply,
    legal_decisions,
    legal_faction_sets,
    new_game,
    observe,
    shuffled_deck,
)
from tests.ai.oracles import endgame
from tests.ai.oracles.compact_greedy import KnowingGame, decide
from tests.ai.oracles.rollout import outcome, rollout
from tests.ai.test_compact_greedy import compared_games
from tests.ai.test_players import random_states
from tests.conformance_games import GAMES


@pytest.mark.parametrize("game", GAMES[::10], ids=[game["id"] for game in GAMES[::10]])
def test_the_compiled_engine_reproduces_recorded_games(game):
    settings = Settings(game["players"], game["factions"], game["first_leader"])
    deck = new_game(settings, game["deck"]).deck
    array = compiled.deal(
        compiled.settings_array(settings),
        np.array([card.index for card in deck], dtype=np.int64),
        settings.first_leader,
    )
    legal = np.empty(100, dtype=np.int64)
    for number, step in enumerate(game["steps"]):
        assert array[compiled.TO_ACT] == step["seat"], f"step {number}: acting seat"
        n = compiled.legal(array, legal)
        assert [DECISIONS[code].text for code in legal[:n]] == step["legal"], f"step {number}"
        compiled.apply(array, CODES[Decision.parse(step["move"])])
    assert array[compiled.TO_ACT] == compiled.NOBODY
    assert compiled.side_keys(array).tolist() == game["side_keys"]
    winner = compiled.winning_side(compiled.side_keys(array))
    assert (None if winner == -1 else winner) == game["winner"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_compiled_rollout_scores_as_the_python_one(players):
    """From phase 1 with 2 or 3 players the chance at phase 2's start; else, and from
    phase 2, the played-out score; and `outcome` the played-out result."""
    worths = np.array(PHASE2_WORTHS.get(players, ()), dtype=np.float64)
    compared = 0
    for number, (_, _, game, array) in enumerate(compared_games(games=30, seed=players)):
        if game.players != players or game.to_act is None or number % 5:
            continue
        side = game.to_act % 2 if players == 4 else game.to_act
        for code in game.legal_decisions():
            judge = worths if game.phase == 1 else worths[:0]
            assert compiled.rollout(array, code, side, judge) == pytest.approx(
                rollout(game, code, side), abs=1e-12
            )
            played = game.copy()
            played.apply(code)
            while played.to_act is not None:
                played.apply(decide(played))
            assert compiled.outcome(array, code, side) == outcome(played.side_keys(), side)
        compared += 1
    assert compared > 20


def test_the_compiled_deals_agree_with_everything_the_seat_knows():
    """`worlds` deals what `decks` deals from the same random numbers, played to the
    observed position: the domain's sampled state seen from the seat is the
    observation, the same position, each seat's unseen cards its observation's."""
    compared = 0
    for number, state in enumerate(random_states(games=6, seed=9)):
        if number % 4:
            continue
        seat = state.to_act
        view = observe(state, seat)
        array = next(worlds(view, random.Random(number)))
        sampled = next(states(view, random.Random(number)))
        assert observe(sampled, seat) == view
        assert compiled.position(array) == KnowingGame.from_state(sampled).position()
        for other in range(state.players):
            assert compiled.unseen(array, other) == KnowingGame.from_state(sampled).unseen[other]
        compared += 1
    assert compared > 80


def test_the_compiled_deals_are_uniform_over_what_the_seat_cannot_tell_apart():
    """In a 2-player phase 1 where the other seat has shown it lacks a faction: the
    other hand never holds that faction, and each other hidden card (one copy of it)
    lies in that hand with the chance of a uniform deal, the hand's size over the
    hidden cards it may hold."""
    view = next(
        view
        for state in random_states(games=30, seed=11)
        if state.players == 2 and state.phase == 1
        for view in [observe(state, state.to_act)]
        if hidden(view).lacks[1 - view.seat]
    )
    other = 1 - view.seat
    unknown = hidden(view)
    allowed = [card for card in unknown.cards if card.faction not in unknown.lacks[other]]
    draws, held = 2_000, Counter()
    for state in itertools.islice(states(view, random.Random(3)), draws):
        hand = state.hands[other]
        assert not any(card.faction in unknown.lacks[other] for card in hand)
        held.update(set(hand))
    chance = unknown.hand_sizes[other] / len(allowed)
    singles = [card for card in allowed if allowed.count(card) == 1]
    assert len(singles) > 5
    for card in singles:  # 4.5 standard errors of 2,000 draws
        assert abs(held[card] / draws - chance) < 4.5 * (chance * (1 - chance) / draws) ** 0.5


def phase2_positions(count: int, seed: int, cards: tuple[int, ...]):
    """2-player phase-2 states, randomly played to a random number of `cards` a hand."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        factions = rng.choice(legal_faction_sets(2))
        state = new_game(Settings(2, factions, rng.randrange(2)), shuffled_deck(factions, rng))
        left = rng.choice(cards)
        while state.to_act is not None and (state.phase == 1 or len(state.hands[0]) > left):
            state = apply(state, rng.choice(legal_decisions(state)))
        if state.to_act is not None:
            made += 1
            yield state


def test_the_experts_last_resort_in_an_endgame_plays_as_the_python_playouts_would():
    """`expert.best_playout`, which the expert plays when it cannot solve a 2-player
    phase 2 (or finds no swindle in a lost one), is the decision whose greedy playout
    in the oracle scores best, the first on a tie."""
    compared = ties = 0
    for state in phase2_positions(150, seed=4, cards=tuple(range(2, 14))):
        side = state.to_act
        world = KnowingGame.from_state(state)
        scores = [rollout(world, code, side) for code in world.legal_decisions()]
        best = world.legal_decisions()[scores.index(max(scores))]
        assert expert.best_playout(state, side) == DECISIONS[best]
        compared += len(scores) > 1
        ties += len(scores) > len(set(scores))
    assert compared > 100 and ties > 10


def test_the_compiled_endgame_searches_solve_as_the_python_ones():
    """`compiled_endgame.solve` and `exploit` give the decision, the value and the
    count of positions searched of `endgame`'s, mid-round positions included, and give
    up past the same budget."""
    for state in phase2_positions(40, seed=5, cards=(5, 6, 7, 8)):
        side = state.to_act
        for python, compiled_search in (
            (endgame.solve, compiled_endgame.solve),
            (endgame.exploit, compiled_endgame.exploit),
        ):
            expected = python(state, side, 10**7)
            found = compiled_search(state, side, 10**7)
            assert (found.decision, found.value, found.positions) == expected
            if expected.positions:  # (none: greedy's replies decide the game at once)
                assert compiled_search(state, side, expected.positions - 1) is None
            assert compiled_search(state, side, expected.positions) == expected


def test_the_compiled_endgame_search_by_time_asks_the_clock_between_slices():
    """A search too big for one slice asks `time_up` after each: told the time is up
    at once, it gives up after one slice; never told, it ends with the solution."""
    state = next(
        s
        for s in phase2_positions(20, seed=8, cards=(10, 11))
        if endgame.solve(s, s.to_act, compiled_endgame.SLICE) is None
    )
    asked = []
    time_up = lambda: asked.append(1) or True  # noqa: E731
    assert compiled_endgame.solve(state, state.to_act, math.inf, time_up) is None
    assert asked == [1]
    solution = compiled_endgame.solve(state, state.to_act, math.inf, lambda: False)
    assert solution.value == endgame.solve(state, state.to_act, 10**8).value
