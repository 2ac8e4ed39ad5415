"""Ratings: the model (openskill's Plackett-Luce, its reference example reproduced),
inactivity, the rules against farming (games thrown too early, a pair's games within a
day, opponents that count only once established, bots' accounts counting half for a
person, distinct opponents before a rank), and the projection folding results in a
fixed order, whatever order they arrive in (unit tests on fakeredis; rated games played
through the use cases: tests/games/test_ratings.py)."""

import itertools
import math
import threading

import pytest

from service.events import (
    AI_LEVELS,
    COMPLETED,
    RESIGNED,
    RatedResult,
    Rating,
    RatingChange,
    Ratings,
    ai_entity,
)
from service.events.ratings import (
    BOT_WEIGHT,
    DAY,
    ESTABLISHED_OPPONENTS,
    MIN_OPPONENTS,
    MODEL,
    PROVISIONAL_SIGMA,
    Board,
    is_established,
    is_ranked,
    meetings,
    rate,
    weight_of,
)

START = 1_767_225_600.0  # 2026-01-01, Unix seconds
DUEL = ((0,), (1,))
AIS = tuple(ai_entity(level) for level in AI_LEVELS)


def established(*entities, **rating) -> dict[str, Rating]:
    """A rating per entity that has met the three AI levels (a newcomer's figures
    unless `rating` says otherwise): established, so that its games count for others."""
    return {entity: Rating(**rating, opponents=AIS) for entity in entities}


def a_result(game_id, entities, ranks, at=START, sides=None, **ending) -> RatedResult:
    """`ending`: `reason` (played to the end by default) and `decisions`."""
    sides = sides or tuple((seat,) for seat in range(len(entities)))
    return RatedResult(game_id, len(entities), at, tuple(entities), sides, tuple(ranks), **ending)


def a_farm(count, at=START, **ending) -> list[RatedResult]:
    """`count` duels a minute apart from `at` that ann wins against her second account."""
    return [
        a_result(f"farm{n:02}", ["ann", "alt"], [1, 2], at + 60 * n, **ending) for n in range(count)
    ]


def first_meetings(*entities, at=START - 2 * DAY) -> list[RatedResult]:
    """What establishes `entities` for duels: each draws with each AI level, a second
    apart from `at` (an AI level does not move: they are newcomers at the time)."""
    pairs = [(entity, ai) for entity in entities for ai in AIS]
    return [
        a_result(f"e-{entity}-{ai}", [entity, ai], [1, 1], at + n)
        for n, (entity, ai) in enumerate(pairs)
    ]


def test_openskills_reference_example_is_reproduced():
    """openskill's README: two fresh players beat two fresh players; the winners
    go to mu 26.964294621803063, sigma 8.177962604389991, the losers mirror them."""
    teams = ((0, 2), (1, 3))
    result = a_result("g", ["a", "x", "b", "y"], [1, 2], sides=teams)
    after, _ = rate(established("a", "x", "b", "y"), result)
    assert after["a"].mu == pytest.approx(26.964294621803063, abs=1e-12)
    assert after["a"].sigma == pytest.approx(8.177962604389991, abs=1e-12)
    assert after["b"] == after["a"]
    assert after["x"].mu == pytest.approx(23.035705378196937, abs=1e-12)
    assert after["x"].sigma == after["a"].sigma


def test_the_winner_gains_what_the_loser_loses_and_both_grow_surer():
    after, changes = rate(established("ann", "bo"), a_result("g", ["ann", "bo"], [2, 1]))
    assert after["bo"].mu > MODEL.mu > after["ann"].mu
    assert after["bo"].mu - MODEL.mu == pytest.approx(MODEL.mu - after["ann"].mu)
    assert after["ann"].sigma < MODEL.sigma and after["bo"].sigma < MODEL.sigma
    assert [(c.seat, c.entity, c.mu_before) for c in changes] == [
        (0, "ann", MODEL.mu),
        (1, "bo", MODEL.mu),
    ]
    assert changes[1].mu_after == after["bo"].mu
    assert after["ann"].games == after["bo"].games == 1
    assert after["ann"].played_at == START


def test_beating_a_stronger_player_gains_more_than_beating_a_weaker_one():
    strong, weak, me = (Rating(mu=mu, sigma=4, opponents=AIS) for mu in (35, 15, 25))
    over_strong, _ = rate({"me": me, "them": strong}, a_result("g", ["me", "them"], [1, 2]))
    over_weak, _ = rate({"me": me, "them": weak}, a_result("g", ["me", "them"], [1, 2]))
    assert over_strong["me"].mu - 25 > over_weak["me"].mu - 25 > 0


