"""Move and join deadlines with a clock the test moves, against a real Redis."""

import math
import threading
from datetime import timedelta

import pytest
from rq.registry import ScheduledJobRegistry

from service.domain import Settings, legal_decisions
from service.events import (
    ABORTED,
    FINISHED,
    HUMAN,
    DecisionMade,
    GameStore,
    SeatJoined,
    SeatSpec,
    TurnTimedOut,
)
from service.events.store import utc_now
from tests.events.factories import FACTIONS, TOKEN_HASH, seats
from workers import deadlines, queues, turns


class Clock:
    """A clock that stands still until the test moves it."""

    def __init__(self):
        self.now = utc_now()

    def __call__(self):
        return self.now

    def advance(self, seconds: float):
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(redis_client, prefix, clock):
    return GameStore(redis_client, prefix, clock=clock)


def a_running_game(store, kinds=("human", "random"), limit=60, policy="ai:greedy"):
    """A game whose human seats are joined, with a move time limit."""
    game = store.create(
        Settings(len(kinds), FACTIONS[len(kinds)]),
        seats(*kinds),
        move_time_limit=limit,
        timeout_policy=policy,
    )
    joins = [SeatJoined(n, f"p{n}", TOKEN_HASH) for n, kind in enumerate(kinds) if kind == HUMAN]
    store.append(game.id, joins, 1)
    game = store.load(game.id)
    while game.acting_ai is not None:  # play the AIs until a person is to act
        turns.play_turn(store, game.id, game.version)
        game = store.load(game.id)
    return game


def _events(store, game, after=None):
    return [
        record.event
        for record in store.read(game.id, after=game.version if after is None else after)
    ]


def test_nothing_happens_before_the_deadline(store, clock):
    game = a_running_game(store)
    clock.advance(59)
    assert deadlines.expire(store, game.id, game.version) is None
    assert store.version(game.id) == game.version


def test_an_ai_policy_decides_that_one_move_and_the_events_say_so(store, clock):
    game = a_running_game(store, policy="ai:random")
    seat = game.state.to_act
    clock.advance(60)
    assert deadlines.expire(store, game.id, game.version) == game.version + 2
    timed_out, decided = _events(store, game)
    assert timed_out == TurnTimedOut(seat, "ai:random")
    assert isinstance(decided, DecisionMade)
    assert (decided.seat, decided.timeout_policy) == (seat, "ai:random")
    assert decided.decision in legal_decisions(game.state)
    assert store.load(game.id).seats[seat].takeover is None


def test_a_forfeit_ends_the_game_and_the_seats_side_loses(store, clock):
    game = a_running_game(store, kinds=("human", "random", "random", "random"), policy="forfeit")
    seat = game.state.to_act
    clock.advance(60)
    deadlines.expire(store, game.id, game.version)
    after = store.load(game.id)
    assert after.status == FINISHED
    assert (after.ending.reason, after.ending.seat) == ("forfeited", seat)
    assert after.ending.winners == (1 - seat % 2,)


def test_a_takeover_has_an_ai_play_the_seat_until_its_person_returns(store, clock):
    game = a_running_game(store, policy="takeover:random")
    seat = game.state.to_act
    clock.advance(60)
    deadlines.expire(store, game.id, game.version)
    game = store.load(game.id)
    assert game.seats[seat].takeover == "random"
    assert game.deadline is None  # nobody waits for a person now
    turns.play_turn(store, game.id, game.version)
    decided = _events(store, game)[0]
    assert (decided.seat, decided.timeout_policy) == (seat, "takeover:random")


def test_a_deadline_job_of_a_version_that_moved_on_does_nothing(store, clock):
    game = a_running_game(store)
    store.append(
        game.id, [DecisionMade(game.state.to_act, legal_decisions(game.state)[0])], game.version
    )
    clock.advance(3600)
    assert deadlines.expire(store, game.id, game.version) is None


