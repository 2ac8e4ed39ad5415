"""All conformance games (tests/conformance/games.jsonl), step by step (RULES.md, all sections)."""

import json

import pytest

from service.conformance import first_difference
from service.domain import Replay, Settings, apply, legal_decisions, new_game, result
from tests.conformance_games import GAMES


def test_the_conformance_file_holds_games_of_every_player_count():
    assert {game["players"] for game in GAMES} == {2, 3, 4}


@pytest.mark.parametrize("game", GAMES, ids=[game["id"] for game in GAMES])
def test_the_engine_reproduces_the_recorded_game(game):
    state = new_game(
        Settings(game["players"], game["factions"], game["first_leader"]), game["deck"]
    )
    for number, step in enumerate(game["steps"]):
        assert state.to_act == step["seat"], f"step {number}: acting seat"
        assert [str(d) for d in legal_decisions(state)] == step["legal"], f"step {number}: legal"
        state = apply(state, step["move"])
    assert state.to_act is None, "the game is over after its last step"
    assert list(state.round_leaders) == game["round_leaders"]
    assert [sorted(card.code for card in pile) for pile in state.score_piles] == game["score_piles"]
    outcome = result(state)
    assert {f.code: side for f, side in outcome.faction_winners} == game["faction_winner"]
    assert [list(keys) for keys in outcome.side_keys] == game["side_keys"]
    assert outcome.winner == game["winner"]


@pytest.mark.parametrize("game", GAMES, ids=[game["id"] for game in GAMES])
def test_a_replay_reproduces_the_recorded_game_as_apply_does(game):
    state = new_game(
        Settings(game["players"], game["factions"], game["first_leader"]), game["deck"]
    )
    replay = Replay(state)
    for number, step in enumerate(game["steps"]):
        assert replay.to_act == step["seat"], f"step {number}: acting seat"
        legal = [str(d) for d in replay.legal_decisions()]
        assert legal == step["legal"], f"step {number}: legal"
        replay.apply(step["move"])
        state = apply(state, step["move"])
    assert replay.state() == state


def test_first_difference_finds_nothing_in_a_recorded_game():
    assert first_difference(GAMES[0]) is None


def test_first_difference_names_the_step_whose_legal_decisions_differ():
    game = json.loads(json.dumps(GAMES[0]))
    game["steps"][5]["legal"] = game["steps"][5]["legal"][1:]
    assert first_difference(game).startswith("step 5: legal decisions")


def test_first_difference_names_a_wrong_acting_seat():
    game = json.loads(json.dumps(GAMES[0]))
    game["steps"][3]["seat"] = 1 - game["steps"][3]["seat"]
    assert first_difference(game).startswith("step 3: seat")


def test_first_difference_names_a_wrong_winner():
    game = json.loads(json.dumps(GAMES[0]))
    game["winner"] = None if game["winner"] is not None else 0
    assert first_difference(game).startswith("winner:")


def test_first_difference_reports_a_malformed_record():
    assert "malformed record" in first_difference({"id": "x", "players": 2})
