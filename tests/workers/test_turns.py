"""AI turns: the job, its scheduling and the sweep, in-process against a real Redis."""

import threading
from datetime import timedelta

from rq import Queue
from rq.job import JobStatus

from service.domain import legal_decisions
from service.events import GameStore
from service.events.store import utc_now
from tests.events.factories import new_game
from workers import jobs, queues, turns


def _queue(store: GameStore) -> Queue:
    return queues.queue(queues.AI, store.redis, store.prefix)


def test_an_ai_turn_appends_one_legal_decision_of_the_acting_seat(store):
    game = new_game(store, players=3)
    assert turns.play_turn(store, game.id, 1) == 2
    record = store.read(game.id, after=1)[0]
    assert record.event.seat == game.state.to_act
    assert record.event.decision in legal_decisions(game.state)
    assert record.id == turns.turn_id(game.id, 1)


def test_an_ai_turn_of_a_version_that_moved_on_does_nothing(store):
    game = new_game(store)
    turns.play_turn(store, game.id, 1)
    assert turns.play_turn(store, game.id, 1) is None
    assert store.version(game.id) == 2


def test_the_same_turn_decided_twice_at_once_lands_once(store):
    game = new_game(store, players=4)
    barrier = threading.Barrier(8)
    answers = []

    def decide():
        own = GameStore(store.redis, store.prefix)  # no shared cache
        barrier.wait()
        answers.append(turns.play_turn(own, game.id, 1))

    threads = [threading.Thread(target=decide) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert store.version(game.id) == 2
    assert set(answers) <= {2, None} and 2 in answers


def test_a_human_seats_turn_is_not_played(store):
    game = new_game(store, kinds=["human", "random"])
    assert turns.play_turn(store, game.id, 1) is None


def test_scheduling_enqueues_the_turn_of_an_ai_seat_by_game_and_version(store):
    game = new_game(store)
    queue = _queue(store)
    assert turns.schedule(queue, store, game) == f"ai-{game.id}-1"
    job = queue.fetch_job(f"ai-{game.id}-1")
    assert (job.func_name, job.args) == ("workers.jobs.ai_turn", (game.id, 1))
    assert store.redis.zscore(turns.waiting_key(store), game.id) == game.updated_at.timestamp()
    queue.delete(delete_jobs=True)


def test_no_turn_is_scheduled_for_a_human_seat_and_the_game_stops_waiting(store):
    game = new_game(store, kinds=["human", "random"])
    store.redis.zadd(turns.waiting_key(store), {game.id: 1})
    assert turns.schedule(_queue(store), store, game) is None
    assert store.redis.zscore(turns.waiting_key(store), game.id) is None
    assert len(_queue(store)) == 0


def test_the_sweep_enqueues_again_only_turns_waiting_too_long(redis_client, prefix):
    now = [None]
    store = GameStore(redis_client, prefix, clock=lambda: now[0])
    queue = _queue(store)
    now[0] = utc_now()
    old, fresh = new_game(store), None
    turns.schedule(queue, store, old)
    now[0] += timedelta(seconds=60)
    fresh = new_game(store)
    turns.schedule(queue, store, fresh)
    assert turns.sweep(queue, store, stuck_after=30) == []  # its job waits in the queue
    queue.fetch_job(f"ai-{old.id}-1").delete()  # lost
    assert turns.sweep(queue, store, stuck_after=30) == [old.id]
    assert queue.job_ids == [f"ai-{fresh.id}-1", f"ai-{old.id}-1-again"]
    now[0] += timedelta(seconds=60)
    assert turns.sweep(queue, store, stuck_after=30) == []  # not lost: behind others
    assert len(queue) == 2
    redis_client.lrem(queue.key, 1, f"ai-{old.id}-1-again")  # taken by a worker killed at once
    assert queue.fetch_job(f"ai-{old.id}-1-again").get_status() == JobStatus.QUEUED
    now[0] += timedelta(seconds=60)
    assert turns.sweep(queue, store, stuck_after=30) == [old.id]  # queued, but nowhere
    assert queue.job_ids == [f"ai-{fresh.id}-1", f"ai-{old.id}-1-again"]
    queue.delete(delete_jobs=True)


def test_the_job_plays_the_turn_and_schedules_the_next(store, monkeypatch):
    monkeypatch.setenv("CLAIM_PREFIX", store.prefix)
    game = new_game(store)
    queue = _queue(store)
    turns.schedule(queue, store, game)
    job = queue.fetch_job(f"ai-{game.id}-1")
    monkeypatch.setattr(jobs, "get_current_job", lambda: job)
    assert jobs.ai_turn(game.id, 1) == 2
    assert queue.fetch_job(f"ai-{game.id}-2") is not None
    queue.delete(delete_jobs=True)
