"""The fold: a game's state is its events applied in order, the engine's rules included."""

import random
from dataclasses import replace
from datetime import timedelta

import pytest

from service.domain import (
    Decision,
    GameOver,
    IllegalDecision,
    NotYourTurn,
    Settings,
    apply,
    legal_decisions,
    new_game,
)
from service.events import (
    ABORTED,
    COMPLETED,
    FINISHED,
    FORFEITED,
    OPEN,
    RESIGNED,
    RUNNING,
    BreakEnded,
    BreakTaken,
    DecisionMade,
    Ending,
    GameAborted,
    GameNotStarted,
    GameResigned,
    RejectedEvent,
    SeatJoined,
    SeatRegistered,
    SeatReturned,
    SeatUnavailable,
    TurnTimedOut,
    fold,
)
from tests.events.factories import (
    FACTIONS,
    START,
    TOKEN_HASH,
    a_creation,
    a_move,
    records,
    seats,
    then,
)


def _fold(*events):
    return fold("g1", records(*events))


def _running(players=2):
    return _fold(a_creation(players))


def _rejection(game, *events) -> Exception:
    with pytest.raises(RejectedEvent) as caught:
        then(game, *events)
    return caught.value


def test_a_game_with_an_untaken_human_seat_is_open():
    game = _fold(a_creation(kinds=["human", "greedy"]))
    assert (game.status, game.open_seats) == (OPEN, (0,))


def test_the_game_runs_once_every_human_seat_is_taken():
    game = _fold(
        a_creation(kinds=["human", "human"]),
        SeatJoined(1, "Bo", TOKEN_HASH),
        SeatJoined(0, "Ann", TOKEN_HASH),
    )
    assert game.status == RUNNING
    assert [seat.name for seat in game.seats] == ["Ann", "Bo"]
    assert game.version == 3


def test_a_game_of_ai_seats_runs_at_once():
    assert _running().status == RUNNING


def test_the_folded_state_is_the_engines_state_after_the_same_decisions():
    creation = a_creation(players=3, seed=5)
    state = new_game(creation.settings, creation.deck)
    events = [creation]
    rng = random.Random(5)
    for _ in range(20):
        move = a_move(state, rng)
        events.append(move)
        state = apply(state, move.decision, seat=move.seat)
    game = _fold(*events)
    assert game.state == state
    assert (game.version, game.decisions) == (21, 20)


def _moves_to_the_end(state, rng=None) -> list[DecisionMade]:
    moves = []
    while state.to_act is not None:
        moves.append(a_move(state, rng))
        state = apply(state, moves[-1].decision)
    return moves


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_whole_game_folded_at_once_is_the_game_folded_event_by_event(players):
    creation = a_creation(players=players, seed=players)
    moves = _moves_to_the_end(new_game(creation.settings, creation.deck), random.Random(1))
    events = [creation, *moves[:3], TurnTimedOut(moves[3].seat, "takeover:greedy")]
    events += [replace(moves[3], timeout_policy="takeover:greedy"), SeatReturned(moves[3].seat)]
    events += moves[4:]
    by_one = None
    for record in records(*events):
        by_one = fold("g1", [record], by_one)
    assert _fold(*events) == by_one
    assert (by_one.status, by_one.decisions) == (FINISHED, len(moves))


def test_a_rejected_decision_among_many_is_named_by_its_own_version():
    game = _running()
    moves = _moves_to_the_end(game.state)
    illegal = replace(moves[5], seat=1 - moves[5].seat)
    error = _rejection(game, *moves[:5], illegal, *moves[6:])
    assert (error.version, type(error.error)) == (7, NotYourTurn)
    error = _rejection(game, *moves, moves[-1])
    assert (error.version, type(error.error)) == (len(moves) + 2, GameOver)


def test_the_last_decision_finishes_the_game_with_the_engines_winner():
    game = _running()
    while game.state.to_act is not None:
        game = then(game, a_move(game.state))
    assert game.status == FINISHED
    assert game.ending == Ending(COMPLETED, None, (game.result.winner,))


def test_the_time_of_the_last_event_is_the_games_update_time():
    game = _fold(a_creation(), a_move(_running().state))
    assert game.updated_at > game.created_at


def test_a_decision_before_the_seats_are_taken_is_rejected_naming_game_and_version():
    game = _fold(a_creation(kinds=["human", "random"]))
    error = _rejection(game, a_move(game.state))
    assert isinstance(error.error, GameNotStarted)
    assert str(error) == "game g1, event 2: the game has not started: seats 0 are not taken"


def test_an_illegal_decision_is_rejected_with_the_engines_reason():
    game = _running()
    card = next(c for c in game.creation.deck if c not in game.state.hands[0])
    error = _rejection(game, DecisionMade(0, Decision.play(card)))
    assert isinstance(error.error, IllegalDecision)
    assert error.version == 2
    assert "not in" in error.error.reason


