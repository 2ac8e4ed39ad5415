"""Readiness: the store, the job queues and the workers alive."""

from __future__ import annotations

import redis
from rq import Worker

from service import games
from service.events import StoreUnavailable


def test_ready_with_no_queues_in_the_process(claim):
    state = games.readiness(claim)
    assert (state.store, state.queues, state.workers, state.ready) == (True, None, 0, True)


def test_the_workers_alive_are_those_with_a_recent_heartbeat(claim_with_jobs, clock):
    claim = claim_with_jobs
    assert games.readiness(claim).workers == 0
    worker = Worker([claim.jobs.ai], connection=claim.jobs.connection)
    worker.register_birth()
    worker.heartbeat()
    clock.now = worker.last_heartbeat  # the clock the test moves, at the heartbeat
    state = games.readiness(claim)
    assert (state.queues, state.workers, state.ready) == (True, 1, True)
    clock.advance(61)
    assert games.readiness(claim).workers == 0  # silent for over a minute
    worker.register_death()


def test_not_ready_when_the_store_does_not_answer(claim, monkeypatch):
    def down():
        raise StoreUnavailable("Redis failed: gone")

    monkeypatch.setattr(claim.store, "ping", down)
    state = games.readiness(claim)
    assert (state.store, state.ready) == (False, False)


def test_ready_when_the_queues_do_not_answer_which_it_reports(claim_with_jobs, monkeypatch):
    def down(*args, **kwargs):
        raise redis.ConnectionError("gone")

    monkeypatch.setattr(claim_with_jobs.jobs, "heartbeats", down)
    state = games.readiness(claim_with_jobs)
    assert (state.store, state.queues, state.workers, state.ready) == (True, False, 0, True)
