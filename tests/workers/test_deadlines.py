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
    GameResigned,
    GameStore,
    SeatJoined,
    SeatSpec,
    TurnTimedOut,
)
from service.events.store import utc_now
from tests.events.factories import FACTIONS, TOKEN_HASH, seats
from workers import changes, deadlines, jobs, queues, timers, turns


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


def _queue(store):
    return queues.queue(queues.DEADLINES, store.redis, store.prefix)


def _fire(store):
    return timers.fire_due(store, _queue(store), deadlines.KIND, jobs.FIRES[deadlines.KIND])


def _due(store):
    return dict(store.redis.zrange(deadlines.due_key(store), 0, -1, withscores=True))


def test_a_deadline_sets_a_timer_and_the_first_of_its_second_schedules_a_job(store):
    """At the deadline's second, rounded up: RQ rounds a job's time down to the
    second, so a job at the deadline itself could run before it."""
    first, second = a_running_game(store), a_running_game(store)
    assert math.ceil(first.deadline.timestamp()) == math.ceil(second.deadline.timestamp())
    queue = _queue(store)
    job_id = deadlines.schedule(queue, store, first)
    assert deadlines.schedule(queue, store, second) is None  # the same job fires both
    registry = ScheduledJobRegistry(queue=queue)
    assert registry.get_job_ids() == [job_id]
    assert registry.get_scheduled_time(job_id).timestamp() == math.ceil(first.deadline.timestamp())
    assert queue.fetch_job(job_id).args == ("deadlines",)
    assert _due(store) == {
        first.id.encode(): first.deadline.timestamp(),
        second.id.encode(): second.deadline.timestamp(),
    }


def test_a_game_with_no_deadline_leaves_the_due_set(store):
    game = a_running_game(store)
    deadlines.schedule(_queue(store), store, game)
    store.append(game.id, [GameResigned(0)], game.version)
    finished = store.load(game.id)
    assert deadlines.schedule(_queue(store), store, finished) is None
    assert _due(store) == {}


def _started_without_move_time(store):
    """A 2-player game of people with no move time limit, its join timer set while it
    was open, and its first move made; answer the game at its start and after."""
    game = store.create(Settings(2, FACTIONS[2]), seats("human", "human"))
    deadlines.schedule(_queue(store), store, game)  # the join deadline
    store.append(game.id, [SeatJoined(n, f"p{n}", TOKEN_HASH) for n in (0, 1)], 1)
    started = store.load(game.id)
    store.append(game.id, [DecisionMade(0, legal_decisions(started.state)[0])], started.version)
    return started, store.load(game.id)


def test_the_start_clears_the_join_timer_and_later_moves_leave_the_timer_alone(store):
    started, moved = _started_without_move_time(store)
    versions = timers._key(store, deadlines.KIND, "version")
    assert deadlines.schedule(_queue(store), store, started) is None
    assert _due(store) == {}
    assert deadlines.schedule(_queue(store), store, moved) is None
    assert int(store.redis.hget(versions, moved.id)) == started.version  # not even looked at


def test_a_join_timer_left_by_a_lost_start_clears_itself_when_it_fires(store, clock):
    """The start's scheduling was cut off, and later moves do not clear a timer of a
    game without move time: the join timer fires, finds the game moved on, and goes."""
    _, moved = _started_without_move_time(store)
    assert deadlines.schedule(_queue(store), store, moved) is None
    clock.advance(7 * 24 * 3600)
    assert _fire(store) == 1
    assert store.version(moved.id) == moved.version  # not aborted: it had started
    assert _due(store) == {}


def test_a_timer_set_from_an_older_version_leaves_the_newer_one(store):
    """Two changes scheduling out of order: the older one's deadline is not kept."""
    game = a_running_game(store, kinds=("human", "human"))
    store.append(game.id, [GameResigned(game.state.to_act)], game.version)  # no deadline
    queue = _queue(store)
    deadlines.schedule(queue, store, store.load(game.id))
    assert deadlines.schedule(queue, store, game) is None
    assert _due(store) == {}


def test_due_deadlines_fire_and_the_others_wait(store, clock):
    due, later = a_running_game(store, policy="forfeit"), a_running_game(store, limit=3600)
    queue = _queue(store)
    for game in (due, later):
        deadlines.schedule(queue, store, game)
    clock.advance(60)
    assert _fire(store) == 1
    assert store.load(due.id).status == FINISHED
    assert _due(store) == {later.id.encode(): later.deadline.timestamp()}
    assert store.version(later.id) == later.version


def test_many_due_timers_are_fired_a_chunk_at_a_time_with_a_helper(store, clock, monkeypatch):
    monkeypatch.setattr(timers, "CHUNK", 2)
    games = [a_running_game(store, policy="forfeit") for _ in range(5)]
    queue = _queue(store)
    for game in games:
        deadlines.schedule(queue, store, game)
    clock.advance(60)
    assert _fire(store) == 5
    assert all(store.load(game.id).status == FINISHED for game in games)
    helpers = [job for job in queue.jobs if "-more-" in job.id]
    assert [job.args for job in helpers] == [("deadlines",)]  # one, from the first chunk
    assert _fire(store) == 0  # what the helper finds


