"""`claim worker`'s parts in this process: RQ's forking worker, the jobs, and the clock
thread that fires due timers and sweeps."""

import os
import threading
import time

from service import games
from service.domain import Settings
from service.events import HUMAN, TurnTimedOut
from service.games import Change, changed
from tests.events.factories import FACTIONS, new_game, seats
from workers import jobs, worker

GIVE_UP = 60  # seconds: a test that waits longer has failed


def test_the_worker_runs_each_job_in_a_work_horse_of_its_own(claim, config, monkeypatch):
    """RQ's `Worker`, which its documentation advises for production: a job that
    crashes takes only its horse with it."""
    monkeypatch.setattr(jobs, "_claim", None)
    job = claim.jobs.ai.enqueue("os.getpid")
    worker.run(config, burst=True)
    assert job.return_value() not in (None, os.getpid())


def test_the_ai_turn_job_plays_the_turn_and_enqueues_the_next(claim, monkeypatch):
    monkeypatch.setattr(jobs, "_claim", claim)
    game = new_game(claim.store)
    assert jobs.ai_turn(game.id, 1) == 2
    assert claim.jobs.ai.fetch_job(f"ai-{game.id}-2") is not None


def test_the_clock_thread_fires_a_due_deadline(claim, redis_client):
    game = claim.store.create(Settings(2, FACTIONS[2]), seats(HUMAN, HUMAN), join_time_limit=60)
    changed(claim, Change(game, (game.creation,)))  # its join timer set
    later = games.Claim.connect(claim.config, client=redis_client, clock=lambda: game.deadline)
    stop = threading.Event()
    thread = threading.Thread(target=worker.keep_time, args=(later, stop))
    thread.start()
    try:
        give_up = time.monotonic() + GIVE_UP
        while claim.store.load(game.id).status != "aborted":
            assert time.monotonic() < give_up, "the deadline did not fire"
            time.sleep(0.01)
    finally:
        stop.set()
        thread.join()
    assert not any(isinstance(r.event, TurnTimedOut) for r in claim.store.read(game.id))