def test_a_free_for_all_moves_each_by_its_place_and_a_tie_moves_the_tied_alike():
    abc = established("a", "b", "c")
    after, _ = rate(abc, a_result("g", ["a", "b", "c"], [2, 1, 3]))
    assert after["b"].mu > after["a"].mu > after["c"].mu
    tied, _ = rate(abc, a_result("g", ["a", "b", "c"], [1, 1, 2]))
    assert tied["a"].mu == tied["b"].mu > MODEL.mu > tied["c"].mu


def test_an_entity_holding_two_seats_keeps_the_mean_of_their_ratings():
    greedy = ai_entity("greedy")
    people = established("ann", "x", "y")
    after, changes = rate(people, a_result("g", [greedy, "ann", greedy], [2, 1, 3]))
    alone_second, _ = rate(people, a_result("g", ["x", "ann", "y"], [2, 1, 3]))
    assert after[greedy].mu == pytest.approx((alone_second["x"].mu + alone_second["y"].mu) / 2)
    assert after[greedy].games == 1
    assert changes[0].mu_after == changes[2].mu_after == after[greedy].mu


def test_uncertainty_grows_with_inactivity_up_to_a_newcomers():
    rating = Rating(mu=30, sigma=2.0, games=80, played_at=START)
    assert rating.sigma_at(START) == 2.0
    assert rating.sigma_at(START - DAY) == 2.0  # not before its game
    month = rating.sigma_at(START + 30 * DAY)
    assert month == pytest.approx(math.sqrt(4 + 0.16 * 30))
    assert rating.sigma_at(START + 10_000 * DAY) == MODEL.sigma
    assert not rating.provisional_at(START + 30 * DAY)
    assert rating.provisional_at(START + 10_000 * DAY)
    assert Rating().provisional_at(START) and MODEL.sigma > PROVISIONAL_SIGMA


def test_a_game_after_a_long_break_moves_the_rating_more():
    ratings = {**established("bo"), "ann": Rating(30, 2.0, 80, START)}
    soon, changes = rate(ratings, a_result("g", ["ann", "bo"], [2, 1], START + DAY))
    late, _ = rate(ratings, a_result("g", ["ann", "bo"], [2, 1], START + 400 * DAY))
    assert 30 - late["ann"].mu > 30 - soon["ann"].mu > 0
    assert changes[0].sigma_before == pytest.approx(math.sqrt(4 + 0.16))


def test_a_game_resigned_or_forfeited_before_four_decisions_a_seat_rates_nobody():
    for reason in (RESIGNED, "forfeited"):
        thrown = a_result("g", ["ann", "alt"], [1, 2], reason=reason, decisions=7)
        after, changes = rate({}, thrown)
        assert not thrown.counted and after == {}
        for change in changes:
            assert (change.weight, change.meetings) == (0, 0)
            assert change.mu_after == change.mu_before == MODEL.mu
    assert a_result("g", ["ann", "alt"], [1, 2], reason=RESIGNED, decisions=8).counted
    assert a_result("g", ["a", "b", "c"], [1, 1, 2], reason=RESIGNED, decisions=11).counted is False
    assert a_result("g", ["ann", "alt"], [1, 2], reason=COMPLETED).counted


def test_a_pairs_games_within_a_day_count_fully_three_times_then_half_as_much_then_not_at_all():
    met = meetings(a_farm(9, reason=RESIGNED, decisions=8))
    assert [m["ann"] for m in met] == [m["alt"] for m in met] == list(range(1, 10))
    weights = [weight_of(m["ann"]) for m in met]
    assert weights == [1, 1, 1, 0.5, 0.25, 0.125, 0, 0, 0]


def test_a_day_is_the_day_before_each_games_own_end():
    hours = [0, 1, 2, 25, 48]
    duels = [a_result(f"g{h}", ["ann", "bo"], [1, 2], START + 3600 * h) for h in hours]
    assert [m["ann"] for m in meetings(duels)] == [1, 2, 3, 2, 2]  # at 25h: 2h and 25h
    exactly = [a_result(f"g{n}", ["ann", "bo"], [1, 2], START + DAY * n) for n in range(3)]
    assert [m["ann"] for m in meetings(exactly)] == [1, 1, 1]  # a day before is out


