"""Readiness: the store, the job queues and the workers alive."""

from __future__ import annotations

import time

import redis

from service import games
from service.events import StoreUnavailable
from service.games import jobs


def test_ready_with_no_queues_in_the_process(claim):
    state = games.readiness(claim)
    assert (state.store, state.queues, state.workers, state.ready) == (True, None, 0, True)


def test_the_workers_alive_are_those_that_beat_and_have_not_stopped(claim_with_jobs):
    claim = claim_with_jobs
    assert games.readiness(claim).workers == 0
    claim.jobs.beat("worker-1")
    claim.jobs.beat("worker-2")
    claim.jobs.beat("worker-2")
    state = games.readiness(claim)
    assert (state.queues, state.workers, state.ready) == (True, 2, True)
    claim.jobs.stopped("worker-1")
    assert games.readiness(claim).workers == 1


def test_the_experts_are_the_workers_whose_expert_lane_beats(claim_with_jobs):
    claim = claim_with_jobs
    claim.jobs.beat("worker-1")
    claim.jobs.beat("worker-2")
    claim.jobs.beat("lane-of-worker-2", jobs.EXPERTS)
    state = games.readiness(claim)
    assert (state.workers, state.experts) == (2, 1)
    claim.jobs.stopped("lane-of-worker-2", jobs.EXPERTS)
    assert (games.readiness(claim).workers, games.readiness(claim).experts) == (2, 0)


def test_a_worker_that_stops_beating_is_not_counted_once_its_heartbeat_runs_out(
    claim_with_jobs, monkeypatch
):
    claim = claim_with_jobs
    monkeypatch.setattr(jobs, "ALIVE", 1)  # second
    claim.jobs.beat("silent")
    assert games.readiness(claim).workers == 1
    give_up = time.monotonic() + 30
    while games.readiness(claim).workers:
        assert time.monotonic() < give_up, "a silent worker is still counted"
        time.sleep(0.1)


def test_not_ready_when_the_store_does_not_answer(claim, monkeypatch):
    def down():
        raise StoreUnavailable("Redis failed: gone")

    monkeypatch.setattr(claim.store, "ping", down)
    state = games.readiness(claim)
    assert (state.store, state.ready) == (False, False)


def test_ready_when_the_queues_do_not_answer_which_it_reports(claim_with_jobs, monkeypatch):
    def down(*args, **kwargs):
        raise redis.ConnectionError("gone")

    monkeypatch.setattr(claim_with_jobs.jobs, "alive", down)
    state = games.readiness(claim_with_jobs)
    assert (state.store, state.queues, state.workers, state.ready) == (True, False, 0, True)
