"""Move and join deadlines with a clock the test moves, against a real Redis: the
timeout policies, the timers that fire them, and their leases."""

import threading
from datetime import timedelta

from service import games
from service.domain import legal_decisions
from service.events import ABORTED, FINISHED, DecisionMade, GameResigned, TurnTimedOut
from service.games import Claim, background, changes, deadlines
from service.games.inbox import inbox_entry
from tests.games.factories import INVITE, a_game, joined, moved


def a_running_game(claim, kinds=("human", "random"), limit=60, policy="ai:greedy", keys=None):
    """A game whose human seats are joined (by the players whose keys `keys` gives by
    seat, if any), with a move time limit, played by its AIs until a person is to act."""
    game = a_game(claim, kinds, move_time_limit=limit, timeout_policy=policy)
    joined(claim, game, keys)
    game = claim.store.load(game.id)
    while game.acting_ai is not None:
        games.play_ai_turn(claim, game.id, game.version)
        game = claim.store.load(game.id)
    return game


def _events(claim, game):
    return [record.event for record in claim.store.read(game.id, after=game.version)]


def _due(claim):
    return claim.deadlines.due()


def test_nothing_happens_before_the_deadline(claim, clock):
    game = a_running_game(claim)
    clock.advance(59)
    assert deadlines.expire(claim, game.id, game.version) == ()
    assert games.fire_due_timers(claim) == 0
    assert claim.store.version(game.id) == game.version


def test_an_ai_policy_decides_that_one_move_and_the_events_say_so(claim, clock):
    game = a_running_game(claim, policy="ai:random")
    seat = game.state.to_act
    clock.advance(60)
    assert games.fire_due_timers(claim) == 1
    timed_out, decided = _events(claim, game)
    assert timed_out == TurnTimedOut(seat, "ai:random")
    assert isinstance(decided, DecisionMade)
    assert (decided.seat, decided.timeout_policy) == (seat, "ai:random")
    assert decided.decision in legal_decisions(game.state)
    assert claim.store.load(game.id).seats[seat].takeover is None


def test_a_forfeit_ends_the_game_and_the_seats_side_loses(claim, clock):
    game = a_running_game(claim, kinds=("human", "random", "random", "random"), policy="forfeit")
    seat = game.state.to_act
    clock.advance(60)
    games.fire_due_timers(claim)
    after = claim.store.load(game.id)
    assert after.status == FINISHED
    assert (after.ending.reason, after.ending.seat) == ("forfeited", seat)
    assert after.ending.winners == (1 - seat % 2,)
    assert claim.lobby.page(FINISHED).games[0].game_id == game.id


def ais_played(claim, game_id):
    """The game once its AIs (seats, or a takeover) have played up to a person's turn."""
    game = claim.store.load(game_id)
    while game.acting_ai is not None:
        games.play_ai_turn(claim, game.id, game.version)
        game = claim.store.load(game.id)
    return game


def timed_out(claim, clock, game):
    """`game` once its person to act let the move time run out, and its AIs played on."""
    clock.advance((game.deadline - clock()).total_seconds())
    assert games.fire_due_timers(claim) == 1
    return ais_played(claim, game.id)


def test_a_takeover_decides_each_timed_out_move_and_waits_for_the_person(claim, clock):
    """Issue 48: one missed deadline had the AI play the seat to the end."""
    start = a_running_game(claim, policy="takeover:random")
    seat = start.state.to_act
    game = timed_out(claim, clock, timed_out(claim, clock, start))
    mine = [event for event in _events(claim, start) if event.seat == seat]
    assert [type(event) for event in mine] == [TurnTimedOut, DecisionMade] * 2
    assert [event.policy for event in mine[::2]] == ["ai:random"] * 2
    assert [event.timeout_policy for event in mine[1::2]] == ["ai:random"] * 2
    assert game.seats[seat].takeover is None and game.state.to_act == seat
    assert (game.seats[seat].timeouts, game.seats[seat].timeouts_in_a_row) == (2, 2)
    assert game.seats[seat].ai_decisions == 2
    assert game.deadline == game.waiting_since + timedelta(seconds=60)  # a clock of its own
    assert game.on_timeout == "takeover:random"  # the third in a row: the final policy
    entry = inbox_entry(claim, game, seat)  # the inbox says so beside the time left
    assert (entry["on_timeout"], entry["rated"]) == ("takeover:random", False)