def test_a_deadline_expired_by_racing_jobs_gives_one_timeout(store, clock):
    game = a_running_game(store, policy="ai:random")
    clock.advance(60)
    barrier = threading.Barrier(6)
    answers = []

    def expire():
        own = GameStore(store.redis, store.prefix, clock=clock)  # no shared cache
        barrier.wait()
        answers.append(deadlines.expire(own, game.id, game.version))

    threads = [threading.Thread(target=expire) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(answers) <= {game.version + 2, None}
    events = _events(store, game)
    assert [type(event) for event in events] == [TurnTimedOut, DecisionMade]


def test_a_game_not_joined_in_time_is_aborted(store, clock):
    game = store.create(Settings(2, FACTIONS[2]), [SeatSpec(HUMAN)] * 2)
    assert game.deadline == game.created_at + timedelta(days=7)
    clock.advance(7 * 24 * 3600)
    deadlines.expire(store, game.id, 1)
    after = store.load(game.id)
    assert after.status == ABORTED
    assert store.listing(ABORTED).games[0].game_id == game.id


def test_scheduling_puts_the_job_at_the_deadline_and_the_game_in_the_due_set(store):
    """At the deadline's second, rounded up: RQ rounds a job's time down to the
    second, so a job at the deadline itself could run before it."""
    game = a_running_game(store)
    queue = queues.queue(queues.DEADLINES, store.redis, store.prefix)
    job_id = deadlines.schedule(queue, store, game)
    assert job_id == f"deadline-{game.id}-{game.version}"
    registry = ScheduledJobRegistry(queue=queue)
    assert registry.get_scheduled_time(job_id).timestamp() == math.ceil(game.deadline.timestamp())
    assert store.redis.zscore(deadlines.due_key(store), game.id) == game.deadline.timestamp()
    queue.fetch_job(job_id).delete()


def test_a_game_with_no_deadline_leaves_the_due_set(store):
    game = a_running_game(store, limit=None)
    store.redis.zadd(deadlines.due_key(store), {game.id: 1})
    assert (
        deadlines.schedule(queues.queue(queues.DEADLINES, store.redis, store.prefix), store, game)
        is None
    )
    assert store.redis.zscore(deadlines.due_key(store), game.id) is None


def test_the_sweep_schedules_a_deadline_that_a_crashed_job_did_not(store, clock):
    game = a_running_game(store)
    queue = queues.queue(queues.DEADLINES, store.redis, store.prefix)
    store.redis.zadd(deadlines.due_key(store), {game.id: 1})  # an earlier version's
    assert deadlines.sweep(queue, store, late_after=30) == []
    assert store.redis.zscore(deadlines.due_key(store), game.id) == game.deadline.timestamp()
    assert ScheduledJobRegistry(queue=queue).get_job_ids() == [f"deadline-{game.id}-{game.version}"]
    queue.delete(delete_jobs=True)


def test_the_sweep_enqueues_only_deadlines_overdue_for_long(store, clock):
    overdue, due_soon = a_running_game(store), a_running_game(store, limit=3600)
    queue = queues.queue(queues.DEADLINES, store.redis, store.prefix)
    for game in (overdue, due_soon):
        store.redis.zadd(deadlines.due_key(store), {game.id: game.deadline.timestamp()})
    clock.advance(120)
    assert deadlines.sweep(queue, store, late_after=30) == [overdue.id]
    assert [job.args for job in queue.jobs] == [(overdue.id, overdue.version)]
    assert deadlines.sweep(queue, store, late_after=30) == []  # it waits as long again
    clock.advance(120)
    assert deadlines.sweep(queue, store, late_after=30) == []  # not lost: behind others
    assert len(queue) == 1
    store.redis.lpop(queue.key)  # taken by a worker killed at once: queued, but nowhere
    clock.advance(120)
    assert deadlines.sweep(queue, store, late_after=30) == [overdue.id]
    assert len(queue) == 1
    queue.delete(delete_jobs=True)
