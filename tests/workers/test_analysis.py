"""`POST/GET /games/{id}/analysis`: asked once per game, computed by the workers in
parts, for archived games too, dropped and computed again by `claim rebuild`."""

from __future__ import annotations

from datetime import timedelta

import pytest

from service import cli, games
from service.ai.analysis import ANALYSIS_VERSION
from service.events import DecisionMade, GameResigned
from service.games.analyses import STALE
from tests.events.factories import new_game, play
from workers import jobs, worker

MOVES = 6  # decisions before the resignation: a short game to analyse


@pytest.fixture(autouse=True)
def _own_claim(monkeypatch):
    """The jobs run by `worker.run` use a Claim of its making."""
    monkeypatch.setattr(jobs, "_claim", None)


def resigned(claim):
    """A 2-player game that seat 0 resigned after `MOVES` decisions."""
    game = play(claim.store, new_game(claim.store, seed=3), moves=MOVES)
    claim.store.append(game.id, [GameResigned(seat=game.state.to_act)], game.version)
    return claim.store.load(game.id)


def queued(claim) -> list:
    return [(job.id, job.args) for job in claim.jobs.analysis.get_jobs()]


def test_an_analysis_is_queued_once_and_the_workers_answer_every_decision(claim, client, config):
    game = resigned(claim)
    first = client.post(f"/games/{game.id}/analysis")
    assert first.status_code == 202 and first.json["status"] == "queued"
    again = client.post(f"/games/{game.id}/analysis")
    assert again.status_code == 202 and again.json == first.json
    # One job, carrying ids only: the game, the analysis version, the first decision.
    assert queued(claim) == [
        (f"analysis-{game.id}-{ANALYSIS_VERSION}-0", (game.id, ANALYSIS_VERSION, 0))
    ]
    progress = client.get(f"/games/{game.id}/analysis").json
    assert (progress["status"], progress["done"], progress["total"]) == ("queued", 0, MOVES)

    worker.run(config, burst=True)

    done = client.get(f"/games/{game.id}/analysis")
    assert done.status_code == 200 and done.json["status"] == "done"
    made = [r for r in claim.store.read(game.id) if isinstance(r.event, DecisionMade)]
    judged = done.json["decisions"]
    assert [(d["step"], d["seat"], d["move"]) for d in judged] == [
        (r.version - 1, r.event.seat, str(r.event.decision)) for r in made
    ]
    for decision in judged:
        assert 0 <= decision["after"] <= decision["before"] <= 1
        assert decision["loss"] == pytest.approx(decision["before"] - decision["after"], abs=1e-4)
        assert sum(decision["chances"]) == pytest.approx(1)
    assert done.json["thresholds"] == {"inaccuracy": 0.1, "mistake": 0.2, "blunder": 0.3}
    asked_again = client.post(f"/games/{game.id}/analysis")
    assert asked_again.status_code == 200 and asked_again.json == done.json
    assert queued(claim) == []  # done: nothing queued again


def test_a_running_game_is_not_analysed_and_nothing_is_kept(claim, client):
    game = play(claim.store, new_game(claim.store), moves=2)
    refused = client.post(f"/games/{game.id}/analysis")
    assert refused.status_code == 409
    assert refused.json["type"] == "/problems/game-not-over"
    assert queued(claim) == []
    never = client.get(f"/games/{game.id}/analysis")
    assert never.status_code == 200
    assert (never.json["status"], never.json["done"], never.json["decisions"]) == ("none", 0, [])
    assert never.json["total"] == 2
    for method in ("get", "post"):
        unknown = getattr(client, method)("/games/nosuchgame/analysis")
        assert unknown.status_code == 404 and unknown.json["type"] == "/problems/unknown-game"


def test_an_archived_game_is_analysed_from_the_archive(claim, client, config):
    game = resigned(claim)
    assert games.archive(claim, [game.id]).archived == (game.id,)
    assert client.post(f"/games/{game.id}/analysis").status_code == 202
    worker.run(config, burst=True)
    done = client.get(f"/games/{game.id}/analysis").json
    assert done["status"] == "done" and len(done["decisions"]) == MOVES


def test_rebuild_drops_the_analyses_and_the_workers_compute_them_again(claim, client, config):
    game = resigned(claim)
    client.post(f"/games/{game.id}/analysis")
    worker.run(config, burst=True)
    before = client.get(f"/games/{game.id}/analysis").json
    assert before["status"] == "done"

    assert cli.rebuild(config) == 0

    dropped = client.get(f"/games/{game.id}/analysis").json
    assert (dropped["status"], dropped["decisions"]) == ("queued", [])
    assert len(queued(claim)) == 1
    worker.run(config, burst=True)
    assert client.get(f"/games/{game.id}/analysis").json == before  # the same, again


def test_an_analysis_that_failed_is_asked_for_again_from_the_start(claim, client, monkeypatch):
    game = resigned(claim)
    client.post(f"/games/{game.id}/analysis")
    monkeypatch.setattr("service.games.analyses.analyse", lambda *args: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        games.analyse_part(claim, game.id, ANALYSIS_VERSION, 0, last_try=True)
    failed = client.get(f"/games/{game.id}/analysis").json
    assert (failed["status"], failed["done"]) == ("failed", 0)
    claim.jobs.analysis.empty()
    again = client.post(f"/games/{game.id}/analysis")
    assert again.status_code == 202 and again.json["status"] == "queued"
    assert queued(claim) == [
        (f"analysis-{game.id}-{ANALYSIS_VERSION}-0", (game.id, ANALYSIS_VERSION, 0))
    ]


def test_an_analysis_whose_job_was_lost_is_queued_again_once_it_stood_still(
    claim, client, redis_client, config
):
    game = resigned(claim)
    client.post(f"/games/{game.id}/analysis")
    claim.jobs.analysis.empty()  # the job lost with its worker
    assert client.post(f"/games/{game.id}/analysis").status_code == 202
    assert queued(claim) == []  # under way, as far as anybody knows
    later = claim.clock() + timedelta(seconds=STALE + 1)
    claim_later = games.Claim.connect(config, client=redis_client, clock=lambda: later)
    try:
        asked = games.ask_analysis(claim_later, game.id)
    finally:
        claim_later.close()
    assert (asked.status, asked.judged) == ("queued", ())
    assert queued(claim) == [
        (f"analysis-{game.id}-{ANALYSIS_VERSION}-0", (game.id, ANALYSIS_VERSION, 0))
    ]
