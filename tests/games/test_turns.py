"""AI turns: the use case, its follow-up after each change, and the sweep, in this
process against a real Redis."""

import threading

from rq.job import JobStatus

from service import games
from service.domain import legal_decisions
from service.games import Claim, ids, turns
from tests.games.factories import a_game


def test_an_ai_turn_appends_one_legal_decision_of_the_acting_seat(claim):
    game = a_game(claim, kinds=("random", "random", "random"))
    assert games.play_ai_turn(claim, game.id, 1) == 2
    record = claim.store.read(game.id, after=1)[0]
    assert record.event.seat == game.state.to_act
    assert record.event.decision in legal_decisions(game.state)
    assert record.id == ids.derived_id(game.id, ids.AI_TURN, "1")


def test_an_ai_turn_of_a_version_that_moved_on_does_nothing(claim):
    game = a_game(claim, kinds=("random", "random"))
    games.play_ai_turn(claim, game.id, 1)
    assert games.play_ai_turn(claim, game.id, 1) is None
    assert claim.store.version(game.id) == 2


def test_the_same_turn_decided_twice_at_once_lands_once(claim, redis_client):
    game = a_game(claim, kinds=("random",) * 4)
    barrier = threading.Barrier(8)
    answers = []

    def decide():
        own = Claim.connect(claim.config, client=redis_client, jobs=False)  # own cache
        barrier.wait()
        answers.append(games.play_ai_turn(own, game.id, 1))

    threads = [threading.Thread(target=decide) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert claim.store.version(game.id) == 2
    assert set(answers) <= {2, None} and 2 in answers


def test_a_human_seats_turn_is_not_played(claim):
    game = a_game(claim, kinds=("human", "random"))
    assert games.play_ai_turn(claim, game.id, 1) is None


def test_a_change_that_leaves_an_ai_to_act_enqueues_its_turn_by_game_and_version(
    claim_with_jobs,
):
    claim = claim_with_jobs
    game = a_game(claim, kinds=("random", "random"))  # its creation followed
    job = claim.jobs.ai.fetch_job(f"ai-{game.id}-1")
    assert (job.func_name, job.args) == ("workers.jobs.ai_turn", (game.id, 1))
    assert claim.ai_turns.since(game.id) == game.updated_at


def test_no_turn_is_enqueued_for_a_persons_seat_and_the_game_stops_waiting(claim_with_jobs):
    claim = claim_with_jobs
    game = a_game(claim, kinds=("human", "random"))
    claim.ai_turns.waiting(game.id, game.created_at)
    assert turns.follow(claim, game) is None
    assert claim.ai_turns.since(game.id) is None
    assert len(claim.jobs.ai) == 0


def test_the_sweep_enqueues_again_only_turns_waiting_too_long_whose_job_is_lost(
    claim_with_jobs, clock, queue_client
):
    claim = claim_with_jobs
    queue = claim.jobs.ai
    old = a_game(claim, kinds=("random", "random"))
    clock.advance(60)
    fresh = a_game(claim, kinds=("random", "random"))
    assert turns.sweep(claim, stuck_after=30) == []  # its job waits in the queue
    queue.fetch_job(f"ai-{old.id}-1").delete()  # lost
    assert turns.sweep(claim, stuck_after=30) == [old.id]
    assert queue.job_ids == [f"ai-{fresh.id}-1", f"ai-{old.id}-1-again"]
    clock.advance(60)
    assert turns.sweep(claim, stuck_after=30) == []  # not lost: behind others
    assert len(queue) == 2
    queue_client.lrem(queue.key, 1, f"ai-{old.id}-1-again")  # taken by a worker killed at once
    assert queue.fetch_job(f"ai-{old.id}-1-again").get_status() == JobStatus.QUEUED
    clock.advance(60)
    assert turns.sweep(claim, stuck_after=30) == [old.id]  # queued, but nowhere
    assert queue.job_ids == [f"ai-{fresh.id}-1", f"ai-{old.id}-1-again"]


def test_the_sweep_forgets_a_game_no_ai_waits_for_any_more(claim_with_jobs, clock):
    claim = claim_with_jobs
    game = a_game(claim, kinds=("human", "random"))  # open: a person is waited for
    claim.ai_turns.waiting(game.id, clock())  # as a change cut off part way left it
    clock.advance(60)
    assert turns.sweep(claim, stuck_after=30) == []
    assert claim.ai_turns.since(game.id) is None
    assert len(claim.jobs.ai) == 0
