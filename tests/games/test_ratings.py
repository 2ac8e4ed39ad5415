"""Rated games through the use cases: who may take a seat, how a 2-, 3- and 4-player
game, a resignation, a forfeit and an abort move the ratings, farming with a second
account, the rebuild, and what the leaderboard and the public profiles show."""

from __future__ import annotations

import itertools

import pytest

from service import games
from service.domain import legal_decisions
from service.events import AI, FINISHED, RESIGNED, Game, RatedResult, ai_entity
from service.events.ratings import MIN_DECISIONS_PER_SEAT, MODEL, rate
from service.games import InvalidRequest, Unauthorized, UnknownPlayer
from tests.games.factories import INVITE, a_game, joined


def registered(claim, *names) -> list[tuple[str, str]]:
    """(player id, key) per name."""
    return [(player.id, key) for player, key in (games.register(claim, n) for n in names)]


def played_out(claim, game_id, tokens, moves=None):
    """The game after `moves` decisions (None: to its end): people play their first
    legal decision, AI seats their AI's."""
    game = claim.store.load(game_id)
    while game.state.to_act is not None and moves != 0:
        seat = game.state.to_act
        if game.seats[seat].kind == AI:
            games.play_ai_turn(claim, game_id, game.version)
        else:
            move = str(legal_decisions(game.state)[0])
            games.move(claim, game_id, tokens[seat], move, game.version, f"k{game.version}")
        game = claim.store.load(game_id)
        moves = None if moves is None else moves - 1
    return game


def a_rated_game(claim, kinds, players, seed=1, **options):
    """A rated game of `kinds`, its human seats taken by `players` ((id, key) each, in
    seat order); its seat tokens."""
    game = a_game(claim, kinds, seed=seed, rated=True, **options)
    humans = [seat for seat, kind in enumerate(kinds) if kind == "human"]
    keys = {seat: key for seat, (_, key) in zip(humans, players, strict=True)}
    return game, joined(claim, game, keys)


ENOUGH = 2 * MIN_DECISIONS_PER_SEAT  # decisions of a duel from which a resignation rates


def resigned(claim, winner, loser, moves=ENOUGH, seed=1):
    """A rated duel of `winner` (seat 0) and `loser` ((id, key) each) that `loser`
    resigns after `moves` decisions; the game."""
    game, tokens = a_rated_game(claim, ("human", "human"), [winner, loser], seed)
    played_out(claim, game.id, tokens, moves)
    games.resign(claim, game.id, tokens[1])
    return claim.store.load(game.id)


def shown(claim, entity, players=2) -> float:
    """The rating the leaderboard and the profile show (a newcomer's when none)."""
    standing = games.public_profile(claim, entity).standings[players]
    return MODEL.mu if standing is None else standing.rating.mu


def test_a_rated_game_is_for_registered_players_only(claim):
    [(_, key)] = registered(claim, "Ann")
    game = a_game(claim, ("human", "human"), rated=True)
    with pytest.raises(Unauthorized, match="registered players"):
        games.join(claim, game.id, 0, INVITE, "Bo")
    with pytest.raises(Unauthorized):
        games.join(claim, game.id, 0, INVITE, "Bo", "not-a-key")
    assert games.join(claim, game.id, 0, INVITE, None, key).seat == 0
    unrated = a_game(claim, ("human", "human"))
    assert games.join(claim, unrated.id, 0, INVITE, "Bo").seat == 0


def test_a_rated_duel_moves_the_winner_up_and_the_loser_down(claim):
    (ann, ann_key), (bo, bo_key) = registered(claim, "Ann", "Bo")
    game, tokens = a_rated_game(claim, ("human", "human"), [(ann, ann_key), (bo, bo_key)])
    over = played_out(claim, game.id, tokens)
    [winner] = over.ending.winners
    ids = [ann, bo]
    won, lost = claim.ratings.rating(2, ids[winner]), claim.ratings.rating(2, ids[1 - winner])
    assert won.mu > MODEL.mu > lost.mu
    assert won.games == lost.games == 1
    assert won.played_at == over.updated_at.timestamp()
    changes = games.look(claim, game.id, None).ratings
    assert [(c.seat, c.entity) for c in changes] == [(0, ann), (1, bo)]
    assert changes[winner].mu_after == won.mu and changes[winner].mu_before == MODEL.mu


def test_a_three_player_game_ranks_by_the_rules_order_of_the_sides(claim):
    people = registered(claim, "Ann", "Bo", "Cy")
    game, tokens = a_rated_game(claim, ("human",) * 3, people, seed=3)
    over = played_out(claim, game.id, tokens)
    keys = over.result.side_keys
    mus = [claim.ratings.rating(3, pid).mu for pid, _ in people]
    for a in range(3):
        for b in range(3):
            if keys[a] > keys[b]:
                assert mus[a] > mus[b]
    assert claim.ratings.rating(2, people[0][0]) is None  # 3 players are rated apart


