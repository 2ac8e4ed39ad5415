"""A whole deployment exported and imported into another: every game (running, ended in
Redis, archived), player and rating comes back the same; a backup that does not hold is
refused whole, naming its line."""

from __future__ import annotations

from datetime import datetime, timedelta

import orjson
import pytest

from service import games
from service.config import Config
from service.events import FINISHED, LobbyFilter
from service.games.backup import BadBackup, export_all, import_all
from tests.games.test_archiving import finished
from tests.games.test_ratings import a_rated_game, played_out, registered

OTHER_KEY = "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8="  # another deployment's seal key


@pytest.fixture
def elsewhere(redis_client, prefix, tmp_path, clock):
    """Another deployment: its own prefix, archive and signing key."""
    config = Config(
        prefix=f"{prefix}-b",
        rate_limit="",
        archive_url=f"sqlite:///{tmp_path / 'b.sqlite3'}",
        signing_key=OTHER_KEY,
    )
    claim = games.Claim.connect(config, client=redis_client, clock=clock, jobs=False)
    yield claim
    claim.close()
    keys = list(redis_client.scan_iter(match=f"{prefix}-b:*"))
    if keys:
        redis_client.delete(*keys)


@pytest.fixture
def deployment(claim):
    """Players, a running game, ended games in Redis and archived, rated and not."""
    players = registered(claim, "Ann", "Bo", "Cid")
    (_, ann), (_, bo), _ = players
    running, running_tokens = finished(claim, keys={0: ann}, moves=4)
    in_redis, in_redis_tokens = finished(claim, seed=2, keys={0: ann, 1: bo})
    archived, archived_tokens = finished(claim, ("human", "human", "human"), seed=3)
    rated, rated_tokens = a_rated_game(claim, ("human", "human"), players[:2], seed=4)
    rated = played_out(claim, rated.id, rated_tokens)
    rematch = games.rematch(claim, archived.id, archived_tokens[0])
    games.archive(claim, [archived.id, rated.id])
    return {
        "keys": (ann, bo),
        "games": [
            (running, running_tokens),
            (in_redis, in_redis_tokens),
            (archived, archived_tokens),
            (rated, rated_tokens),
            (rematch.game, {}),
        ],
    }


def seen(claim, deployment) -> dict:
    """What the deployment shows of its games and players."""
    ann, bo = deployment["keys"]
    return {
        "games": [
            (
                claim.store.read(game.id),
                claim.store.load(game.id).head,
                [games.look(claim, game.id, token).rematch for token in [None, *tokens.values()]],
            )
            for game, tokens in deployment["games"]
        ],
        "inboxes": [games.inbox(claim, ann), games.inbox(claim, bo)],
        # (the lobby shows a running game as of its last change of seats: a rebuild, as
        # of its last version)
        "running": [g.game_id for g in games.lobby(claim, "running", 0, 20, LobbyFilter()).games],
        "finished": games.lobby(claim, FINISHED, 0, 20, LobbyFilter()),
        "board": games.leaderboard(claim, 2),
        "players": [claim.players.holder(key) for key in (ann, bo)],
    }


def lines_of(claim) -> list[bytes]:
    return list(export_all(claim))


def test_a_deployment_imported_elsewhere_shows_everything_it_showed(claim, deployment, elsewhere):
    backup = lines_of(claim)
    done = import_all(elsewhere, lambda: iter(backup))
    assert (done.players, done.games, done.archived) == (3, 5, 3)
    assert seen(elsewhere, deployment) == seen(claim, deployment)


def test_an_import_repeated_writes_nothing_twice(claim, deployment, elsewhere):
    backup = lines_of(claim)
    import_all(elsewhere, lambda: iter(backup))
    again = import_all(elsewhere, lambda: iter(backup))
    assert (again.players, again.games, again.archived) == (0, 0, 0)
    assert seen(elsewhere, deployment) == seen(claim, deployment)


def test_the_seals_of_imported_games_check_with_the_keys_the_new_server_lists(
    claim, deployment, elsewhere
):
    backup = lines_of(claim)
    import_all(elsewhere, lambda: iter(backup))
    keys = games.public_keys(elsewhere)
    assert keys[0] == elsewhere.signing_key.public
    assert claim.signing_key.public in keys
    archived = deployment["games"][2][0]
    verdict = games.verify_export(games.export(elsewhere, archived.id), keys)
    assert verdict.ok, verdict.reason


def test_a_backup_and_its_import_name_nothing_running_games_hide_from_outside(claim, deployment):
    """The backup holds the private values (as the data directory does): seat tokens
    are only there as hashes."""
    backup = b"".join(lines_of(claim))
    for _, tokens in deployment["games"]:
        for token in tokens.values():
            assert token.encode() not in backup


def tampered(backup: list[bytes], number: int, change) -> list[bytes]:
    """`backup` with line `number` (from 1) changed by `change(parsed)`."""
    parsed = orjson.loads(backup[number - 1])
    change(parsed)
    return [*backup[: number - 1], orjson.dumps(parsed) + b"\n", *backup[number:]]


def game_line(backup: list[bytes], game_id: str) -> int:
    return next(n for n, line in enumerate(backup, start=1) if game_id.encode() in line[:40])


def later(entry):
    """An event's time a microsecond later."""
    entry[3] = (datetime.fromisoformat(entry[3]) + timedelta(microseconds=1)).isoformat()


@pytest.mark.parametrize(
    ("which", "change", "reason"),
    [
        (2, lambda game: later(game["entries"][-1]), "seal is not of its log"),
        (3, lambda game: game["entries"].pop(5), "event 6"),  # the rules refuse what follows
        (0, lambda game: game["entries"].pop(), "digest"),  # a running game's last move
        (1, lambda game: game.update(seal=None), "seal"),
    ],
)
def test_a_backup_with_a_changed_game_is_refused_whole_naming_its_line(
    claim, deployment, elsewhere, which, change, reason
):
    backup = lines_of(claim)
    game = deployment["games"][which][0]
    number = game_line(backup, game.id)
    changed = tampered(backup, number, change)
    with pytest.raises(BadBackup, match=reason) as refused:
        import_all(elsewhere, lambda: iter(changed))
    assert refused.value.line in (number, len(backup))  # the game's, or the end's digest
    assert elsewhere.players.ids() == [] and elsewhere.archive.count() == 0
    assert list(elsewhere.store.game_ids()) == []


def test_a_backup_cut_short_or_miscounted_is_refused(claim, deployment, elsewhere):
    backup = lines_of(claim)
    with pytest.raises(BadBackup, match="cut short"):
        import_all(elsewhere, lambda: iter(backup[:-2]))
    miscounted = tampered(backup, len(backup), lambda p: p["end"].update(games=4))
    with pytest.raises(BadBackup, match="counts"):
        import_all(elsewhere, lambda: iter(miscounted))
    assert elsewhere.players.ids() == []


def test_a_backup_is_not_imported_over_another_server_secret(claim, deployment, elsewhere):
    elsewhere.rematches.secret()  # this deployment made its own
    backup = lines_of(claim)
    with pytest.raises(BadBackup, match="server secret"):
        import_all(elsewhere, lambda: iter(backup))