def test_a_move_of_the_person_breaks_the_row_of_timeouts(claim, clock):
    game = a_game(claim, move_time_limit=60, timeout_policy="takeover:random")
    token = joined(claim, game)[0]
    game = ais_played(claim, game.id)
    game = timed_out(claim, clock, timed_out(claim, clock, game))
    moved(claim, game.id, {0: token}, moves=1)
    game = ais_played(claim, game.id)
    assert (game.seats[0].timeouts, game.seats[0].timeouts_in_a_row) == (2, 0)
    assert game.on_timeout == "ai:random"


def test_at_the_limit_of_timeouts_in_a_row_the_ai_plays_the_seat_until_its_person_returns(
    claim, clock
):
    game = a_game(claim, move_time_limit=60, timeout_policy="takeover:random")
    token = joined(claim, game)[0]
    game = timed_out(claim, clock, timed_out(claim, clock, ais_played(claim, game.id)))
    clock.advance(60)
    games.fire_due_timers(claim)
    game = claim.store.load(game.id)
    assert game.seats[0].takeover == "random" and game.seats[0].timeouts == 3
    assert game.deadline is None  # nobody waits for a person now
    games.play_ai_turn(claim, game.id, game.version)
    decided = _events(claim, game)[0]
    assert (decided.seat, decided.timeout_policy) == (0, "takeover:random")
    back = games.come_back(claim, game.id, 0, token).game
    assert back.seats[0].takeover is None and back.seats[0].timeouts_in_a_row == 0


def test_at_the_limit_a_final_forfeit_ends_the_game_against_the_seat(claim, clock):
    game = a_game(
        claim,
        move_time_limit=60,
        timeout_policy="takeover:random",
        timeout_limit=2,
        final_timeout_policy="forfeit",
    )
    joined(claim, game)
    game = ais_played(claim, game.id)
    assert game.on_timeout == "ai:random"
    game = timed_out(claim, clock, game)
    assert game.on_timeout == "forfeit"
    clock.advance(60)
    games.fire_due_timers(claim)
    game = claim.store.load(game.id)
    assert (game.status, game.ending.reason, game.ending.seat) == (FINISHED, "forfeited", 0)


def test_a_deadline_of_a_version_that_moved_on_does_nothing(claim, clock):
    game = a_running_game(claim)
    claim.store.append(
        game.id, [DecisionMade(game.state.to_act, legal_decisions(game.state)[0])], game.version
    )
    clock.advance(3600)
    assert deadlines.expire(claim, game.id, game.version) == ()