def test_a_four_player_game_moves_each_team_together_ai_seats_as_their_level(claim):
    (ann, ann_key), (bo, bo_key) = registered(claim, "Ann", "Bo")
    kinds = ("human", "human", "random", "greedy")  # teams: seats 0+2 and 1+3
    game, tokens = a_rated_game(claim, kinds, [(ann, ann_key), (bo, bo_key)], seed=5)
    over = played_out(claim, game.id, tokens)
    assert over.status == FINISHED
    result = RatedResult.of(over)
    assert result.entities == (ann, bo, ai_entity("random"), ai_entity("greedy"))
    expected, _ = rate({}, result)
    for entity, rating in expected.items():
        assert claim.ratings.rating(4, entity) == rating
    mus = [claim.ratings.rating(4, entity).mu for entity in result.entities]
    if not over.ending.winners:  # a draw (the random AI's moves depend on the game id)
        assert mus == pytest.approx([MODEL.mu] * 4)
        return
    up = [mu > MODEL.mu for mu in mus]
    assert up[0] == up[2] != up[1] == up[3]  # teammates together, against the others
    assert up[0] == (over.ending.winners == (0,))


def test_a_resignation_counts_as_a_loss(claim):
    ann, bo = registered(claim, "Ann", "Bo")
    over = resigned(claim, ann, bo, moves=ENOUGH)
    assert over.decisions == 8
    assert claim.ratings.rating(2, bo[0]).mu < MODEL.mu < claim.ratings.rating(2, ann[0]).mu


def test_a_resignation_before_four_decisions_a_seat_ends_the_game_but_rates_nobody(claim):
    ann, bo = registered(claim, "Ann", "Bo")
    over = resigned(claim, ann, bo, moves=ENOUGH - 1)
    assert (over.status, over.ending.reason, over.ending.winners) == (FINISHED, RESIGNED, (0,))
    changes = games.look(claim, over.id, None).ratings
    assert [(c.weight, c.meetings, c.mu_after) for c in changes] == [(0, 0, MODEL.mu)] * 2
    assert claim.ratings.rating(2, ann[0]) is None and games.leaderboard(claim, 2).total == 0


def a_forfeit(claim, clock, players, moves) -> Game:
    """A rated duel of `players` whose seat to act lets its move time run out after
    `moves` decisions; the game."""
    game, tokens = a_rated_game(
        claim, ("human", "human"), players, move_time_limit=60, timeout_policy="forfeit"
    )
    played_out(claim, game.id, tokens, moves)
    clock.advance(61)
    games.fire_due_timers(claim)
    return claim.store.load(game.id)


def test_a_forfeit_by_deadline_counts_as_a_loss(claim, clock):
    people = registered(claim, "Ann", "Bo")
    over = a_forfeit(claim, clock, people, ENOUGH)
    assert over.ending.reason == "forfeited"
    [forfeited] = [seat for seat in (0, 1) if seat not in over.ending.winners]
    ids = [pid for pid, _ in people]
    assert claim.ratings.rating(2, ids[forfeited]).mu < MODEL.mu
    assert claim.ratings.rating(2, ids[1 - forfeited]).mu > MODEL.mu


def test_a_forfeit_by_an_opponent_who_never_moved_rates_nobody(claim, clock):
    people = registered(claim, "Ann", "Bo")
    over = a_forfeit(claim, clock, people, 0)
    assert over.ending.reason == "forfeited" and over.ending.winners
    assert all(c.weight == 0 for c in games.look(claim, over.id, None).ratings)
    assert games.leaderboard(claim, 2).total == 0


def test_an_aborted_game_and_an_unrated_game_change_nothing(claim, clock):
    (ann, ann_key), (_bo, bo_key) = registered(claim, "Ann", "Bo")
    waiting = a_game(claim, ("human", "human"), rated=True, join_time_limit=60)
    games.join(claim, waiting.id, 0, INVITE, None, ann_key)
    clock.advance(61)
    games.fire_due_timers(claim)
    assert claim.store.load(waiting.id).status == "aborted"
    unrated = a_game(claim, ("human", "human"))
    tokens = joined(claim, unrated, {0: ann_key, 1: bo_key})
    assert played_out(claim, unrated.id, tokens).status == FINISHED
    assert games.look(claim, unrated.id, None).ratings is None
    assert games.leaderboard(claim, 2).total == 0
    assert claim.ratings.rating(2, ann) is None


