"""Whole games with real `claim worker` processes on a real Redis, and their faults."""

import itertools
import os
import time

import pytest

from service import games
from service.domain import Settings
from service.events import (
    HUMAN,
    RUNNING,
    DecisionMade,
    GameResigned,
    SeatJoined,
    TurnTimedOut,
    fold,
)
from service.games import Change, changed, turns
from service.games.jobs import ALIVE
from tests.events.factories import FACTIONS, TOKEN_HASH, new_game, play, seats
from tests.processes import descendants
from tests.workers.conftest import kill
from workers.worker import ANALYSIS_NICE

GIVE_UP = 120  # seconds: a test that waits longer has failed


def _wait_until(condition, what: str):
    deadline = time.monotonic() + GIVE_UP
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def _check_one_decision_per_version(store, game_id):
    """Versions run 1..N, each decision legal where it stands (the fold checks), and
    no turn was played twice."""
    records = store.read(game_id)
    assert [record.version for record in records] == list(range(1, len(records) + 1))
    game = fold(game_id, records)
    decisions = [r for r in records if isinstance(r.event, DecisionMade)]
    assert len(decisions) == game.decisions
    assert len({r.id for r in decisions}) == len(decisions)
    return game


@pytest.mark.parametrize(("players", "level"), [(2, "expert"), (3, "greedy"), (4, "greedy")])
def test_a_person_plays_a_whole_game_against_ais(
    claim, client, store, start_worker, tmp_path, players, level
):
    """A worker says that it loads the expert's compiled search, and when the expert
    plays (its lane's horses, forked after, have it)."""
    seats = [{"kind": "human"}] + [{"kind": "ai", "level": level}] * (players - 1)
    created = client.post("/games", json={"players": players, "seats": seats}).json
    game_id = created["game_id"]
    start_worker()
    token = client.post(
        f"/games/{game_id}/seats/0",
        json={"invite": created["invites"][0]["invite"], "name": "Ann"},
    ).json["token"]
    me = {"Authorization": f"Bearer {token}"}
    view = client.get(f"/games/{game_id}", headers=me).json
    deadline = time.monotonic() + GIVE_UP
    while view["status"] == RUNNING:
        assert time.monotonic() < deadline, "the game did not finish"
        if view["table"]["to_act"] == 0:
            move = view["you"]["legal"][0]
            response = client.post(
                f"/games/{game_id}/moves",
                json={"move": move, "expected_version": view["version"]},
                headers={**me, "Idempotency-Key": f"{view['version']}"},
            )
            assert response.status_code == 201, response.json
            view = response.json["view"]
        else:
            view = client.get(f"/games/{game_id}?after={view['version']}&wait=5", headers=me).json
    assert view["status"] == "finished"
    game = _check_one_decision_per_version(store, game_id)
    assert game.ending.reason == "completed"
    log = (tmp_path / "worker-0.log").read_text()
    loading = log.index("loading the expert's compiled search")
    loaded = log.index("the expert plays, its search loaded in", loading)
    assert claim.jobs.expert_ai.name in log[loaded:]  # its lane serves it only since