def test_a_game_thrown_too_early_is_no_meeting():
    thrown = a_farm(4, reason=RESIGNED, decisions=0)
    played = a_farm(2, START + 3600)
    assert [m["ann"] for m in meetings([*thrown, *played])] == [0, 0, 0, 0, 1, 2]


def test_two_ai_levels_are_no_pair_and_other_pairs_do_not_count():
    greedy, expert = ai_entity("greedy"), ai_entity("expert")
    ladder = [a_result(f"l{n}", [greedy, expert], [1, 2], START + n) for n in range(10)]
    assert all(m == {greedy: 1, expert: 1} for m in meetings(ladder))
    rounds = [a_result(f"r{n}", ["ann", who], [1, 2], START + n) for n in range(4) for who in "bc"]
    assert [m["ann"] for m in meetings(rounds)] == [1, 1, 2, 2, 3, 3, 4, 4]
    person = [a_result(f"p{n}", ["ann", greedy], [1, 2], START + n) for n in range(4)]
    assert [m[greedy] for m in meetings(person)] == [1, 2, 3, 4]


def test_in_a_bigger_game_each_counts_by_the_other_it_met_most():
    duels = a_farm(4)
    trio = a_result("trio", ["ann", "alt", "cy"], [1, 2, 3], START + 3600)
    assert meetings([*duels, trio], start=4) == [{"ann": 5, "alt": 5, "cy": 1}]
    people = established("ann", "alt", "cy")
    after, changes = rate(people, trio, {"ann": 5, "alt": 5, "cy": 1})
    alone, _ = rate(people, trio)
    assert after["cy"] == alone["cy"]
    assert [c.weight for c in changes] == [0.25, 0.25, 1]


def test_a_game_of_half_weight_moves_a_rating_half_as_far_and_counts_as_a_game():
    before = {
        "ann": Rating(30, 5, 20, START - DAY, AIS),
        "alt": Rating(20, 5, 20, START - DAY, AIS),
    }
    duel = a_result("g", ["ann", "alt"], [1, 2])
    full, _ = rate(before, duel)
    half, changes = rate(before, duel, {"ann": 4, "alt": 4})
    sigma = before["ann"].sigma_at(START)
    assert half["ann"].mu - 30 == pytest.approx((full["ann"].mu - 30) / 2)
    assert half["ann"].sigma - sigma == pytest.approx((full["ann"].sigma - sigma) / 2)
    assert half["ann"].games == 21 and half["ann"].played_at == START
    assert changes[0].mu_after == half["ann"].mu and changes[0].weight == 0.5
    nothing, changes = rate(before, duel, {"ann": 7, "alt": 7})
    assert nothing == {} and changes[1].mu_after == 20


def test_a_newcomers_games_move_only_the_newcomer_and_two_newcomers_move_nobody():
    """Its results tell nothing yet (it may be a second account): so a game against a
    newcomer rates the others not at all, and the newcomer fully."""
    duel = a_result("g", ["ann", "new"], [2, 1])
    after, changes = rate(established("ann"), duel)
    as_if_established, _ = rate(established("ann", "new"), duel)
    assert set(after) == {"new"} and after["new"].mu == as_if_established["new"].mu
    assert after["new"].opponents == ("ann",) and not is_established("new", after["new"])
    assert [(c.weight, c.newcomers, c.mu_after) for c in changes] == [
        (0, 1, MODEL.mu),
        (1, 0, after["new"].mu),
    ]
    assert rate({}, a_result("g", ["x", "y"], [1, 2]))[0] == {}
    assert rate({}, a_result("g", ["x", AIS[0]], [1, 2]))[0].keys() == {"x"}


def test_an_account_is_established_from_three_established_opponents_and_ranked_from_five():
    state = established("bo", "cy", "di")
    counted = []  # how much each game counted for the opponent, who is established
    for n, who in enumerate(["new", AIS[0], AIS[0], AIS[1], "bo", "cy", AIS[2], "di"]):
        after, changes = rate(state, a_result(f"g{n}", ["ann", who], [1, 2], START + DAY * n))
        state.update(after)
        counted.append(changes[1].weight)
        if "ann" in state:
            assert is_established("ann", state["ann"]) == (n >= 4)
            assert is_ranked("ann", state["ann"]) == (n >= 6)
    assert counted == [0, 0, 0, 0, 0, 1, 1, 1]  # from cy on, Ann counts for the others
    assert state["ann"].opponents == (AIS[0], AIS[1], "bo", "cy", AIS[2])  # not the newcomer
    assert len(state["ann"].opponents) == MIN_OPPONENTS  # kept no further
    assert len(AIS) == ESTABLISHED_OPPONENTS  # the AI levels are enough to start with
    assert all(is_established(ai, None) and is_ranked(ai, Rating()) for ai in AIS)
    teams = a_result("t", ["ann", "x", "bo", "y"], [1, 2], sides=((0, 2), (1, 3)))
    after, _ = rate(established("ann", "x", "bo", "y"), teams)
    assert after["ann"].opponents == (*AIS, "x", "y")  # a teammate is no opponent