def test_a_timer_of_a_game_that_cannot_be_loaded_does_not_hold_up_the_others(store, clock):
    game = a_running_game(store, policy="forfeit")
    queue = _queue(store)
    deadlines.schedule(queue, store, game)
    timers.set_timer(store, queue, deadlines.KIND, "nosuchgame", 3, game.deadline)
    clock.advance(60)
    assert _fire(store) == 1
    assert store.load(game.id).status == FINISHED
    assert store.redis.zscore(deadlines.due_key(store), "nosuchgame") is not None  # leased


def test_a_failing_timer_keeps_its_lease_and_the_others_fire(store, clock, monkeypatch):
    broken, fine = a_running_game(store, policy="forfeit"), a_running_game(store, policy="forfeit")
    queue = _queue(store)
    for game in (broken, fine):
        deadlines.schedule(queue, store, game)
    clock.advance(60)

    def fire(store, game_id, version):
        if game_id == broken.id:
            raise RuntimeError("a bug")
        jobs.FIRES[deadlines.KIND](store, game_id, version)

    assert timers.fire_due(store, queue, deadlines.KIND, fire) == 1
    assert store.load(fine.id).status == FINISHED
    assert _due(store) == {broken.id.encode(): clock().timestamp() + timers.LEASE}
    clock.advance(timers.LEASE)
    assert _fire(store) == 1  # its lease ran out
    assert store.load(broken.id).status == FINISHED


def test_a_timer_that_fires_early_is_set_again(store, clock):
    game = a_running_game(store)
    early = game.deadline - timedelta(seconds=30)
    timers.set_timer(store, _queue(store), deadlines.KIND, game.id, game.version, early)
    clock.advance(30)
    assert _fire(store) == 1
    assert store.version(game.id) == game.version
    assert _due(store) == {game.id.encode(): game.deadline.timestamp()}


def test_a_timer_whose_change_was_cut_off_schedules_what_the_game_waits_for(store, clock):
    """The game moved on, but what moved it died before it scheduled the next
    deadline: the old timer, fired, does it."""
    game = a_running_game(store, kinds=("human", "human"))
    deadlines.schedule(_queue(store), store, game)
    clock.advance(30)
    store.append(
        game.id, [DecisionMade(game.state.to_act, legal_decisions(game.state)[0])], game.version
    )
    moved = store.load(game.id)
    clock.advance(30)
    assert _fire(store) == 1
    assert store.version(game.id) == moved.version  # no timeout: that deadline moved on
    assert _due(store) == {game.id.encode(): moved.deadline.timestamp()}


def test_the_sweep_enqueues_a_job_for_timers_overdue_for_long_with_none_queued(store, clock):
    overdue, due_soon = a_running_game(store), a_running_game(store, limit=3600)
    queue = _queue(store)
    for game in (overdue, due_soon):
        deadlines.schedule(queue, store, game)
    for job_id in ScheduledJobRegistry(queue=queue).get_job_ids():  # the scheduler lost them
        queue.fetch_job(job_id).delete()
    clock.advance(60 + 30)
    assert timers.sweep(store, queue, deadlines.KIND, late_after=30) is None  # not for long
    clock.advance(1)
    job_id = timers.sweep(store, queue, deadlines.KIND, late_after=30)
    assert queue.get_job_ids() == [job_id]
    assert timers.sweep(store, queue, deadlines.KIND, late_after=30) is None  # one is queued
    store.redis.lpop(queue.key)  # taken by a worker killed at once: queued, but nowhere
    assert timers.sweep(store, queue, deadlines.KIND, late_after=30) is not None
    assert _fire(store) == 1
    assert store.version(overdue.id) == overdue.version + 2  # timed out; the AI decided
    assert timers.sweep(store, queue, deadlines.KIND, late_after=30) is None


def test_rebuild_writes_the_timers_and_the_ai_turns_again_from_the_streams(store, clock):
    waiting = a_running_game(store)
    deadlines.schedule(_queue(store), store, waiting)
    ai_first = store.create(Settings(2, FACTIONS[2]), seats("random", "human"))
    store.append(ai_first.id, [SeatJoined(1, "p1", TOKEN_HASH)], 1)
    before = _due(store)
    store.redis.delete(deadlines.due_key(store))
    store.redis.delete(turns.waiting_key(store))
    assert changes.rebuild(store, store.game_ids()) == 2
    assert _due(store) == before
    assert store.redis.zscore(turns.waiting_key(store), ai_first.id) is not None
    assert [job.args for job in queues.queue(queues.AI, store.redis, store.prefix).jobs] == [
        (ai_first.id, 2)
    ]
