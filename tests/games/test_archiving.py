"""Ended games moved from Redis to the archive: when, what is left in Redis (nothing),
every read the same afterwards, a move cut short at any step finished by the next,
and what cannot move yet."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

from service import games
from service.events import FINISHED, LobbyFilter, StaleVersion
from service.events.archive import row_facts
from service.events.packing import pack, unpack
from service.games import archiving, background
from tests.games.factories import INVITE, a_game, joined, moved
from tests.games.test_ratings import a_rated_game, played_out, registered


def finished(claim, kinds=("human", "human"), seed=1, keys=None, moves=None):
    """A game of people played to its end (or for `moves` decisions), its seats taken
    by the players whose keys `keys` gives by seat; the game and its seat tokens."""
    game = a_game(claim, kinds, seed=seed)
    tokens = joined(claim, game, keys)
    return moved(claim, game.id, tokens, moves), tokens


def keys_naming(redis_client, prefix, game_id) -> list:
    """Every key of the prefix that holds `game_id`: in its name, or as a member or
    field of a sorted set or hash."""
    found = []
    for key in redis_client.scan_iter(match=f"{prefix}:*", count=1000):
        kind = redis_client.type(key)
        if (
            game_id.encode() in key
            or (kind == b"zset" and redis_client.zscore(key, game_id) is not None)
            or (kind == b"hash" and redis_client.hexists(key, game_id))
        ):
            found.append(key)
    return found


def reads(claim, game, tokens) -> dict:
    """What every read of `game` answers, as values that compare."""
    views = [games.look(claim, game.id, token) for token in tokens.values()]
    return {
        "records": claim.store.read(game.id),
        "head": claim.store.load(game.id).head,
        "version": claim.store.version(game.id),
        "views": [(seen.game.head, seen.seat, seen.rematch, seen.ratings) for seen in views],
        "public": games.look(claim, game.id, None).game.head,
        "events": games.event_log(claim, game.id),
        "replay": [games.replay(claim, game.id, step).account for step in (0, 1, 5)],
        "audit": games.audit(claim, game.id).result_verified,
        "export": games.export(claim, game.id),
        "lobby": games.lobby(claim, FINISHED, 0, 20, LobbyFilter()),
    }


def test_an_ended_game_moves_when_its_time_in_redis_is_up(claim, clock):
    game, _ = finished(claim)
    clock.advance(claim.config.archive_after - 1)
    assert games.fire_due_timers(claim) == 0
    assert claim.archive.count() == 0
    clock.advance(1)
    assert games.fire_due_timers(claim) == 1
    assert claim.archive.versions([game.id]) == {game.id: game.version}


def test_an_archived_game_leaves_nothing_of_it_in_redis(claim, clock, redis_client, prefix):
    game, _ = finished(claim)
    assert keys_naming(redis_client, prefix, game.id)
    games.archive(claim, [game.id])
    assert keys_naming(redis_client, prefix, game.id) == []


def test_every_read_of_an_archived_game_answers_what_it_answered_before(claim):
    game, tokens = finished(claim, ("human", "human", "human"), seed=3)
    other, _ = finished(claim, seed=4)
    before = reads(claim, game, tokens)
    assert games.archive(claim, [game.id]).archived == (game.id,)
    after_in_this_process = reads(claim, game, tokens)
    fresh = games.Claim.connect(claim.config, client=claim.store._redis, jobs=False)
    after_in_another = reads(fresh, game, tokens)
    fresh.close()
    assert after_in_this_process == before
    assert after_in_another == before
    assert {g.game_id for g in before["lobby"].games} == {other.id, game.id}


def test_a_running_game_is_left_in_redis(claim):
    game, _ = finished(claim, moves=3)
    report = games.archive(claim, [game.id, "nosuchgame"])
    assert (report.archived, report.left) == ((), ())
    assert (report.running, report.unknown) == ((game.id,), ("nosuchgame",))
    assert claim.archive.count() == 0


def test_a_rated_game_moves_with_its_ratings_folded_first(claim, monkeypatch):
    players = registered(claim, "Ann", "Bo")
    game, tokens = a_rated_game(claim, ("human", "human"), players)
    with monkeypatch.context() as cut:  # what follows its end fails: its ratings wait
        cut.setattr(claim.ratings, "record", lambda result: 1 / 0)
        played_out(claim, game.id, tokens)
    assert claim.ratings.changes(game.id) is None
    assert claim.seals.kept([game.id])[game.id][1]["moves_ratings"]  # so its log is folded
    row = folded_row(claim, game.id)
    assert games.archive(claim, [game.id]).archived == (game.id,)
    assert claim.ratings.changes(game.id) is not None
    assert games.look(claim, game.id, tokens[0]).ratings == claim.ratings.changes(game.id)
    assert archived_as(claim, row, [player for player, _ in players])


def test_a_players_archived_games_are_in_their_inbox(claim):
    (_, key), (_, bo_key) = registered(claim, "Ann", "Bo")
    first, _ = finished(claim, keys={0: key, 1: bo_key})
    running, _ = finished(claim, seed=2, keys={0: key}, moves=2)
    before = games.inbox(claim, key)
    games.archive(claim, [first.id, running.id])
    assert games.inbox(claim, key) == before
    assert [e["game_id"] for e in games.inbox(claim, key, status=FINISHED).games] == [first.id]
    assert games.inbox(claim, key, limit=1, offset=1).games == before.games[1:]
    assert games.inbox(claim, bo_key).total == 1


def test_a_rematch_asked_before_or_after_the_move_is_found(claim):
    game, tokens = finished(claim)
    rematch = games.rematch(claim, game.id, tokens[0])
    games.archive(claim, [game.id])
    assert games.look(claim, game.id, tokens[1]).rematch == rematch.game.id
    later, later_tokens = finished(claim, seed=2)
    games.archive(claim, [later.id])
    asked = games.rematch(claim, later.id, later_tokens[1])
    assert asked.created and games.look(claim, later.id, None).rematch == asked.game.id
    again = games.rematch(claim, later.id, later_tokens[0])
    assert again.game.id == asked.game.id and not again.created


def test_a_move_on_an_archived_game_is_refused_as_over(claim):
    game, tokens = finished(claim)
    games.archive(claim, [game.id])
    with pytest.raises(games.GameOver):
        games.move(claim, game.id, tokens[0], "take deck", game.version, "late")


def test_no_game_is_made_again_with_an_archived_games_id(claim):
    game, _ = finished(claim)
    games.archive(claim, [game.id])
    with pytest.raises(StaleVersion):
        claim.store.create(game.settings, game.creation.seats, game_id=game.id)


STEPS = [
    ("archive", "put"),
    ("archive", "get"),
    ("lobby", "forget"),
    ("player_games", "forget"),
    ("deadlines", "forget"),
    ("seals", "forget"),
    ("store", "forget"),
    ("archives", "forget"),
]


@pytest.mark.parametrize(("part", "step"), STEPS)
def test_a_move_cut_short_at_any_step_leaves_every_game_whole_and_is_finished_later(
    claim, redis_client, prefix, monkeypatch, part, step
):
    (_, key), (_, bo_key) = registered(claim, "Ann", "Bo")
    both = [finished(claim, keys={0: key, 1: bo_key}), finished(claim, seed=2)]
    ids = [game.id for game, _ in both]
    before = [reads(claim, game, tokens) for game, tokens in both]
    inbox = games.inbox(claim, key)

    def cut(*args, **kwargs):
        raise RuntimeError(f"killed at {part}.{step}")

    monkeypatch.setattr(getattr(claim, part), step, cut)
    with pytest.raises(RuntimeError):
        games.archive(claim, ids)
    monkeypatch.undo()
    assert [reads(claim, game, tokens) for game, tokens in both] == before
    assert games.inbox(claim, key) == inbox
    assert set(games.archive(claim, ids).archived) == set(ids)
    for game_id in ids:
        assert keys_naming(redis_client, prefix, game_id) == []
    assert [reads(claim, game, tokens) for game, tokens in both] == before
    assert games.inbox(claim, key) == inbox


def test_a_row_that_does_not_read_back_as_written_leaves_the_game_in_redis(claim, monkeypatch):
    game, _ = finished(claim)
    real = claim.archive.get
    monkeypatch.setattr(
        claim.archive, "get", lambda ids: {i: replace(r, version=1) for i, r in real(ids).items()}
    )
    report = games.archive(claim, [game.id])
    assert report.left == (game.id,)
    assert claim.store.entries([game.id])


def test_the_archive_timer_of_an_ended_game_is_set_again_by_a_rebuild(claim, clock):
    game, _ = finished(claim)
    claim.archives.forget([game.id])  # as a game ended before there was an archive
    clock.advance(claim.config.archive_after)
    assert games.fire_due_timers(claim) == 0
    games.rebuild(claim, claim.store.game_ids())
    assert games.fire_due_timers(claim) == 1


def test_a_rebuild_folds_the_ratings_of_archived_games_again(claim, redis_client, prefix):
    players = registered(claim, "Ann", "Bo", "Cid")
    levels = ("random", "greedy", "random")  # an AI level counts for a newcomer
    for seed, (player, level) in enumerate(zip(players, levels, strict=True), start=1):
        game, tokens = a_rated_game(claim, ("human", level), [player], seed)
        played_out(claim, game.id, tokens)
    board = games.leaderboard(claim, 2)
    games.archive(claim, list(claim.store.game_ids()))
    redis_client.delete(*redis_client.scan_iter(match=f"{prefix}:{{ratings}}:*"))
    assert games.leaderboard(claim, 2) != board
    games.rebuild(claim, claim.store.game_ids(), claim.archive.every_id(rated=True))
    assert games.leaderboard(claim, 2) == board


def refused(*_):
    raise AssertionError("a log folded")


def folded_row(claim, game_id):
    """The archive row of the ended `game_id` as its log folded gives it."""
    entries = claim.store.entries([game_id])[game_id]
    game = claim.store.load(game_id)
    return archiving.archived_row(game_id, row_facts(game), claim.seals.get(game_id), pack(entries))


def archived_as(claim, row, players):
    """Whether the archive holds `row`, its seats those of `players`' games."""
    seats = {
        (game_id, (player, joined))
        for player in players
        for game_id, joined, _ in claim.archive.games_of(player)
    }
    stored = claim.archive.get([row.id])[row.id]
    return stored == replace(row, seats=()) and seats == {(row.id, seat) for seat in row.seats}