def test_a_persons_game_against_a_bot_counts_half_and_no_bot_counts_towards_its_rank():
    duel = a_result("g", ["ann", "robo"], [1, 2], bots=("robo",))
    after, changes = rate(established("ann", "robo"), duel)
    people, _ = rate(established("ann", "robo"), a_result("g", ["ann", "robo"], [1, 2]))
    assert after["ann"].mu - MODEL.mu == pytest.approx((people["ann"].mu - MODEL.mu) * BOT_WEIGHT)
    assert after["ann"].opponents == AIS and after["ann"].games == 1
    assert after["robo"] == people["robo"]  # the bot's rating moves fully
    assert [(c.weight, c.bots, c.newcomers) for c in changes] == [(BOT_WEIGHT, 1, 0), (1, 0, 0)]


def test_bots_rate_fully_among_bots_and_against_ai_levels():
    """A ladder of programs: an established bot counts fully for a bot and an AI level."""
    bots = ("robo", "tron")
    duel = a_result("g", ["robo", "tron"], [1, 2], bots=bots)
    after, changes = rate(established(*bots), duel)
    as_people, _ = rate(established(*bots), a_result("g", ["robo", "tron"], [1, 2]))
    assert after == as_people and [c.weight for c in changes] == [1, 1]
    assert after["robo"].opponents == (*AIS, "tron")
    against_ai = a_result("g", ["robo", AIS[2]], [2, 1], bots=bots)
    assert [c.weight for c in rate(established("robo"), against_ai)[1]] == [1, 1]


def test_in_a_bigger_game_each_moves_by_the_mean_worth_of_its_opponents():
    trio = a_result("g", ["ann", "new", "robo"], [1, 2, 3], bots=("robo",))
    after, changes = rate(established("ann", "robo"), trio)
    # Ann: a newcomer (0) and a bot (1/2); the newcomer: Ann (1) and a bot (1/2); the
    # bot: Ann (1) and a newcomer (0).
    assert [c.weight for c in changes] == [0.25, 0.75, 0.5]
    assert [(c.newcomers, c.bots) for c in changes] == [(1, 1), (0, 1), (1, 0)]
    assert (after["ann"].opponents, after["new"].opponents) == (AIS, ("ann",))
    assert after["robo"].opponents == (*AIS, "ann")


@pytest.fixture
def ratings(fake_redis):
    return Ratings(fake_redis, "test")


def a_season(count=12) -> list[RatedResult]:
    """Duels among four people, each pair in turn, an hour apart, after the first
    meetings that establish them."""
    people = ["ann", "bo", "cy", "di"]
    pairs = list(itertools.combinations(people, 2))
    duels = [
        a_result(f"g{n:02}", pairs[n % 6], [1, 2] if n % 3 else [2, 1], START + 3600 * n)
        for n in range(count)
    ]
    return [*first_meetings(*people), *duels]


def _everything(ratings, players=2) -> dict:
    board = ratings.board(players, 0, 100)
    return {
        "board": board,
        "changes": {g: ratings.changes(g) for g in (f"g{n:02}" for n in range(12))},
        "history": {e: ratings.history(e, 100) for e, _ in board.entries},
    }


def _folded(results) -> tuple[dict[str, Rating], dict[str, tuple[RatingChange, ...]]]:
    """The ratings after `results` folded in order by the pure functions, and the
    changes of each."""
    ordered = sorted(results, key=lambda r: (r.finished_at, r.game_id))
    state, changes = {}, {}
    for result, met in zip(ordered, meetings(ordered), strict=True):
        after, changes[result.game_id] = rate(state, result, met)
        state.update(after)
    return state, changes


def _by_folding(results) -> dict[str, Rating]:
    return _folded(results)[0]