def test_a_deadline_expired_by_racing_workers_gives_one_timeout(claim, clock, redis_client):
    game = a_running_game(claim, policy="ai:random")
    clock.advance(60)
    barrier = threading.Barrier(6)
    answers = []

    def expire():
        own = Claim.connect(claim.config, client=redis_client, clock=clock, jobs=False)
        barrier.wait()
        answers.append(deadlines.expire(own, game.id, game.version))

    threads = [threading.Thread(target=expire) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    events = _events(claim, game)
    assert [type(event) for event in events] == [TurnTimedOut, DecisionMade]
    assert {answer for answer in answers} <= {(), tuple(events)}  # each told what landed


def test_a_game_not_joined_in_time_is_aborted(claim, clock):
    game = a_game(claim, kinds=("human", "human"))
    assert game.deadline == game.created_at + timedelta(days=7)
    assert _due(claim) == {game.id: game.deadline.timestamp()}
    clock.advance(7 * 24 * 3600)
    assert games.fire_due_timers(claim) == 1
    assert claim.store.load(game.id).status == ABORTED
    assert claim.lobby.page(ABORTED).games[0].game_id == game.id
    assert _due(claim) == {}


def test_a_game_with_no_deadline_leaves_the_due_set(claim):
    game = a_running_game(claim, kinds=("human", "human"))
    assert _due(claim) == {game.id: game.deadline.timestamp()}
    claim.store.append(game.id, [GameResigned(0)], game.version)
    deadlines.follow(claim, claim.store.load(game.id))
    assert _due(claim) == {}


def _started_without_move_time(claim):
    """A 2-player game of people with no move time limit, its join timer set while it
    was open, and its first move made; answer its tokens and the game after it."""
    game = a_game(claim, kinds=("human", "human"))
    tokens = joined(claim, game)
    return tokens, moved(claim, game.id, tokens, moves=1)


def test_the_start_clears_the_join_timer_and_later_moves_leave_the_timer_alone(claim):
    _, game = _started_without_move_time(claim)
    assert _due(claim) == {}
    assert claim.deadlines.version(game.id) == game.version - 1  # set at the start only


def test_a_join_timer_left_by_a_lost_start_clears_itself_when_it_fires(claim, clock, monkeypatch):
    """The start's follow-up was cut off, and later moves do not clear a timer of a
    game without move time: the join timer fires, finds the game moved on, and goes."""
    game = a_game(claim, kinds=("human", "human"))  # its join timer set
    tokens = {0: games.join(claim, game.id, 0, INVITE, "Ann").token}
    with monkeypatch.context() as cut_off:
        cut_off.setattr(changes, "FOLLOWS", ())
        tokens[1] = games.join(claim, game.id, 1, INVITE, "Bo").token
    moved_on = moved(claim, game.id, tokens, moves=1)
    clock.advance(7 * 24 * 3600)
    assert games.fire_due_timers(claim) == 1
    assert claim.store.version(game.id) == moved_on.version  # not aborted: it had started
    assert _due(claim) == {}


def test_due_deadlines_fire_and_the_others_wait(claim, clock):
    due, later = a_running_game(claim, policy="forfeit"), a_running_game(claim, limit=3600)
    clock.advance(60)
    assert games.fire_due_timers(claim) == 1
    assert claim.store.load(due.id).status == FINISHED
    assert _due(claim) == {later.id: later.deadline.timestamp()}
    assert claim.store.version(later.id) == later.version


def test_many_due_timers_are_fired_a_chunk_at_a_time(claim, clock, monkeypatch):
    monkeypatch.setattr(background, "CHUNK", 2)
    due = [a_running_game(claim, policy="forfeit") for _ in range(5)]
    clock.advance(60)
    assert games.fire_due_timers(claim) == 5
    assert all(claim.store.load(game.id).status == FINISHED for game in due)


def test_a_timer_of_a_game_that_cannot_be_loaded_does_not_hold_up_the_others(claim, clock):
    game = a_running_game(claim, policy="forfeit")
    claim.deadlines.set("nosuchgame", 3, game.deadline)
    clock.advance(60)
    assert games.fire_due_timers(claim) == 1
    assert claim.store.load(game.id).status == FINISHED
    assert _due(claim) == {"nosuchgame": clock().timestamp() + background.LEASE}  # leased


def test_a_failing_timer_keeps_its_lease_and_fires_again_when_it_runs_out(
    claim, clock, monkeypatch
):
    broken, fine = a_running_game(claim, policy="forfeit"), a_running_game(claim, policy="forfeit")
    clock.advance(60)
    deadline = background.FIRES[games.DEADLINES]

    def fire(claim, game_id, version):
        if game_id == broken.id:
            raise RuntimeError("a bug")
        deadline(claim, game_id, version)

    with monkeypatch.context() as bug:
        bug.setitem(background.FIRES, games.DEADLINES, fire)
        assert games.fire_due_timers(claim) == 1
    assert claim.store.load(fine.id).status == FINISHED
    assert _due(claim) == {broken.id: clock().timestamp() + background.LEASE}
    clock.advance(background.LEASE - 1)
    assert games.fire_due_timers(claim) == 0  # leased still
    clock.advance(1)
    assert games.fire_due_timers(claim) == 1  # its lease ran out
    assert claim.store.load(broken.id).status == FINISHED


def test_a_timer_that_fires_early_is_set_again(claim, clock):
    game = a_running_game(claim)
    claim.deadlines.set(game.id, game.version, game.deadline - timedelta(seconds=30))
    clock.advance(30)
    assert games.fire_due_timers(claim) == 1
    assert claim.store.version(game.id) == game.version
    assert _due(claim) == {game.id: game.deadline.timestamp()}


def test_a_timer_whose_change_was_cut_off_sets_what_the_game_waits_for(claim, clock):
    """The game moved on, but what moved it died before it set the next deadline: the
    old timer, fired, does it."""
    game = a_running_game(claim, kinds=("human", "human"))
    clock.advance(30)
    claim.store.append(
        game.id, [DecisionMade(game.state.to_act, legal_decisions(game.state)[0])], game.version
    )
    moved_on = claim.store.load(game.id)
    clock.advance(30)
    assert games.fire_due_timers(claim) == 1
    assert claim.store.version(game.id) == moved_on.version  # no timeout: that deadline moved on
    assert _due(claim) == {game.id: moved_on.deadline.timestamp()}