def test_a_decision_by_a_seat_not_to_act_is_rejected():
    game = _running()
    move = a_move(game.state)
    assert isinstance(_rejection(game, replace(move, seat=1)).error, NotYourTurn)


@pytest.mark.parametrize(
    ("seat", "problem"), [(0, "seat 0 is taken"), (1, "seat 1 is taken"), (2, "no seat 2")]
)
def test_only_an_untaken_human_seat_can_be_joined(seat, problem):
    game = _fold(a_creation(kinds=["human", "random"]), SeatJoined(0, "Ann", TOKEN_HASH))
    error = _rejection(game, SeatJoined(seat, "Bo", TOKEN_HASH))
    assert isinstance(error.error, SeatUnavailable)
    assert problem in str(error)


def test_a_registration_makes_a_seat_taken_without_a_key_the_players():
    game = _fold(a_creation(kinds=["human", "random"]), SeatJoined(0, "Ann", TOKEN_HASH))
    registered = then(game, SeatRegistered(0, "p-17"))
    assert registered.seats[0] == replace(game.seats[0], player="p-17")  # the token too
    assert (registered.state, registered.version) == (game.state, game.version + 1)


@pytest.mark.parametrize(
    ("events", "seat", "problem"),
    [
        ((), 1, "seat 1 is not a person's seat taken"),  # an AI's
        ((), 2, "seat 2 is not a person's seat taken"),  # no such seat
        ((SeatJoined(0, "Ann", TOKEN_HASH, "p-1"),), 0, "a registered player's already"),
        ((SeatJoined(2, "Cy", TOKEN_HASH),), 0, "seat 0 is not a person's seat taken"),
    ],
)
def test_only_a_persons_seat_taken_without_a_player_can_be_registered(events, seat, problem):
    game = _fold(a_creation(players=3, kinds=["human", "random", "human"]), *events)
    error = _rejection(game, SeatRegistered(seat, "p-17"))
    assert isinstance(error.error, SeatUnavailable)
    assert problem in str(error)


def test_a_seat_of_a_game_over_cannot_be_registered():
    game = _fold(a_creation(kinds=["human", "random"]), SeatJoined(0, "Ann", TOKEN_HASH))
    error = _rejection(then(game, GameResigned(1)), SeatRegistered(0, "p-17"))
    assert isinstance(error.error, GameOver)


def test_a_registration_leaves_the_move_time_of_the_seat_to_act_running():
    creation = replace(a_creation(kinds=["human", "random"]), move_time_limit=3600)
    game = fold("g", records(creation, SeatJoined(0, "Ann", TOKEN_HASH)))
    registered = then(game, SeatRegistered(0, "p-17"))
    assert registered.updated_at > game.updated_at
    assert registered.deadline == game.deadline == game.updated_at + timedelta(hours=1)


def test_a_seat_counts_the_decisions_an_ai_made_for_it_when_its_time_ran_out():
    creation = a_creation(kinds=["human", "human"])
    game = fold(
        "g", records(creation, SeatJoined(0, "Ann", TOKEN_HASH), SeatJoined(1, "Bo", TOKEN_HASH))
    )
    moves = _moves_to_the_end(game.state)[:6]
    events = [replace(moves[0], timeout_policy="ai:random"), moves[1]]
    events += [TurnTimedOut(moves[2].seat, "takeover:greedy")]
    events += [replace(move, timeout_policy="takeover:greedy") for move in moves[2:4]]
    events += [SeatReturned(moves[2].seat), *moves[4:]]
    by_one = game
    for event in events:
        by_one = then(by_one, event)
    at_once = then(game, *events)
    counts = [0, 0]
    for move in (moves[0], moves[2], moves[3]):
        counts[move.seat] += 1
    assert [seat.ai_decisions for seat in at_once.seats] == counts
    assert at_once.seats == by_one.seats and sum(counts) == 3


def test_a_resignation_ends_the_game_and_the_other_side_wins():
    game = _fold(a_creation(), GameResigned(0))
    assert game.status == FINISHED
    assert game.ending == Ending(RESIGNED, 0, (1,))
    assert game.result is None


def test_with_four_players_a_resignation_loses_for_the_team():
    game = _fold(a_creation(players=4), GameResigned(2))
    assert game.ending == Ending(RESIGNED, 2, (1,))


def test_with_three_players_a_resignation_leaves_both_others_winning():
    game = _fold(a_creation(players=3), GameResigned(1))
    assert game.ending.winners == (0, 2)


def test_a_forfeit_timeout_ends_the_game_against_the_seat():
    game = _fold(a_creation(), TurnTimedOut(0, "forfeit"))
    assert game.ending == Ending(FORFEITED, 0, (1,))