def test_results_applied_as_they_come_are_the_fold_of_them_in_order(ratings):
    season = a_season()
    for result in season:
        ratings.record(result)
        assert ratings.catch_up(2) == [result.game_id]
    assert ratings.catch_up(2) == []  # nothing new
    expected = _by_folding(season)
    assert dict(ratings.board(2, 0, 100).entries) == expected
    assert ratings.rating(2, "ann") == expected["ann"]
    assert ratings.rating(3, "ann") is None


def test_a_result_arriving_late_is_folded_in_its_place(ratings):
    season = a_season()
    late = season.pop(-8)  # g04
    for result in season:
        ratings.record(result)
        ratings.catch_up(2)
    ratings.record(late)
    assert ratings.catch_up(2) == [f"g{n:02}" for n in range(4, 12)]  # from it on
    expected, changes = _folded([*season, late])
    assert dict(ratings.board(2, 0, 100).entries) == expected
    assert {g: ratings.changes(g) for g in changes} == changes


def test_recording_a_result_again_changes_nothing(ratings):
    season = a_season()
    for result in season:
        ratings.record(result)
    ratings.catch_up(2)
    before = _everything(ratings)
    ratings.record(season[3])
    assert ratings.catch_up(2) == []
    assert _everything(ratings) == before


def test_folding_again_from_the_start_gives_the_same_figures_exactly(ratings, fake_redis):
    season = a_season()
    for result in season:
        ratings.record(result)
        ratings.catch_up(2)
    before = _everything(ratings)
    fake_redis.delete(*fake_redis.keys("test:{ratings}:*"))  # everything lost
    for result in season:
        ratings.record(result)
    ratings.catch_up(2, again=True)
    assert _everything(ratings) == before


def test_the_board_pages_by_skill_best_first(ratings):
    for result in a_season():
        ratings.record(result)
    ratings.catch_up(2)
    board = ratings.board(2, 0, 10)
    assert board.total == 4 == len(board.entries)
    skills = [rating.mu for _, rating in board.entries]
    assert skills == sorted(skills, reverse=True)
    assert ratings.board(2, 1, 2).entries == board.entries[1:3]
    assert ratings.board(2, 4, 2).entries == []
    assert ratings.board(3, 0, 10) == Board(0, 0, [])


def test_an_entitys_history_is_its_rated_games_newest_first_with_its_change(ratings):
    season = a_season()
    for result in season:
        ratings.record(result)
    ratings.catch_up(2)
    history = ratings.history("ann", 100)
    mine = [r.game_id for r in reversed(season) if "ann" in r.entities]
    assert [played.result.game_id for played in history] == mine
    assert ratings.history("ann", 2) == history[:2]
    newest = history[0]
    assert newest.change.entity == "ann"
    assert newest.change == next(
        c for c in ratings.changes(newest.result.game_id) if c.entity == "ann"
    )
    assert newest.change.mu_after == ratings.rating(2, "ann").mu
    assert ratings.history("nobody", 10) == []
    assert ratings.changes("unknown") is None


def test_player_counts_are_rated_apart(ratings):
    threes = [  # what establishes them for 3 players: met the three AI levels there
        a_result(f"e{n}-{who}", [who, *AIS[n : n + 2]], [1, 1, 1], START - DAY + n)
        for who in ("ann", "bo")
        for n in range(2)
    ]
    for result in [*first_meetings("ann", "bo"), *threes]:
        ratings.record(result)
    ratings.record(a_result("duel", ["ann", "bo"], [1, 2]))
    ratings.record(a_result("three", ["ann", "bo", "cy"], [3, 1, 2], START + 60))
    for players in (2, 3):
        ratings.catch_up(players)
    assert ratings.rating(2, "ann").mu > MODEL.mu > ratings.rating(3, "ann").mu
    assert [p.result.game_id for p in ratings.history("ann", 2)] == ["three", "duel"]
    assert ratings.rating(3, "cy").opponents == ("ann", "bo")  # in threes only
    assert ratings.rating(2, "cy") is None


