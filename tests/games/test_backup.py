"""A whole deployment exported and imported into another: every game (running, ended in
Redis, archived), player and rating comes back the same; a backup that does not hold, or
that is not signed by a key the importing deployment trusts, is refused whole, naming
its line, with nothing written."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import replace
from datetime import datetime, timedelta

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service import games
from service.config import Config
from service.events import FINISHED, LobbyFilter, PublicKey, digest
from service.events.keys import parse_key
from service.games.backup import SIGNED, BadBackup, export_all, import_all
from tests.games.conftest import SIGNING_KEY
from tests.games.test_archiving import finished
from tests.games.test_ratings import a_rated_game, played_out, registered

OTHER_KEY = "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8="  # another deployment's seal key
THIRD_KEY = "QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8="  # a third one's


def a_deployment(redis_client, prefix, tmp_path, clock, signing_key):
    config = Config(
        prefix=prefix,
        rate_limit="",
        archive_url=f"sqlite:///{tmp_path / f'{prefix}.sqlite3'}",
        signing_key=signing_key,
    )
    return games.Claim.connect(config, client=redis_client, clock=clock, jobs=False)


@pytest.fixture
def deployments(redis_client, prefix, tmp_path, clock):
    """Other deployments on the test's Redis, by their signing keys (`deployments(key,
    name)`), deleted after the test."""
    made = []

    def make(signing_key: str, name: str = "b"):
        claim = a_deployment(redis_client, f"{prefix}-{name}", tmp_path, clock, signing_key)
        made.append(claim)
        return claim

    yield make
    for claim in made:
        claim.close()
    keys = list(redis_client.scan_iter(match=f"{prefix}-*"))
    if keys:
        redis_client.delete(*keys)


@pytest.fixture
def elsewhere(deployments):
    """Another deployment: its own prefix, archive and signing key."""
    return deployments(OTHER_KEY)


def trusting(claim):
    """The public key of `claim`'s signing key, for another deployment to trust."""
    return [claim.signing_key.public]


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
    done = import_all(elsewhere, lambda: iter(backup), trusting(claim))
    assert (done.players, done.games, done.archived) == (3, 5, 3)
    assert done.signer == claim.signing_key.public
    assert seen(elsewhere, deployment) == seen(claim, deployment)


def test_an_import_repeated_writes_nothing_twice(claim, deployment, elsewhere):
    backup = lines_of(claim)
    import_all(elsewhere, lambda: iter(backup), trusting(claim))
    again = import_all(elsewhere, lambda: iter(backup), trusting(claim))
    assert (again.players, again.games, again.archived) == (0, 0, 0)
    assert seen(elsewhere, deployment) == seen(claim, deployment)


def test_the_seals_of_imported_games_check_with_the_keys_the_new_server_lists(
    claim, deployment, elsewhere
):
    backup = lines_of(claim)
    import_all(elsewhere, lambda: iter(backup), trusting(claim))
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
        import_all(elsewhere, lambda: iter(changed), trusting(claim))
    assert refused.value.line in (number, len(backup))  # the game's, or the end's digest
    assert elsewhere.players.ids() == [] and elsewhere.archive.count() == 0
    assert list(elsewhere.store.game_ids()) == []


def test_a_backup_cut_short_or_miscounted_is_refused(claim, deployment, elsewhere):
    backup = lines_of(claim)
    with pytest.raises(BadBackup, match="cut short"):
        import_all(elsewhere, lambda: iter(backup[:-2]), trusting(claim))
    miscounted = tampered(backup, len(backup), lambda p: p["end"].update(games=4))
    with pytest.raises(BadBackup, match="counts 3 players and 4 games"):
        import_all(elsewhere, lambda: iter(miscounted), trusting(claim))
    assert elsewhere.players.ids() == []


def test_a_backup_is_not_imported_over_another_server_secret(claim, deployment, elsewhere):
    elsewhere.rematches.secret()  # this deployment made its own
    backup = lines_of(claim)
    with pytest.raises(BadBackup, match="server secret"):
        import_all(elsewhere, lambda: iter(backup), trusting(claim))


# --- trust: a backup is the operator's to trust, never its own -----------------------


def signed_by(key: Ed25519PrivateKey, body: list[bytes]) -> list[bytes]:
    """`body` (the lines before the end) ended and signed with `key`, as an exporting
    server holding it would."""
    digest = hashlib.sha256(b"".join(body))
    counts = {"players": 0, "games": 0}
    for line in body[1:]:
        counts["players" if b'"player"' in line[:12] else "games"] += 1
    end = {
        "end": {**counts, "sha256": digest.hexdigest()},
        "key_id": PublicKey.of(key.public_key()).key_id,
        "signature": base64.b64encode(key.sign(SIGNED + digest.digest())).decode(),
    }
    return [*body, orjson.dumps(end) + b"\n"]


def first_sealed(backup: list[bytes]) -> int:
    """The line of the first ended game of `backup`: the first one with a seal."""
    return next(n for n, line in enumerate(backup, 1) if b'"seal":{' in line)


def what_is_kept(claim) -> dict:
    """Everything an import may write, as the deployment `claim` shows it."""
    return {
        "players": {player_id: claim.players.dump(player_id) for player_id in claim.players.ids()},
        "games": sorted(claim.store.game_ids()),
        "archived": claim.archive.count(),
        "keys": claim.seals.known(),  # what /.well-known/claim-keys lists beside its own
        "listed": games.public_keys(claim),
        "secret": claim.rematches.secret(),
    }


def test_a_backup_of_two_lines_signed_by_a_key_of_ones_own_is_refused_writing_nothing(
    claim, deployment
):
    """What fails 1: the file's key was trusted for being in the file, and then listed
    among the server's keys, with which a forged export of its games verified."""
    forger = Ed25519PrivateKey.generate()
    header = {
        "claim_backup": 1,
        "exported_at": "2026-01-01T00:00:00+00:00",
        "server_secret": "00" * 32,
        "keys": [PublicKey.of(forger.public_key()).listed()],
    }
    forged = signed_by(forger, [orjson.dumps(header) + b"\n"])
    before = what_is_kept(claim)
    with pytest.raises(BadBackup, match="neither this deployment's own nor one named by --trust"):
        import_all(claim, lambda: iter(forged))
    assert what_is_kept(claim) == before
    forger_id = PublicKey.of(forger.public_key()).key_id
    assert forger_id not in {key.key_id for key in games.public_keys(claim)}


def test_a_real_backup_changed_and_signed_again_by_another_key_is_refused_writing_nothing(
    claim, deployment, elsewhere
):
    """What fails 1: a player's key digest replaced, so that the forger's key opens
    their account, and the file signed again with the forger's key."""
    backup = lines_of(claim)
    ann = next(n for n, line in enumerate(backup, 1) if b'"Ann"' in line)

    def replace_the_key(parsed):
        parsed["fields"]["key_hash"] = digest("the forger's key")

    forger = Ed25519PrivateKey.generate()
    changed = tampered(backup, ann, replace_the_key)[:-1]
    changed = tampered(
        changed, 1, lambda p: p["keys"].append(PublicKey.of(forger.public_key()).listed())
    )
    forged = signed_by(forger, changed)
    for trusted in ([], trusting(claim)):  # a fresh deployment, trusting the real one or not
        before = what_is_kept(elsewhere)
        with pytest.raises(BadBackup) as refused:
            import_all(elsewhere, lambda: iter(forged), trusted)
        assert refused.value.line == (len(forged) if trusted else first_sealed(forged))
        assert what_is_kept(elsewhere) == before
    assert "neither this deployment's own" in str(refused.value)
    assert elsewhere.players.ids() == []


def test_a_backup_signed_by_this_deployments_own_key_imports_without_trust(
    claim, deployment, deployments
):
    """A deployment restored with its signing key (CLAIM_SIGNING_KEY, or the data
    directory's key file) trusts its own backups."""
    restored = deployments(SIGNING_KEY, "restored")
    done = import_all(restored, lambda: iter(lines_of(claim)))
    assert (done.players, done.games, done.signer) == (3, 5, claim.signing_key.public)
    assert seen(restored, deployment) == seen(claim, deployment)


def test_an_imported_backups_keys_join_the_seal_keys_only_when_trusted_and_sealing_its_games(
    claim, deployment, elsewhere
):
    """The exporting deployment listed a key that sealed none of its games (imported
    there, say): it does not become a key of this deployment."""
    stranger = PublicKey.of(parse_key(THIRD_KEY).public_key())
    claim.seals.know(stranger)
    backup = lines_of(claim)
    assert stranger.listed() in orjson.loads(backup[0])["keys"]
    import_all(elsewhere, lambda: iter(backup), trusting(claim))
    listed = games.public_keys(elsewhere)
    assert listed == (elsewhere.signing_key.public, claim.signing_key.public)


def test_a_game_sealed_by_a_key_not_trusted_refuses_the_whole_backup(
    claim, deployment, elsewhere, redis_client, clock
):
    """The exporting deployment changed its key since it sealed its games: the backup is
    signed by the new key, the games by the old; the operator trusts both, or the
    import refuses the whole backup (as any other line that does not hold)."""
    config = replace(claim.config, signing_key=THIRD_KEY)
    rotated = games.Claim.connect(config, client=redis_client, clock=clock, jobs=False)
    backup = lines_of(rotated)
    rotated.close()
    new, old = trusting(rotated), trusting(claim)
    with pytest.raises(BadBackup, match=f"sealed by key '{old[0].key_id}', which this") as refused:
        import_all(elsewhere, lambda: iter(backup), new)
    assert refused.value.line == first_sealed(backup)
    assert elsewhere.players.ids() == [] and elsewhere.seals.known() == []
    done = import_all(elsewhere, lambda: iter(backup), new + old)
    assert done.signer == new[0]
    assert games.public_keys(elsewhere) == (elsewhere.signing_key.public, old[0])