def _figures(claim, entities, game_ids) -> dict:
    return {
        "boards": {n: claim.ratings.board(n, 0, 100) for n in (2, 3, 4)},
        "changes": {g: claim.ratings.changes(g) for g in game_ids},
        "history": {e: claim.ratings.history(e, 100) for e in entities},
    }


def test_rebuild_from_the_streams_gives_the_same_figures_exactly(
    claim, clock, redis_client, prefix
):
    people = registered(claim, "Ann", "Bo", "Cy")
    game_ids = []
    for seed, (a, b) in enumerate([(0, 1), (1, 2), (2, 0), (0, 1)]):
        game, tokens = a_rated_game(claim, ("human", "human"), [people[a], people[b]], seed)
        game_ids.append(played_out(claim, game.id, tokens).id)
    for moves in (ENOUGH, 0, ENOUGH, ENOUGH):  # Ann and Bo's 3rd to 5th of the day, one thrown
        clock.advance(60)
        game_ids.append(resigned(claim, people[0], people[1], moves).id)
    assert games.look(claim, game_ids[-1], None).ratings[0].weight == 0.25
    trio, tokens = a_rated_game(claim, ("human", "greedy", "human"), people[:2], seed=7)
    game_ids.append(played_out(claim, trio.id, tokens).id)
    entities = [pid for pid, _ in people] + [ai_entity("greedy")]
    before = _figures(claim, entities, game_ids)
    assert before["boards"][2].total == 3 and before["boards"][3].total == 3
    redis_client.delete(*redis_client.scan_iter(match=f"{prefix}:{{ratings}}:*"))
    assert games.leaderboard(claim, 2).total == 0
    games.rebuild(claim, reversed(game_ids))  # in any order
    assert _figures(claim, entities, game_ids) == before


def test_the_leaderboard_pages_best_first_and_marks_provisional_ratings(claim):
    people = registered(claim, "Ann", "Bo", "Cy")
    for seed, (a, b) in enumerate([(0, 1), (0, 2), (1, 2)]):
        game, tokens = a_rated_game(claim, ("human", "human"), [people[a], people[b]], seed)
        played_out(claim, game.id, tokens)
    board = games.leaderboard(claim, 2, 0, 10)
    assert board.total == 3
    skills = [s.rating.mu for s in board.standings]
    assert skills == sorted(skills, reverse=True)
    assert {s.name for s in board.standings} == {"Ann", "Bo", "Cy"}
    assert all(s.provisional and s.kind == "player" for s in board.standings)  # 2 games each
    assert board.ranked == 0 and not any(s.ranked for s in board.standings)  # 2 opponents
    assert games.leaderboard(claim, 2, 1, 1).standings == board.standings[1:2]


def test_uncertainty_shown_grows_while_a_player_does_not_play(claim, clock):
    people = registered(claim, "Ann", "Bo")
    game, tokens = a_rated_game(claim, ("human", "human"), people)
    played_out(claim, game.id, tokens)
    [now] = [s for s in games.leaderboard(claim, 2).standings if s.entity == people[0][0]]
    clock.advance(90 * 86_400)
    [later] = [s for s in games.leaderboard(claim, 2).standings if s.entity == people[0][0]]
    assert later.rating == now.rating  # stored figures do not move
    assert now.sigma == now.rating.sigma < later.sigma <= MODEL.sigma


def test_a_public_profile_shows_ratings_and_recent_rated_results(claim):
    (ann, ann_key), (bo, bo_key) = registered(claim, "Ann", "Bo")
    game, tokens = a_rated_game(claim, ("human", "human"), [(ann, ann_key), (bo, bo_key)])
    played_out(claim, game.id, tokens)
    joined(claim, a_game(claim, ("human", "random"), seed=2), {0: ann_key})  # unrated
    profile = games.public_profile(claim, ann)
    assert (profile.name, profile.kind, profile.games) == ("Ann", "player", 1)
    assert profile.standings[3] is None and profile.standings[4] is None
    assert profile.standings[2].rating == claim.ratings.rating(2, ann)
    [played] = profile.recent
    assert (played.result.game_id, played.change.entity, played.change.seat) == (game.id, ann, 0)
    greedy = games.public_profile(claim, "ai:greedy")
    assert (greedy.name, greedy.kind, greedy.created_at, greedy.games) == ("greedy", "ai", None, 0)
    for unknown in ("ai:grandmaster", "0123456789abcdef", "x:games", ""):
        with pytest.raises(UnknownPlayer):
            games.public_profile(claim, unknown)