def test_an_ai_timeout_policy_leaves_the_game_to_its_decision():
    game = _fold(a_creation(), TurnTimedOut(0, "ai:random"))
    assert (game.status, game.version, game.state) == (RUNNING, 2, _running().state)


def test_only_the_seat_to_act_can_time_out():
    assert isinstance(_rejection(_running(), TurnTimedOut(1, "forfeit")).error, NotYourTurn)


def test_an_aborted_game_takes_no_more_events():
    game = _fold(a_creation(kinds=["human", "random"]), GameAborted("seats not taken"))
    assert (game.status, game.ending.reason) == (ABORTED, ABORTED)
    for event in (SeatJoined(0, "Ann", TOKEN_HASH), GameResigned(1), GameAborted("again")):
        assert isinstance(_rejection(game, event).error, GameOver)


def test_a_finished_game_takes_no_more_decisions():
    game = _fold(a_creation(), GameResigned(1))
    assert isinstance(_rejection(game, a_move(_running().state)).error, GameOver)


def test_a_game_is_created_once_and_first():
    with pytest.raises(RejectedEvent, match="event 1: a game is created once"):
        _fold(GameResigned(0))
    with pytest.raises(RejectedEvent, match="event 2: a game is created once"):
        _fold(a_creation(), a_creation())


def test_a_takeover_timeout_has_an_ai_play_the_seat_until_its_person_returns():
    game = fold(
        "g", records(a_creation(kinds=["human", "random"]), SeatJoined(0, "Ann", TOKEN_HASH))
    )
    assert game.acting_ai is None
    game = then(game, TurnTimedOut(0, "takeover:greedy"))
    assert game.seats[0].takeover == "greedy"
    assert game.acting_ai == 0
    game = then(game, SeatReturned(0))
    assert game.seats[0].takeover is None
    assert game.acting_ai is None


def test_a_timeout_counts_for_its_seat_and_the_seats_own_decision_breaks_the_row():
    game = fold(
        "g", records(a_creation(kinds=["human", "random"]), SeatJoined(0, "Ann", TOKEN_HASH))
    )
    game = then(game, TurnTimedOut(0, "ai:greedy"))
    decision = legal_decisions(game.state)[0]
    game = then(game, DecisionMade(0, decision, timeout_policy="ai:greedy"))
    assert (game.seats[0].timeouts, game.seats[0].timeouts_in_a_row) == (1, 1)
    assert game.seats[0].ai_decisions == 1
    game = then(game, DecisionMade(1, legal_decisions(game.state)[0]))
    assert game.seats[0].timeouts_in_a_row == 1  # another seat's decision breaks nothing
    game = then(game, DecisionMade(0, legal_decisions(game.state)[0]))
    assert (game.seats[0].timeouts, game.seats[0].timeouts_in_a_row) == (1, 0)


@pytest.mark.parametrize(
    ("policy", "limit", "final", "in_a_row", "applies"),
    [
        ("takeover:expert", 3, "takeover", 0, "ai:expert"),
        ("takeover:expert", 3, "takeover", 1, "ai:expert"),
        ("takeover:expert", 3, "takeover", 2, "takeover:expert"),
        ("takeover:greedy", 3, "forfeit", 2, "forfeit"),
        ("takeover:greedy", 1, "takeover", 0, "takeover:greedy"),  # made before the limit
        ("ai:random", 3, "forfeit", 5, "ai:random"),  # no limit to an AI's one decision
        ("forfeit", 3, "takeover", 0, "forfeit"),
    ],
)
def test_what_a_timeout_comes_to_depends_on_the_timeouts_in_a_row(
    policy, limit, final, in_a_row, applies
):
    creation = replace(
        a_creation(kinds=["human", "random"]),
        move_time_limit=60,
        timeout_policy=policy,
        timeout_limit=limit,
        final_timeout_policy=final,
    )
    game = fold("g", records(creation, SeatJoined(0, "Ann", TOKEN_HASH)))
    game = replace(game, seats=(replace(game.seats[0], timeouts_in_a_row=in_a_row), game.seats[1]))
    assert game.on_timeout == applies


def test_no_timeout_applies_without_a_move_time_or_while_an_ai_plays_the_seat():
    game = fold(
        "g", records(a_creation(kinds=["human", "random"]), SeatJoined(0, "Ann", TOKEN_HASH))
    )
    assert game.on_timeout is None  # no move time limit
    timed = replace(game.creation, move_time_limit=60, timeout_policy="takeover:greedy")
    game = fold("g", records(timed, SeatJoined(0, "Ann", TOKEN_HASH)))
    assert then(game, TurnTimedOut(0, "takeover:greedy")).on_timeout is None


