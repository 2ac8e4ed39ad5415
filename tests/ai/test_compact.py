"""The AI's compact engine plays the domain's rules (bench/differential.py compares a
million decisions; these tests a few thousand, and every conformance game)."""

import random

import pytest

from service.ai.compact import CODES, DECISIONS, CompactGame
from service.domain import (
    Decision,
    Settings,
    apply,
    legal_decisions,
    new_game,
    random_factions,
    result,
    shuffled_deck,
)
from tests.conformance_games import GAMES


def _legal(game: CompactGame) -> list[str]:
    return [DECISIONS[code].text for code in game.legal()]


@pytest.mark.parametrize("game", GAMES[::5], ids=[game["id"] for game in GAMES[::5]])
def test_the_compact_engine_reproduces_the_recorded_game(game):
    settings = Settings(game["players"], game["factions"], game["first_leader"])
    compact = CompactGame.deal(settings, new_game(settings, game["deck"]).deck)
    for number, step in enumerate(game["steps"]):
        assert compact.to_act == step["seat"], f"step {number}: acting seat"
        assert _legal(compact) == step["legal"], f"step {number}: legal"
        compact.apply(CODES[Decision.parse(step["move"])])
    assert compact.to_act is None
    assert [sorted(DECISIONS[c].card.code for c in pile) for pile in compact.scores] == game[
        "score_piles"
    ]
    outcome = compact.result()
    assert {f.code: side for f, side in outcome.faction_winners} == game["faction_winner"]
    assert [list(keys) for keys in outcome.side_keys] == game["side_keys"]
    assert outcome.winner == game["winner"]


def _random_games(games: int, seed: int):
    """(settings, deck, decisions) of random legal games of 2, 3 and 4 players."""
    rng = random.Random(seed)
    for number in range(games):
        players = 2 + number % 3
        settings = Settings(players, random_factions(players, rng), rng.randrange(players))
        deck = shuffled_deck(settings.factions, rng)
        state = new_game(settings, deck)
        decisions = []
        while state.to_act is not None:
            decisions.append(rng.choice(legal_decisions(state)))
            state = apply(state, decisions[-1])
        yield settings, deck, decisions


@pytest.mark.parametrize("seed", [1, 2])
def test_the_compact_engine_plays_random_games_as_the_domain_does(seed):
    """At every step the same legal decisions and the same position; the same result."""
    steps = 0
    for settings, deck, decisions in _random_games(45, seed):
        state, compact = new_game(settings, deck), CompactGame.deal(settings, deck)
        for decision in decisions:
            assert _legal(compact) == [d.text for d in legal_decisions(state)]
            compact.apply(CODES[decision])
            state = apply(state, decision)
            assert compact.position() == CompactGame.from_state(state).position()
            steps += 1
        assert compact.to_act is None
        assert compact.result() == result(state)
    assert steps > 3000


def test_a_game_read_from_any_state_plays_on_as_the_domain():
    """`from_state` midway (mid-trick, prizes to take, a Seer choice, phase 2) and then
    played on: the same positions as the domain's, and the same result."""
    seen = set()
    for settings, deck, decisions in _random_games(30, seed=3):
        state = new_game(settings, deck)
        for at, decision in enumerate(decisions):
            if at % 5 == 2 or state.seer_choice:
                compact = CompactGame.from_state(state)
                seen.add((state.phase, bool(state.trick), bool(state.takers), state.seer_choice))
                later = state
                for following in decisions[at:]:
                    compact.apply(CODES[following])
                    later = apply(later, following)
                    assert compact.position() == CompactGame.from_state(later).position()
                assert compact.result() == result(later)
            state = apply(state, decision)
    # Mid-trick and leading in both phases; prizes to take, with and without a Seer choice.
    assert {(1, True, False, False), (1, False, False, False), (2, True, False, False)} <= seen
    assert {(2, False, False, False), (1, True, True, False), (1, True, True, True)} <= seen


def test_a_copy_plays_on_without_changing_the_game_it_was_copied_from():
    settings, deck, decisions = next(_random_games(1, seed=4))
    game = CompactGame.deal(settings, deck)
    for decision in decisions[:20]:
        game.apply(CODES[decision])
    before = game.position()
    copy = game.copy()
    for decision in decisions[20:]:
        copy.apply(CODES[decision])
    assert copy.to_act is None
    assert game.position() == before
    game.apply(CODES[decisions[20]])  # and the game itself still plays on
    assert game.position() != before
