"""What follows a change (`service/games/changes.py`): the projections, the AI turn,
the timers, the notifications; and writing them again from the streams."""

from service import games
from service.domain import apply, is_over, legal_decisions
from service.events import ABORTED, FINISHED, OPEN, RUNNING, LobbyFilter
from service.games import Change, changed, changes
from tests.events.factories import RoundTrips
from tests.games.factories import a_game, joined, moved


def _listed(claim, game_id) -> list[str]:
    return [
        status
        for status in (OPEN, RUNNING, FINISHED, ABORTED)
        if game_id in [summary.game_id for summary in claim.lobby.page(status).games]
    ]


def test_a_game_moves_through_the_lobby_from_open_to_running_to_finished(claim):
    game = a_game(claim, kinds=("human", "human"))
    assert _listed(claim, game.id) == [OPEN]
    tokens = joined(claim, game)
    assert _listed(claim, game.id) == [RUNNING]
    moved(claim, game.id, tokens)
    assert _listed(claim, game.id) == [FINISHED]


def test_a_resignation_finishes_a_game_in_the_lobby(claim):
    game = a_game(claim, kinds=("human", "human"))
    tokens = joined(claim, game)
    games.resign(claim, game.id, tokens[0])
    assert _listed(claim, game.id) == [FINISHED]


def test_a_move_resent_with_its_key_repairs_the_lobby_it_missed(claim, monkeypatch):
    game = a_game(claim, kinds=("human", "human"))
    tokens = joined(claim, game)
    while not is_over(apply(game.state, legal_decisions(game.state)[0])):
        game = moved(claim, game.id, tokens, moves=1)
    last = (tokens[game.state.to_act], str(legal_decisions(game.state)[0]), game.version, "last")
    with monkeypatch.context() as died:  # the process dies between the append and the rest
        died.setattr(changes, "FOLLOWS", ())
        games.move(claim, game.id, *last)
    assert _listed(claim, game.id) == [RUNNING]
    games.move(claim, game.id, *last)  # the client sends it again, not knowing
    assert _listed(claim, game.id) == [FINISHED]


def test_a_registered_players_seat_puts_the_game_in_their_inbox(claim, clock):
    ann, key = games.register(claim, "Ann")
    first, second = a_game(claim), a_game(claim, kinds=("random", "human"))
    joined(claim, first, keys={0: key})
    clock.advance(1)
    joined(claim, second, keys={1: key})
    assert claim.player_games.of(ann.id) == [second.id, first.id]


def test_a_seat_registered_to_a_player_puts_the_game_in_their_inbox_keeping_the_deadline(
    claim, clock, redis_client, prefix
):
    game = a_game(claim, kinds=("human", "human"), move_time_limit=3600)
    tokens = joined(claim, game)
    deadline = claim.deadlines.due()[game.id]
    clock.advance(600)
    ann, key = games.register(claim, "Ann")
    games.register_seat(claim, key, game.id, 1, tokens[1])
    assert claim.player_games.of(ann.id) == [game.id]
    assert claim.deadlines.due() == {game.id: deadline}  # the move time runs on
    redis_client.delete(f"{prefix}:player:{ann.id}:games")
    games.rebuild(claim, [game.id])
    assert claim.player_games.of(ann.id) == [game.id]


def test_a_move_of_people_without_move_time_or_players_to_tell_asks_nothing_of_redis(
    claim, redis_client, monkeypatch
):
    """No AI to enqueue, no deadline to set or clear, nobody to tell, no listing
    changed: what follows a move of a live game between people costs no round trip."""
    game = a_game(claim, kinds=("human", "human"))
    tokens = joined(claim, game)  # the start clears the join timer
    with monkeypatch.context() as quiet:
        quiet.setattr(changes, "FOLLOWS", ())
        game = moved(claim, game.id, tokens, moves=1)
    [move] = claim.store.read(game.id, after=game.version - 1)
    round_trips = RoundTrips(redis_client, monkeypatch)
    changed(claim, Change(game, (move.event,)))
    assert round_trips.count == 0


def test_rebuild_writes_every_projection_again_from_the_streams(
    claim_with_jobs, clock, redis_client, prefix
):
    claim = claim_with_jobs
    ann, key = games.register(claim, "Ann")
    waiting = a_game(claim, kinds=("human", "human"), move_time_limit=3600)
    joined(claim, waiting, keys={0: key})  # Ann to act: a deadline and a reminder
    ai_first = a_game(claim, kinds=("random", "human"))
    joined(claim, ai_first)  # an AI to act
    finished = a_game(claim, kinds=("random", "random"))
    while claim.store.load(finished.id).ending is None:
        games.play_ai_turn(claim, finished.id, claim.store.version(finished.id))

    def projections():
        return (
            {status: claim.lobby.page(status) for status in (OPEN, RUNNING, FINISHED)},
            claim.player_games.of(ann.id),
            claim.deadlines.due(),
            claim.reminders.due(),
            [claim.ai_turns.since(game.id) for game in (waiting, ai_first, finished)],
            claim.lobby.page(RUNNING, only=LobbyFilter(players=2, rated=False, public=False)),
        )

    before = projections()
    assert before[2] and before[3] and before[4][1] is not None  # there was something to lose
    for projection in (
        "{lobby:*}:*",
        "{deadlines:*}:*",
        "{reminders:*}:*",
        "{turns:*}:*",
        "player:*:games",
    ):
        redis_client.delete(*redis_client.scan_iter(match=f"{prefix}:{projection}"))
    claim.jobs.ai.empty()
    assert projections() != before
    assert games.rebuild(claim, claim.store.game_ids()) == 3
    assert projections() == before
    assert [job.args for job in claim.jobs.ai.jobs] == [(ai_first.id, 2)]  # created, joined


def test_rebuild_writes_the_filtered_listings_of_games_the_lobby_shows_already(
    claim, redis_client, prefix
):
    """As after an upgrade from a lobby without filters: each game is shown at its
    version, but is in no filtered listing."""
    game = a_game(claim, kinds=("human", "random"))
    joined(claim, game)
    redis_client.delete(*redis_client.scan_iter(match=f"{prefix}:{{lobby:*}}:*:*"))
    assert claim.lobby.page(RUNNING).total == 1
    assert claim.lobby.page(RUNNING, only=LobbyFilter(players=2)).total == 0
    assert games.rebuild(claim, [game.id]) == 1
    assert [
        s.game_id
        for s in claim.lobby.page(RUNNING, only=LobbyFilter(players=2, public=False)).games
    ] == [game.id]
