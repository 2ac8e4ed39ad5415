"""`POST/GET /games/{id}/analysis`: asked once per game with a player key, a few per
player at once, computed by the workers in parts, first come first served (the game's
own players first), for archived games too, dropped and computed again by `claim
rebuild`."""

from __future__ import annotations

from datetime import timedelta

import pytest

from service import cli, games
from service.ai.analysis import ANALYSIS_VERSION
from service.events import DecisionMade, GameResigned
from service.games import analyses
from service.games.analyses import CHUNK, STALE
from service.games.jobs import analysis_job
from tests.api.test_player_stream import play
from tests.events.factories import new_game
from tests.events.factories import play as play_store
from workers import jobs, worker

MOVES = 6  # decisions before the resignation: a short game to analyse


@pytest.fixture(autouse=True)
def _own_claim(monkeypatch):
    """The jobs run by `worker.run` use a Claim of its making."""
    monkeypatch.setattr(jobs, "_claim", None)


def resigned(claim):
    """A 2-player game that seat 0 resigned after `MOVES` decisions."""
    game = play_store(claim.store, new_game(claim.store, seed=3), moves=MOVES)
    claim.store.append(game.id, [GameResigned(seat=game.state.to_act)], game.version)
    return claim.store.load(game.id)


def queued(claim, own: bool = False) -> list:
    """The parts waiting on the queue of others' asks (`own`: of the game's players)."""
    queue = claim.jobs.analysis if own else claim.jobs.analysis_others
    return [(job.id, job.args) for job in queue.get_jobs()]


def part(game_id: str, start: int) -> str:
    return analysis_job(game_id, ANALYSIS_VERSION, start)


@pytest.fixture
def me(client) -> dict:
    """The headers of a registered player's key: the player who asks."""
    return a_player(client, "Ann")[1]


def a_player(client, name: str) -> tuple[str, dict]:
    made = client.post("/players", json={"name": name}).json
    return made["player_id"], {"Authorization": f"Bearer {made['key']}"}


def a_game_of(client, ann: dict, bob_id: str, bob: dict) -> str:
    """An ended game of two registered players (by a challenge), of `MOVES` decisions."""
    made = client.post("/challenges", json={"to": bob_id, "factions": "claim"}, headers=ann).json
    game_id = client.post(f"/challenges/{made['id']}/accept", headers=bob).json["game_id"]
    play(client, game_id, {0: ann, 1: bob}, moves=MOVES)
    client.post(f"/games/{game_id}/resign", headers=ann)
    return game_id


def test_an_analysis_is_queued_once_and_the_workers_answer_every_decision(
    claim, client, config, me
):
    game = resigned(claim)
    first = client.post(f"/games/{game.id}/analysis", headers=me)
    assert first.status_code == 202 and first.json["status"] == "queued"
    again = client.post(f"/games/{game.id}/analysis", headers=me)
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
    asked_again = client.post(f"/games/{game.id}/analysis", headers=me)
    assert asked_again.status_code == 200 and asked_again.json == done.json
    assert queued(claim) == []  # done: nothing queued again


def test_a_running_game_is_not_analysed_and_nothing_is_kept(claim, client, me):
    game = play_store(claim.store, new_game(claim.store), moves=2)
    refused = client.post(f"/games/{game.id}/analysis", headers=me)
    assert refused.status_code == 409
    assert refused.json["type"] == "/problems/game-not-over"
    assert queued(claim) == []
    never = client.get(f"/games/{game.id}/analysis")
    assert never.status_code == 200
    assert (never.json["status"], never.json["done"], never.json["decisions"]) == ("none", 0, [])
    assert never.json["total"] == 2
    for method in ("get", "post"):
        unknown = getattr(client, method)("/games/nosuchgame/analysis", headers=me)
        assert unknown.status_code == 404 and unknown.json["type"] == "/problems/unknown-game"


