"""All conformance games (tests/conformance/games.jsonl) replayed as events through the Redis
store and folded back by a fresh store: the fold scores them as the file says."""

import pytest

from service.domain import Decision, Settings
from service.events import AI, COMPLETED, DecisionMade, Ending, SeatSpec
from tests.conformance_games import GAMES

# Every tenth game is appended one decision at a time, each after the version the last
# append answered; the others in one append of all their decisions, for speed.
ONE_BY_ONE = {game["id"] for game in GAMES[::10]}


def _decisions(game: dict) -> list[DecisionMade]:
    return [DecisionMade(step["seat"], Decision.parse(step["move"])) for step in game["steps"]]


@pytest.mark.parametrize("game", GAMES, ids=[game["id"] for game in GAMES])
def test_a_conformance_game_replayed_through_the_store_folds_to_its_recorded_end(
    store, new_store, game
):
    settings = Settings(game["players"], game["factions"], game["first_leader"])
    created = store.create(settings, [SeatSpec(AI, "random")] * settings.players, deck=game["deck"])
    decisions = _decisions(game)
    if game["id"] in ONE_BY_ONE:
        for expected, decision in enumerate(decisions, start=created.version):
            assert store.append(created.id, [decision], expected) == expected + 1
        assert [record.event for record in store.read(created.id, after=1)] == decisions
    else:
        assert store.append(created.id, decisions, created.version) == len(decisions) + 1

    folded = new_store().load(created.id)  # no cached fold

    assert (folded.version, folded.decisions) == (len(decisions) + 1, len(decisions))
    state, outcome = folded.state, folded.result
    assert list(state.round_leaders) == game["round_leaders"]
    assert [sorted(card.code for card in pile) for pile in state.score_piles] == game["score_piles"]
    assert {f.code: side for f, side in outcome.faction_winners} == game["faction_winner"]
    assert [list(keys) for keys in outcome.side_keys] == game["side_keys"]
    assert outcome.winner == game["winner"]
    winners = () if game["winner"] is None else (game["winner"],)
    assert folded.ending == Ending(COMPLETED, None, winners)