def test_results_recorded_and_applied_by_racing_processes_fold_in_order(
    redis_client, new_redis_client, prefix
):
    """Eight threads, each with its own connection, record results out of order and
    catch up at once (on the real Redis: WATCH/MULTI under contention)."""
    season = a_season(48)
    shuffled = season[::-1]

    def racer(n: int) -> None:
        client = new_redis_client()
        mine = Ratings(client, prefix)
        for result in shuffled[n::8]:
            mine.record(result)
            mine.catch_up(2)
        client.close()

    threads = [threading.Thread(target=racer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ratings = Ratings(redis_client, prefix)
    assert ratings.catch_up(2) == []  # each racer caught up after its own results
    expected, changes = _folded(season)
    assert dict(ratings.board(2, 0, 100).entries) == expected
    assert {g: ratings.changes(g) for g in changes} == changes


def test_results_ending_at_the_same_time_are_folded_in_the_order_of_their_ids(ratings):
    start = first_meetings("ann", "bo")
    same = [a_result(g, ["ann", "bo"], [1, 2] if g != "b" else [2, 1]) for g in ("c", "a", "b")]
    for result in [*start, *same]:  # recorded c, a, b: folded a, b, c
        ratings.record(result)
        ratings.catch_up(2)
    assert dict(ratings.board(2, 0, 10).entries) == _by_folding([*start, *same])
    after_a = _by_folding([*start, same[1]])
    assert ratings.changes("b") == rate(after_a, same[2], {"ann": 2, "bo": 2})[1]


def test_the_board_lists_the_ranked_by_skill_then_the_unranked_by_skill(ratings):
    people = ["p1", "p2", "p3", "p4", "p5", "p6"]
    for result in first_meetings(*people, "ann", "alt"):  # 3 opponents each: established
        ratings.record(result)
    pairs = itertools.combinations(people, 2)
    for n, (a, b) in enumerate(pairs):  # each meets the five others: ranked from two
        ratings.record(a_result(f"g{n:02}", [a, b], [1, 2], START + 3600 * n))
    for result in a_farm(3, START + DAY):
        ratings.record(result)
    ratings.catch_up(2)
    board = ratings.board(2, 0, 100)
    assert (board.total, board.ranked) == (8, 6)
    assert {e for e, _ in board.entries[:6]} == set(people)
    assert [e for e, _ in board.entries[6:]] == ["ann", "alt"]
    assert board.entries[6][1].mu > board.entries[5][1].mu  # ann's wins: not above them
    for part in (board.entries[:6], board.entries[6:]):
        skills = [rating.mu for _, rating in part]
        assert skills == sorted(skills, reverse=True)
    assert ratings.board(2, 5, 2).entries == board.entries[5:7]  # across the two
    assert ratings.board(2, 7, 5).entries == board.entries[7:]


def test_a_late_result_changes_the_weight_of_the_pairs_games_after_it(ratings):
    start = first_meetings("ann", "alt")
    farm = a_farm(7, reason=RESIGNED, decisions=8)
    for result in start + farm[:1] + farm[2:]:
        ratings.record(result)
        ratings.catch_up(2)
    assert [c.weight for c in ratings.changes("farm06")] == [0.125, 0.125]
    ratings.record(farm[1])
    assert ratings.catch_up(2) == [r.game_id for r in farm[1:]]
    expected, changes = _folded(start + farm)
    assert dict(ratings.board(2, 0, 10).entries) == expected
    assert {g: ratings.changes(g) for g in changes} == changes
    assert [c.weight for c in ratings.changes("farm06")] == [0, 0]
    history = [played.result.game_id for played in ratings.history("ann", 6)]
    assert history == [r.game_id for r in reversed(farm[:6])]  # the 7th moved nothing


def test_a_result_folded_after_others_of_the_day_counts_them(ratings):
    start = first_meetings("ann", "alt")
    farm = a_farm(5)
    for result in start + farm[:3]:
        ratings.record(result)
        ratings.catch_up(2)
    for result in farm[3:]:
        ratings.record(result)
    ratings.catch_up(2)  # from farm03: the three before it are read, not folded again
    assert [c.meetings for c in ratings.changes("farm04")] == [5, 5]
    assert dict(ratings.board(2, 0, 10).entries) == _by_folding(start + farm)


def test_a_game_thrown_too_early_is_shown_but_rates_and_lists_nobody(ratings):
    ratings.record(a_result("thrown", ["ann", "alt"], [1, 2], reason=RESIGNED, decisions=2))
    assert ratings.catch_up(2) == ["thrown"]
    assert [(c.weight, c.mu_after) for c in ratings.changes("thrown")] == [(0, 25), (0, 25)]
    assert ratings.board(2, 0, 10) == Board(0, 0, [])
    assert ratings.rating(2, "ann") is None and ratings.history("ann", 10) == []