def test_a_rated_game_with_a_move_time_limit_is_lost_by_forfeit_never_played_by_an_ai(claim):
    for policy in ("ai:greedy", "takeover:expert"):
        with pytest.raises(InvalidRequest, match="forfeit") as refused:
            games.create(claim, 2, move_time_limit=60, timeout_policy=policy, rated=True)
        assert "timeout_policy" in refused.value.errors
    assert games.create(claim, 2, move_time_limit=60, timeout_policy="forfeit", rated=True)
    assert games.create(claim, 2, timeout_policy="takeover:expert", rated=True)  # no limit
    assert games.create(claim, 2, move_time_limit=60, timeout_policy="ai:greedy")  # unrated


def test_thirty_games_thrown_at_once_by_a_second_account_move_the_rating_by_less_than_5(
    claim, clock
):
    """The farming of issue 29: a second account that resigns at once, 30 times in 3
    seconds, took a rating from 25 to 41.6. Each game still ends, won by the first."""
    farmer, second = registered(claim, "Farmer", "Second")
    for n in range(30):
        clock.advance(0.1)
        over = resigned(claim, farmer, second, moves=0, seed=n)
        assert (over.status, over.ending.winners) == (FINISHED, (0,))
        assert [c.weight for c in games.look(claim, over.id, None).ratings] == [0, 0]
    assert shown(claim, farmer[0]) == MODEL.mu  # under 5 up, as asked: not moved at all
    assert games.leaderboard(claim, 2).total == 0


def test_a_farmer_who_plays_past_the_minimum_before_resigning_gains_little(claim, clock):
    """Each game counts (4 decisions a seat, then the second account resigns), but the
    same two within a day count fully 3 times, then 1/2, 1/4, 1/8, then not at all."""
    farmer, second = registered(claim, "Farmer", "Second")
    results = []
    for n in range(30):
        clock.advance(1)
        results.append(RatedResult.of(resigned(claim, farmer, second, seed=n)))
    weights = [claim.ratings.changes(r.game_id)[0].weight for r in results]
    assert weights == [1, 1, 1, 0.5, 0.25, 0.125] + [0] * 24
    state = {}
    for result in results:  # as they would have counted without the rules
        after, _ = rate(state, result)
        state.update(after)
    assert state[farmer[0]].mu == pytest.approx(41.6, abs=0.1)  # the figure
    gain = shown(claim, farmer[0]) - MODEL.mu
    assert 0 < gain < (state[farmer[0]].mu - MODEL.mu) / 2
    assert claim.ratings.rating(2, farmer[0]).games == 6
    [standing] = games.leaderboard(claim, 2, 0, 1).standings
    assert standing.entity == farmer[0] and standing.provisional and not standing.ranked


def test_honest_play_between_distinct_opponents_rates_fully_and_ranks(claim, clock):
    people = registered(claim, "Ann", "Bo", "Cy", "Di", "Ed", "Fy")
    results = []
    for n, (a, b) in enumerate(itertools.combinations(range(6), 2)):  # each meets 5
        clock.advance(600)
        winner, loser = (people[a], people[b]) if n % 2 else (people[b], people[a])
        results.append(RatedResult.of(resigned(claim, winner, loser, seed=n)))
    state = {}
    for result in results:
        after, changes = rate(state, result)  # full weight, every time
        state.update(after)
        assert claim.ratings.changes(result.game_id) == changes
    board = games.leaderboard(claim, 2, 0, 10)
    assert (board.total, board.ranked) == (6, 6)
    assert {s.entity: s.rating for s in board.standings} == state
    assert all(s.ranked for s in board.standings)


def test_a_new_account_is_listed_after_the_ranked_until_it_has_met_five_opponents(claim, clock):
    ann, alt, bo, cy, di, ed = registered(claim, "Ann", "Alt", "Bo", "Cy", "Di", "Ed")
    game, tokens = a_rated_game(claim, ("human", "greedy"), [bo])
    played_out(claim, game.id, tokens, ENOUGH)
    games.resign(claim, game.id, tokens[0])  # greedy wins: ranked, as an AI level is
    for n in range(3):  # Ann beats her second account, three times in full
        clock.advance(60)
        resigned(claim, ann, alt, seed=n)
    board = games.leaderboard(claim, 2, 0, 10)
    assert [s.entity for s in board.standings[:2]] == [ai_entity("greedy"), ann[0]]
    greedy, newcomer = board.standings[:2]
    assert newcomer.rating.mu > greedy.rating.mu  # yet after it
    assert board.ranked == 1 and not newcomer.ranked and newcomer.provisional
    for n, other in enumerate([bo, cy, di, ed]):
        clock.advance(60)
        resigned(claim, ann, other, seed=n)
    board = games.leaderboard(claim, 2, 0, 10)
    assert board.standings[0].entity == ann[0] and board.standings[0].ranked
    assert board.ranked == 2  # Ann and greedy: the others met fewer than five
    assert games.public_profile(claim, ann[0]).standings[2].ranked