@pytest.mark.parametrize("kept", ["with the row's facts", "before them", "of an older version"])
def test_a_sealed_game_moves_as_the_row_its_log_folded_gives(
    claim, redis_client, prefix, monkeypatch, kept
):
    """With its seal, the facts of its row are kept when it ends: the move checks the
    log against the seal instead of folding it. A seal kept without them, or with
    facts of another version (an older server's), has the log folded."""
    (ann, _), (bo, bo_key) = players = registered(claim, "Ann", "Bo")
    game, _ = finished(
        claim, ("human", "human", "human"), seed=3, keys={0: players[0][1], 2: bo_key}
    )
    row = folded_row(claim, game.id)
    key = f"{prefix}:game:{{{game.id}}}:seal"
    body = orjson.loads(redis_client.get(key))
    if kept == "with the row's facts":
        monkeypatch.setattr(archiving, "fold", refused)
    elif kept == "before them":
        redis_client.set(key, orjson.dumps(claim.seals.get(game.id).body()))
    else:
        body["facts"] |= {"v": 0, "status": "aborted"}
        redis_client.set(key, orjson.dumps(body))
    assert games.archive(claim, [game.id]).archived == (game.id,)
    assert len(row.seats) == 2 and archived_as(claim, row, [ann, bo])


@pytest.mark.parametrize("ending", ["finished, its ratings folded", "aborted"])
def test_a_sealed_rated_game_whose_ratings_are_done_moves_without_its_log_folded(
    claim, clock, monkeypatch, ending
):
    players = registered(claim, "Ann", "Bo")
    if ending == "aborted":  # not joined in time: no rating moves
        game = a_game(claim, ("human", "human"), rated=True, join_time_limit=60)
        games.join(claim, game.id, 0, INVITE, None, players[0][1])
        clock.advance(61)
        games.fire_due_timers(claim)
    else:
        game, tokens = a_rated_game(claim, ("human", "human"), players)
        played_out(claim, game.id, tokens)
    row = folded_row(claim, game.id)
    assert orjson.loads(row.result)["reason"] == ("aborted" if ending == "aborted" else "completed")
    monkeypatch.setattr(archiving, "fold", refused)
    assert games.archive(claim, [game.id]).archived == (game.id,)
    assert archived_as(claim, row, [player for player, _ in players])