@pytest.mark.single_redis  # numba's cache, not Redis
def test_a_worker_whose_compiled_rollouts_have_no_cache_says_so(start_worker, tmp_path):
    """Where numba can write its cache nowhere (here: only NUMBA_CACHE_DIR may hold it,
    and it lies under a file), the worker says what to do and exits 1, starting no
    work."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    worker = start_worker(
        NUMBA_CACHE_DIR=str(blocker / "numba"),
        NUMBA_CACHE_LOCATOR_CLASSES="UserProvidedCacheLocator",
    )
    assert worker.wait(timeout=GIVE_UP) == 1
    log = (tmp_path / "worker-0.log").read_text()
    assert "numba has no directory to cache the expert's compiled search" in log
    assert "set NUMBA_CACHE_DIR to a directory it may write" in log
    assert "Traceback" not in log
    assert "ai-expert" not in log  # its lane served nothing


@pytest.mark.cluster_in_full  # the jobs' idempotence is the store's, tested on both
def test_the_same_ai_job_run_twice_gives_one_move_per_turn(claim, store, start_worker):
    game = new_game(store, players=3)
    for _ in range(2):  # two jobs of one turn
        claim.jobs.ai.enqueue("workers.jobs.ai_turn", game.id, game.version)
    worker = start_worker("--burst")
    worker.wait(timeout=GIVE_UP)
    game = _check_one_decision_per_version(store, game.id)
    assert game.ending is not None and game.ending.reason == "completed"


@pytest.mark.cluster_in_full
def test_a_worker_killed_in_the_middle_of_a_job_loses_no_turn(claim, store, start_worker):
    game = new_game(store, players=4, kinds=["greedy"] * 4)
    turns.follow(claim, game)
    started = claim.jobs.ai.started_job_registry
    worker = start_worker()
    _wait_until(lambda: store.version(game.id) >= 10, "the first moves")
    while not started.get_job_ids():
        time.sleep(0.001)  # the worker is never idle for long here: wait for a running job
    kill(worker)  # kill -9, worker and work horse, in the middle of that job
    stopped_at = store.version(game.id)
    time.sleep(0.5)
    assert store.version(game.id) == stopped_at
    assert store.load(game.id).ending is None
    start_worker("--sweep-every", "0.2", "--stuck-after", "1")
    _wait_until(lambda: store.load(game.id).ending is not None, "the game's end")
    game = _check_one_decision_per_version(store, game.id)
    assert game.ending.reason == "completed"


def test_deadlines_fire_on_a_real_worker_and_survive_its_kill(claim, store, start_worker):
    game = store.create(
        Settings(2, FACTIONS[2]),
        seats(HUMAN, HUMAN),
        move_time_limit=1,
        timeout_policy="ai:random",
    )
    joins = [SeatJoined(0, "Ann", TOKEN_HASH), SeatJoined(1, "Bo", TOKEN_HASH)]
    store.append(game.id, joins, 1)
    changed(claim, Change(store.load(game.id), tuple(joins)))  # as a join does

    def timeouts() -> int:
        return sum(isinstance(r.event, TurnTimedOut) for r in store.read(game.id))

    worker = start_worker("--sweep-every", "0.2", "--stuck-after", "1")
    _wait_until(lambda: timeouts() >= 2, "the first timeouts")
    kill(worker)  # if in the middle of firing, the timer falls due again after its lease
    start_worker("--sweep-every", "0.2", "--stuck-after", "1")
    _wait_until(lambda: timeouts() >= 5, "timeouts after the restart")
    game = _check_one_decision_per_version(store, game.id)
    records = store.read(game.id)
    for timed_out, decided in itertools.pairwise(records):
        if isinstance(timed_out.event, TurnTimedOut):
            assert isinstance(decided.event, DecisionMade)
            assert decided.event.seat == timed_out.event.seat
            assert decided.event.timeout_policy == "ai:random"


@pytest.mark.single_redis  # the lanes, not Redis
def test_random_and_greedy_play_while_the_experts_search_loads(
    claim, store, start_worker, tmp_path
):
    """A first start compiles the expert's search (here: into a cache of its own,
    empty, so that it takes its minute): meanwhile the worker plays the other levels,
    `/readyz` says the expert is loading, and the expert's turn waits on its queue."""
    start_worker(
        NUMBA_CACHE_DIR=str(tmp_path / "numba"),
        NUMBA_CACHE_LOCATOR_CLASSES="UserProvidedCacheLocator",
    )
    greedy = new_game(store, players=4, kinds=["greedy"] * 4)
    expert = new_game(store, players=2, kinds=["expert", "expert"])
    turns.follow(claim, expert)
    turns.follow(claim, greedy)
    _wait_until(lambda: store.version(greedy.id) > greedy.version + 3, "greedy's turns")
    readiness = games.readiness(claim)
    assert (readiness.workers, readiness.experts) == (1, 0)
    assert store.version(expert.id) == expert.version
    assert claim.jobs.expert_ai.get_job_ids() == [f"ai-{expert.id}-{expert.version}"]
    log = (tmp_path / "worker-0.log").read_text()
    assert "loading the expert's compiled search" in log and "the expert plays" not in log


def _workers_alive(claim) -> int:
    return games.readiness(claim).workers


@pytest.mark.single_redis  # the heartbeats are on the queues' Redis, a single one
def test_an_idle_worker_is_counted_alive_for_as_long_as_it_runs(claim, start_worker):
    start_worker()
    _wait_until(lambda: _workers_alive(claim) == 1, "the worker's first heartbeat")
    seen = set()
    until = time.monotonic() + 2 * ALIVE  # its first heartbeat has run out twice meanwhile
    while time.monotonic() < until:
        seen.add(_workers_alive(claim))
        time.sleep(0.1)
    assert seen == {1}


@pytest.mark.single_redis
def test_a_killed_worker_stops_being_counted_and_a_stopped_one_at_once(claim, start_worker):
    killed, stopped = start_worker(), start_worker()
    _wait_until(lambda: _workers_alive(claim) == 2, "both workers' heartbeats")
    kill(killed)
    _wait_until(lambda: _workers_alive(claim) == 1, "the killed worker's heartbeat to run out")
    stopped.terminate()
    assert stopped.wait(GIVE_UP) == 0
    assert _workers_alive(claim) == 0


@pytest.mark.single_redis  # the lanes, not Redis
def test_an_ai_turn_is_played_while_the_analysis_lane_is_busy(claim, store, start_worker):
    """The analyses run in a lane of their own, at the lowest CPU priority: an AI turn
    is played while an analysis's part is under way, not after it."""
    worker = start_worker()
    claim.jobs.analysis_others.enqueue("time.sleep", GIVE_UP, job_id="a-long-part")
    started = claim.jobs.analysis_others.started_job_registry
    _wait_until(lambda: "a-long-part" in started.get_job_ids(), "the part under way")
    game = new_game(store, players=4, kinds=["greedy"] * 4)
    turns.follow(claim, game)
    _wait_until(lambda: store.version(game.id) > game.version, "an AI turn")
    assert "a-long-part" in started.get_job_ids()  # still under way
    assert os.getpriority(os.PRIO_PROCESS, worker.pid) == 0
    lanes = {os.getpriority(os.PRIO_PROCESS, pid) for pid in descendants(worker.pid)}
    assert ANALYSIS_NICE in lanes  # the analysis lane and its work horse


def test_the_analysis_lane_analyses_a_game_to_its_end(claim, client, store, start_worker):
    game = play(store, new_game(store, seed=3), moves=6)
    store.append(game.id, [GameResigned(seat=game.state.to_act)], game.version)
    key = client.post("/players", json={"name": "Ann"}).json["key"]
    asked = client.post(f"/games/{game.id}/analysis", headers={"Authorization": f"Bearer {key}"})
    assert asked.status_code == 202
    start_worker()
    _wait_until(lambda: games.analysis(claim, game.id).status == "done", "the analysis done")
    assert len(games.analysis(claim, game.id).judged) == 6
