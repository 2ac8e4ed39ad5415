"""The compact engine, the oracle that holds the compiled one (tests/ai/oracles/),
plays the domain's rules (bench/differential.py compares a million decisions; these
tests every conformance game and a few thousand decisions)."""

import random

import pytest

from service.ai.codes import CODES, DECISIONS
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
from tests.ai.oracles.compact import CompactGame
from tests.conformance_games import GAMES
from tests.domain.factories import a_game


def _legal(game: CompactGame) -> list[str]:
    return [DECISIONS[code].text for code in game.legal_decisions()]


@pytest.mark.parametrize("game", GAMES, ids=[game["id"] for game in GAMES])
def test_the_compact_engine_reproduces_the_recorded_game(game):
    settings = Settings(game["players"], game["factions"], game["first_leader"])
    compact = CompactGame.deal(settings, new_game(settings, game["deck"]).deck)
    for number, step in enumerate(game["steps"]):
        assert compact.to_act == step["seat"], f"step {number}: acting seat"
        assert _legal(compact) == step["legal"], f"step {number}: legal"
        compact.apply(CODES[Decision.parse(step["move"])])
    assert compact.to_act is None
    assert [sorted(DECISIONS[c].card.code for c in pile) for pile in compact.score_piles] == game[
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
        assert compact.to_act is None and compact.legal_decisions() == []
        assert compact.result() == result(state)
        assert compact.winner() == result(state).winner
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


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_copy_plays_on_without_changing_the_game_it_was_copied_from(players):
    """Copies in each phase, mid-round and between rounds: each played to the end
    leaves its original as it was, and the original then plays on as the domain."""
    settings, deck, decisions = next(g for g in _random_games(3, seed=4) if g[0].players == players)
    game, state = CompactGame.deal(settings, deck), new_game(settings, deck)
    copied = set()
    for at, decision in enumerate(decisions):
        if at % 9 == 4 or (state.phase, bool(state.trick)) not in copied:
            before, copy = game.position(), game.copy()
            for following in decisions[at:]:
                copy.apply(CODES[following])
            assert copy.to_act is None
            assert game.position() == before
            copied.add((state.phase, bool(state.trick)))
        game.apply(CODES[decision])
        state = apply(state, decision)
        assert game.position() == CompactGame.from_state(state).position()
    assert copied == {(1, False), (1, True), (2, False), (2, True)}


def test_a_state_whose_hand_is_out_of_code_order_is_read_as_the_domain_reads_it():
    """The follow rule holds for a hand built out of order (only by hand: the engine
    keeps hands in code order); the compact engine lists the plays in code order."""
    state = apply(a_game(hands={0: "GO3", 1: "GO5 DW4 DO2"}), "play GO3")
    shuffled = state._replace(hands=(state.hands[0], tuple(reversed(state.hands[1]))))
    codes = CompactGame.from_state(shuffled).legal_decisions()
    assert [DECISIONS[code] for code in codes] == sorted(legal_decisions(shuffled))