def changed_row(claim, game_id, **values):
    """The archive's row of `game_id` changed in place, as only a fault (or a hand)
    changes it."""
    sets = ", ".join(f"{column} = %s" for column in values)
    with claim.archive._transaction(write=True) as db:
        db.execute(f"UPDATE claim_games SET {sets} WHERE id = %s", [*values.values(), game_id])


def test_a_check_of_the_archive_names_each_row_that_is_not_its_sealed_log(claim):
    ids = [finished(claim, seed=seed)[0].id for seed in range(1, 6)]
    games.archive(claim, ids)
    assert dict(games.check_archive(claim, ids)) == dict.fromkeys(ids)
    other = claim.archive.get([ids[1]])[ids[1]]
    entries = unpack(claim.archive.get([ids[3]])[ids[3]].log)
    data = entries[-1].data.replace(b"{", b"{{", 1)  # an event's data that is not JSON
    changed_row(claim, ids[0], log=other.log)  # another game's log
    changed_row(claim, ids[2], signature=other.signature)  # another game's seal
    changed_row(claim, ids[3], log=pack([*entries[:-1], entries[-1]._replace(data=data)]))
    changed_row(claim, ids[4], key_id="0123456789abcdef")
    wrong = dict(games.check_archive(claim, [*ids, "nosuchgame"]))
    assert wrong.keys() == set(ids)
    assert "its log ends at version" in wrong[ids[0]]
    assert wrong[ids[1]] is None
    assert wrong[ids[2]] == "its seal does not check"
    assert "its log does not read" in wrong[ids[3]]
    assert "sealed with the key 0123456789abcdef" in wrong[ids[4]]


def test_a_game_whose_kept_seal_is_not_of_its_log_stays_in_redis(claim, redis_client, prefix):
    game, _ = finished(claim)
    other, _ = finished(claim, seed=2)
    key = f"{prefix}:game:{{{game.id}}}:seal"
    redis_client.set(key, redis_client.get(f"{prefix}:game:{{{other.id}}}:seal"))
    assert games.archive(claim, [game.id]).left == (game.id,)
    assert claim.archive.count() == 0


def test_games_left_in_redis_come_back_after_their_lease_not_in_a_loop(claim, clock, monkeypatch):
    game, _ = finished(claim)
    clock.advance(claim.config.archive_after)
    monkeypatch.setattr(background, "LEASE", 0.0)  # due again at once, as after a lease
    tries = []

    def left(claim, ids, ended_by=None):
        if tries:
            pytest.fail("the same chunk moved again in the same turn")  # not an Exception
        tries.append(ids)
        return archiving.Archived((), tuple(ids), (), ())

    monkeypatch.setattr(archiving, "archive", left)
    assert games.fire_due_timers(claim) == 0
    assert tries == [[game.id]]
