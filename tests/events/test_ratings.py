"""Ratings: the model (openskill's Plackett-Luce, its reference example reproduced),
inactivity, and the projection folding results in a fixed order, whatever order they
arrive in (unit tests on fakeredis; rated games played through the use cases:
tests/games/test_ratings.py)."""

import itertools
import math
import threading

import pytest

from service.events import RatedResult, Rating, Ratings, ai_entity
from service.events.ratings import DAY, MODEL, PROVISIONAL_SIGMA, rate

START = 1_767_225_600.0  # 2026-01-01, Unix seconds
DUEL = ((0,), (1,))


def a_result(game_id, entities, ranks, at=START, sides=None) -> RatedResult:
    sides = sides or tuple((seat,) for seat in range(len(entities)))
    return RatedResult(game_id, len(entities), at, tuple(entities), sides, tuple(ranks))


def test_openskills_reference_example_is_reproduced():
    """openskill's README: two fresh players beat two fresh players; the winners
    go to mu 26.964294621803063, sigma 8.177962604389991, the losers mirror them."""
    teams = ((0, 2), (1, 3))
    result = a_result("g", ["a", "x", "b", "y"], [1, 2], sides=teams)
    after, _ = rate({}, result)
    assert after["a"].mu == pytest.approx(26.964294621803063, abs=1e-12)
    assert after["a"].sigma == pytest.approx(8.177962604389991, abs=1e-12)
    assert after["b"] == after["a"]
    assert after["x"].mu == pytest.approx(23.035705378196937, abs=1e-12)
    assert after["x"].sigma == after["a"].sigma


def test_the_winner_gains_what_the_loser_loses_and_both_grow_surer():
    after, changes = rate({}, a_result("g", ["ann", "bo"], [2, 1]))
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
    strong, weak = Rating(mu=35, sigma=4), Rating(mu=15, sigma=4)
    me = Rating(mu=25, sigma=4)
    over_strong, _ = rate({"me": me, "them": strong}, a_result("g", ["me", "them"], [1, 2]))
    over_weak, _ = rate({"me": me, "them": weak}, a_result("g", ["me", "them"], [1, 2]))
    assert over_strong["me"].mu - 25 > over_weak["me"].mu - 25 > 0


def test_a_free_for_all_moves_each_by_its_place_and_a_tie_moves_the_tied_alike():
    after, _ = rate({}, a_result("g", ["a", "b", "c"], [2, 1, 3]))
    assert after["b"].mu > after["a"].mu > after["c"].mu
    tied, _ = rate({}, a_result("g", ["a", "b", "c"], [1, 1, 2]))
    assert tied["a"].mu == tied["b"].mu > MODEL.mu > tied["c"].mu


def test_an_entity_holding_two_seats_keeps_the_mean_of_their_ratings():
    greedy = ai_entity("greedy")
    after, changes = rate({}, a_result("g", [greedy, "ann", greedy], [2, 1, 3]))
    alone_second, _ = rate({}, a_result("g", ["x", "ann", "y"], [2, 1, 3]))
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
    settled = Rating(mu=30, sigma=2.0, games=80, played_at=START)
    soon, changes = rate({"ann": settled}, a_result("g", ["ann", "bo"], [2, 1], START + DAY))
    late, _ = rate({"ann": settled}, a_result("g", ["ann", "bo"], [2, 1], START + 400 * DAY))
    assert 30 - late["ann"].mu > 30 - soon["ann"].mu > 0
    assert changes[0].sigma_before == pytest.approx(math.sqrt(4 + 0.16))


@pytest.fixture
def ratings(fake_redis):
    return Ratings(fake_redis, "test")


def a_season(count=12) -> list[RatedResult]:
    """Duels among four people, each pair in turn, an hour apart."""
    pairs = list(itertools.combinations(["ann", "bo", "cy", "di"], 2))
    return [
        a_result(f"g{n:02}", pairs[n % 6], [1, 2] if n % 3 else [2, 1], START + 3600 * n)
        for n in range(count)
    ]


def _everything(ratings, players=2) -> dict:
    total, board = ratings.board(players, 0, 100)
    return {
        "board": board,
        "total": total,
        "changes": {g: ratings.changes(g) for g in (f"g{n:02}" for n in range(12))},
        "history": {e: ratings.history(e, 100) for e, _ in board},
    }


def _by_folding(results) -> dict[str, Rating]:
    state = {}
    for result in sorted(results, key=lambda r: (r.finished_at, r.game_id)):
        after, _ = rate(state, result)
        state.update(after)
    return state


def test_results_applied_as_they_come_are_the_fold_of_them_in_order(ratings):
    season = a_season()
    for result in season:
        ratings.record(result)
        assert ratings.catch_up(2) == [result.game_id]
    assert ratings.catch_up(2) == []  # nothing new
    expected = _by_folding(season)
    assert dict(ratings.board(2, 0, 100)[1]) == expected
    assert ratings.rating(2, "ann") == expected["ann"]
    assert ratings.rating(3, "ann") is None


def test_a_result_arriving_late_is_folded_in_its_place(ratings):
    season = a_season()
    late = season.pop(4)
    for result in season:
        ratings.record(result)
        ratings.catch_up(2)
    ratings.record(late)
    assert ratings.catch_up(2) == [f"g{n:02}" for n in range(4, 12)]  # from it on
    everything = sorted([*season, late], key=lambda r: r.finished_at)
    assert dict(ratings.board(2, 0, 100)[1]) == _by_folding(everything)
    for n, result in enumerate(everything):
        assert ratings.changes(result.game_id) == rate(_by_folding(everything[:n]), result)[1]


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
    total, everyone = ratings.board(2, 0, 10)
    assert total == 4 == len(everyone)
    skills = [rating.mu for _, rating in everyone]
    assert skills == sorted(skills, reverse=True)
    assert ratings.board(2, 1, 2)[1] == everyone[1:3]
    assert ratings.board(2, 4, 2) == (4, [])
    assert ratings.board(3, 0, 10) == (0, [])


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
    ratings.record(a_result("duel", ["ann", "bo"], [1, 2]))
    ratings.record(a_result("three", ["ann", "bo", "cy"], [3, 1, 2], START + 60))
    for players in (2, 3):
        ratings.catch_up(players)
    assert ratings.rating(2, "ann").mu > MODEL.mu > ratings.rating(3, "ann").mu
    assert [p.result.game_id for p in ratings.history("ann", 10)] == ["three", "duel"]


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
    assert dict(ratings.board(2, 0, 100)[1]) == _by_folding(season)
    changes = {r.game_id: rate(_by_folding(season[:n]), r)[1] for n, r in enumerate(season)}
    assert {g: ratings.changes(g) for g in changes} == changes


def test_results_ending_at_the_same_time_are_folded_in_the_order_of_their_ids(ratings):
    same = [a_result(g, ["ann", "bo"], [1, 2] if g != "b" else [2, 1]) for g in ("c", "a", "b")]
    for result in same:  # recorded c, a, b: folded a, b, c
        ratings.record(result)
        ratings.catch_up(2)
    assert dict(ratings.board(2, 0, 10)[1]) == _by_folding(same)
    first, _ = rate({}, same[1])
    assert ratings.changes("b") == rate(first, same[2])[1]