def test_an_archived_game_is_analysed_from_the_archive(claim, client, config, me):
    game = resigned(claim)
    assert games.archive(claim, [game.id]).archived == (game.id,)
    assert client.post(f"/games/{game.id}/analysis", headers=me).status_code == 202
    worker.run(config, burst=True)
    done = client.get(f"/games/{game.id}/analysis").json
    assert done["status"] == "done" and len(done["decisions"]) == MOVES


def test_rebuild_drops_the_analyses_and_the_workers_compute_them_again(claim, client, config, me):
    game = resigned(claim)
    client.post(f"/games/{game.id}/analysis", headers=me)
    worker.run(config, burst=True)
    before = client.get(f"/games/{game.id}/analysis").json
    assert before["status"] == "done"

    assert cli.rebuild(config) == 0

    dropped = client.get(f"/games/{game.id}/analysis").json
    assert (dropped["status"], dropped["decisions"]) == ("queued", [])
    assert len(queued(claim)) == 1
    worker.run(config, burst=True)
    assert client.get(f"/games/{game.id}/analysis").json == before  # the same, again


def test_an_analysis_that_failed_is_asked_for_again_from_the_start(claim, client, monkeypatch, me):
    game = resigned(claim)
    client.post(f"/games/{game.id}/analysis", headers=me)
    monkeypatch.setattr("service.games.analyses.analyse", lambda *args: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        games.analyse_part(claim, game.id, ANALYSIS_VERSION, 0, last_try=True)
    failed = client.get(f"/games/{game.id}/analysis").json
    assert (failed["status"], failed["done"]) == ("failed", 0)
    claim.jobs.analysis_others.empty()
    again = client.post(f"/games/{game.id}/analysis", headers=me)
    assert again.status_code == 202 and again.json["status"] == "queued"
    assert queued(claim) == [
        (f"analysis-{game.id}-{ANALYSIS_VERSION}-0", (game.id, ANALYSIS_VERSION, 0))
    ]


def test_an_analysis_whose_job_was_lost_is_queued_again_once_it_stood_still(
    claim, client, redis_client, config, me
):
    game = resigned(claim)
    client.post(f"/games/{game.id}/analysis", headers=me)
    claim.jobs.analysis_others.empty()  # the job lost with its worker
    assert client.post(f"/games/{game.id}/analysis", headers=me).status_code == 202
    assert queued(claim) == []  # under way, as far as anybody knows
    later = claim.clock() + timedelta(seconds=STALE + 1)
    claim_later = games.Claim.connect(config, client=redis_client, clock=lambda: later)
    try:
        key = me["Authorization"].removeprefix("Bearer ")
        asked = games.ask_analysis(claim_later, key, game.id)
    finally:
        claim_later.close()
    assert (asked.status, asked.judged) == ("queued", ())
    assert queued(claim) == [
        (f"analysis-{game.id}-{ANALYSIS_VERSION}-0", (game.id, ANALYSIS_VERSION, 0))
    ]


def test_an_analysis_is_asked_for_with_a_player_key_only(claim, client):
    game = resigned(claim)
    refused = client.post(f"/games/{game.id}/analysis")
    assert refused.status_code == 401 and refused.json["type"] == "/problems/unauthorized"
    assert queued(claim) == [] and client.get(f"/games/{game.id}/analysis").json["status"] == "none"


@pytest.mark.single_redis  # the order of RQ's queues, on a single Redis on either kind
def test_a_player_has_three_analyses_under_way_at_most(claim, client, config, me):
    played = [resigned(claim) for _ in range(4)]
    asked = [client.post(f"/games/{game.id}/analysis", headers=me) for game in played]
    assert [answer.status_code for answer in asked] == [202, 202, 202, 429]
    assert asked[3].json["type"] == "/problems/too-many-analyses"
    assert "CLAIM_ANALYSES_QUEUED" in asked[3].json["detail"]
    assert client.get(f"/games/{played[3].id}/analysis").json["status"] == "none"
    assert client.post(f"/games/{played[0].id}/analysis", headers=me).status_code == 202  # again
    _, bob = a_player(client, "Bob")
    assert client.post(f"/games/{played[3].id}/analysis", headers=bob).status_code == 202

    worker.run(config, burst=True)  # all four done: Ann's places are free again

    assert client.post(f"/games/{resigned(claim).id}/analysis", headers=me).status_code == 202


@pytest.mark.single_redis  # the order of RQ's queues, on a single Redis on either kind
def test_an_analysis_under_way_goes_on_before_the_next_starts(claim, client, me):
    first, second = resigned(claim), resigned(claim)
    for game in (first, second):
        client.post(f"/games/{game.id}/analysis", headers=me)
    assert [job_id for job_id, _ in queued(claim)] == [part(first.id, 0), part(second.id, 0)]
    claim.jobs.analysis_others.remove(part(first.id, 0))  # taken by a worker, which runs it:
    games.analyse_part(claim, first.id, ANALYSIS_VERSION, 0)
    assert [job_id for job_id, _ in queued(claim)] == [part(first.id, CHUNK), part(second.id, 0)]


@pytest.mark.single_redis  # the order of RQ's queues, on a single Redis on either kind
def test_the_asks_of_a_games_players_are_served_before_the_others(claim, client):
    _, ann = a_player(client, "Ann")
    bob_id, bob = a_player(client, "Bob")
    _, eve = a_player(client, "Eve")
    theirs, other = a_game_of(client, ann, bob_id, bob), resigned(claim).id
    assert client.post(f"/games/{theirs}/analysis", headers=ann).status_code == 202
    client.post(f"/games/{other}/analysis", headers=eve)
    assert queued(claim, own=True) == [(part(theirs, 0), (theirs, ANALYSIS_VERSION, 0))]
    assert queued(claim) == [(part(other, 0), (other, ANALYSIS_VERSION, 0))]
    # The lane takes the queue of the players' asks first.
    assert claim.jobs.analysis_queues == [claim.jobs.analysis, claim.jobs.analysis_others]


@pytest.mark.single_redis  # the order of RQ's queues, on a single Redis on either kind
def test_a_player_asking_for_an_analysis_that_others_asked_for_moves_it_ahead(claim, client):
    _, ann = a_player(client, "Ann")
    bob_id, bob = a_player(client, "Bob")
    _, eve = a_player(client, "Eve")
    theirs = a_game_of(client, ann, bob_id, bob)
    client.post(f"/games/{theirs}/analysis", headers=eve)
    assert [job_id for job_id, _ in queued(claim)] == [part(theirs, 0)]
    assert client.post(f"/games/{theirs}/analysis", headers=bob).status_code == 202
    assert queued(claim) == []
    assert [job_id for job_id, _ in queued(claim, own=True)] == [part(theirs, 0)]


@pytest.mark.single_redis  # the order of RQ's queues, on a single Redis on either kind
def test_a_player_asking_while_a_part_runs_has_the_next_part_moved_ahead(
    claim, client, monkeypatch
):
    """The part under way read that others asked; a player of the game asks while it
    runs: its next part goes on the players' queue all the same."""
    _, ann = a_player(client, "Ann")
    bob_id, bob = a_player(client, "Bob")
    _, eve = a_player(client, "Eve")
    theirs = a_game_of(client, ann, bob_id, bob)
    client.post(f"/games/{theirs}/analysis", headers=eve)
    claim.jobs.analysis_others.remove(part(theirs, 0))  # taken by a worker
    judge = analyses.analyse

    def asked_meanwhile(*args):
        assert client.post(f"/games/{theirs}/analysis", headers=bob).status_code == 202
        yield from judge(*args)

    monkeypatch.setattr(analyses, "analyse", asked_meanwhile)
    games.analyse_part(claim, theirs, ANALYSIS_VERSION, 0)
    assert queued(claim) == []
    assert [job_id for job_id, _ in queued(claim, own=True)] == [part(theirs, CHUNK)]
