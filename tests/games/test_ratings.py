"""Rated games through the use cases: who may take a seat, how a 2-, 3- and 4-player
game, a resignation, a forfeit and an abort move the ratings, the rebuild, and what
the leaderboard and the public profiles show."""

from __future__ import annotations

import pytest

from service import games
from service.domain import legal_decisions
from service.events import AI, FINISHED, RatedResult, ai_entity
from service.events.ratings import MODEL, rate
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
    (ann, ann_key), (bo, bo_key) = registered(claim, "Ann", "Bo")
    game, tokens = a_rated_game(claim, ("human", "human"), [(ann, ann_key), (bo, bo_key)])
    played_out(claim, game.id, tokens, moves=3)
    games.resign(claim, game.id, tokens[1])
    assert claim.ratings.rating(2, bo).mu < MODEL.mu < claim.ratings.rating(2, ann).mu


def test_a_forfeit_by_deadline_counts_as_a_loss(claim, clock):
    (ann, ann_key), (bo, bo_key) = registered(claim, "Ann", "Bo")
    game, _tokens = a_rated_game(
        claim,
        ("human", "human"),
        [(ann, ann_key), (bo, bo_key)],
        move_time_limit=60,
        timeout_policy="forfeit",
    )
    to_act = claim.store.load(game.id).state.to_act
    clock.advance(61)
    games.fire_due_timers(claim)
    over = claim.store.load(game.id)
    assert over.ending.reason == "forfeited"
    ids = [ann, bo]
    assert claim.ratings.rating(2, ids[to_act]).mu < MODEL.mu
    assert claim.ratings.rating(2, ids[1 - to_act]).mu > MODEL.mu


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


def test_rebuild_from_the_streams_gives_the_same_figures_exactly(claim, redis_client, prefix):
    people = registered(claim, "Ann", "Bo", "Cy")
    game_ids = []
    for seed, (a, b) in enumerate([(0, 1), (1, 2), (2, 0), (0, 1)]):
        game, tokens = a_rated_game(claim, ("human", "human"), [people[a], people[b]], seed)
        game_ids.append(played_out(claim, game.id, tokens).id)
    trio, tokens = a_rated_game(claim, ("human", "greedy", "human"), people[:2], seed=7)
    game_ids.append(played_out(claim, trio.id, tokens).id)
    entities = [pid for pid, _ in people] + [ai_entity("greedy")]
    before = _figures(claim, entities, game_ids)
    assert before["boards"][2][0] == 3 and before["boards"][3][0] == 3
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