def _by_mail(limit=86400):
    creation = replace(a_creation(kinds=["human", "random"]), move_time_limit=limit)
    return fold("g", records(creation, SeatJoined(0, "Ann", TOKEN_HASH)))


def test_a_break_moves_the_seats_deadline_on_by_the_break_and_ending_it_by_what_it_lasted():
    game = _by_mail()
    at = START + timedelta(minutes=game.version + 1)  # when `then` records the next event
    taken = then(game, BreakTaken(0, at + timedelta(days=3), 3, 30))
    assert taken.deadline == game.deadline + timedelta(days=3)
    assert (taken.seats[0].break_days_used, taken.seats[0].break_days_allowed) == (3, 30)
    ended = then(taken, BreakEnded(0))  # a minute later
    assert ended.deadline == game.deadline + timedelta(minutes=1)
    assert ended.seats[0].break_until == at + timedelta(minutes=1)


@pytest.mark.parametrize(
    ("game", "event", "problem"),
    [
        (lambda: _by_mail(limit=3600), BreakTaken(0, START + timedelta(days=9), 1, 30), "a day"),
        (_by_mail, BreakTaken(1, START + timedelta(days=9), 1, 30), "not a person's seat"),
        (_by_mail, BreakTaken(0, START, 1, 30), "is over"),
        (_by_mail, BreakEnded(0), "not on a break"),
        (_by_mail, BreakEnded(3), "not on a break"),
    ],
)
def test_a_break_is_refused_where_it_stops_no_persons_correspondence_clock(game, event, problem):
    assert problem in str(_rejection(game(), event))


def test_while_an_ai_plays_a_seat_only_the_ai_decides_for_it():
    game = fold(
        "g", records(a_creation(kinds=["human", "random"]), SeatJoined(0, "Ann", TOKEN_HASH))
    )
    game = then(game, TurnTimedOut(0, "takeover:greedy"))
    decision = legal_decisions(game.state)[0]
    with pytest.raises(RejectedEvent, match="take the seat back first"):
        then(game, DecisionMade(0, decision))
    assert then(game, DecisionMade(0, decision, timeout_policy="takeover:greedy")).decisions == 1
    assert then(then(game, SeatReturned(0)), DecisionMade(0, decision)).decisions == 1


def test_only_a_seat_an_ai_took_over_can_return():
    game = fold(
        "g", records(a_creation(kinds=["human", "random"]), SeatJoined(0, "Ann", TOKEN_HASH))
    )
    with pytest.raises(RejectedEvent, match="no AI is playing seat 0"):
        then(game, SeatReturned(0))


def test_the_deadline_is_the_move_time_of_the_person_to_act():
    creation = replace(a_creation(kinds=["human", "random"]), move_time_limit=60)
    game = fold("g", records(creation, SeatJoined(0, "Ann", TOKEN_HASH)))
    assert game.deadline == game.updated_at + timedelta(seconds=60)
    assert then(game, TurnTimedOut(0, "takeover:random")).deadline is None  # an AI plays


def test_a_seat_coming_back_leaves_the_move_time_of_another_seat_to_act_running():
    creation = replace(a_creation(kinds=["human", "human"]), move_time_limit=300)
    game = fold(
        "g", records(creation, SeatJoined(0, "Ann", TOKEN_HASH), SeatJoined(1, "Bo", "b" * 64))
    )
    game = then(game, TurnTimedOut(0, "takeover:random"))
    decided = then(game, DecisionMade(0, legal_decisions(game.state)[0], "takeover:random"))
    assert decided.state.to_act == 1  # Bo's move time runs from the AI's decision
    back = then(decided, SeatReturned(0))
    assert back.updated_at > decided.updated_at
    assert back.deadline == decided.deadline == decided.updated_at + timedelta(seconds=300)


def test_an_open_game_has_its_join_deadline_and_none_without_limits():
    creation = replace(a_creation(kinds=["human", "human"]), join_time_limit=3600)
    game = fold("g", records(creation))
    assert game.deadline == game.created_at + timedelta(hours=1)
    assert fold("g", records(a_creation())).deadline is None  # AIs only, no move limit


@pytest.mark.parametrize(
    ("kinds", "policy", "limit", "may"),
    [
        (("human", "human"), "takeover:random", 60, True),
        (("human", "human"), "takeover:random", None, False),  # no move time runs out
        (("human", "human"), "ai:random", 60, False),  # the deadline job decides
        (("human", "random"), "forfeit", None, True),
    ],
)
def test_an_ai_may_act_with_an_ai_seat_or_a_takeover_when_time_runs_out(
    store, kinds, policy, limit, may
):
    game = store.create(
        Settings(2, FACTIONS[2]), seats(*kinds), move_time_limit=limit, timeout_policy=policy
    )
    assert game.ai_may_act is may
