"""The `claim` command line: verify, simulate, rebuild, archive, export and import, and
verify-export."""

import contextlib
import json
import os
import stat
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson
import pytest

from service import cli, games
from service.cli import main
from service.config import Config
from tests.games.conftest import SIGNING_KEY
from tests.games.factories import a_game, joined, moved
from tests.games.test_archiving import changed_row

from .domain.test_conformance import GAMES


def write_games(path, games):
    path.write_text("".join(json.dumps(game) + "\n" for game in games))
    return str(path)


def test_verify_passes_recorded_games(tmp_path, capsys):
    assert main(["verify", write_games(tmp_path / "g.jsonl", GAMES[:3])]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "3 passed, 0 failed"


def test_verify_names_a_failing_game_with_its_first_differing_step(tmp_path, capsys):
    altered = json.loads(json.dumps(GAMES[1]))
    altered["steps"][4]["seat"] = 1 - altered["steps"][4]["seat"]
    assert main(["verify", write_games(tmp_path / "g.jsonl", [GAMES[0], altered])]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{altered['id']}: step 4:")
    assert out[-1] == "1 passed, 1 failed"


def test_verify_of_a_missing_file_is_an_error(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "none.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def summary(capsys, *args):
    assert main(["simulate", *args]) == 0
    return capsys.readouterr().out


def test_simulate_prints_wins_draws_factions_and_speed(capsys):
    out = summary(capsys, "--players", "3", "--games", "20", "--seed", "7")
    wins = [int(line.split()[3]) for line in out.splitlines() if line.startswith("  seat")]
    draws = int(next(line for line in out.splitlines() if "draws" in line).split()[1])
    assert len(wins) == 3 and sum(wins) + draws == 20
    assert "factions won" in out and "games/s" in out


def test_simulate_with_the_same_seed_gives_the_same_games(capsys):
    first = summary(capsys, "--games", "10", "--seed", "3").splitlines()[:-1]
    again = summary(capsys, "--games", "10", "--seed", "3").splitlines()[:-1]
    assert first == again


@pytest.mark.parametrize("args", [["--players", "5"], ["--factions", "GO,GO,UN,DO,DW"]])
def test_simulate_refuses_bad_arguments_with_a_message(capsys, args):
    with pytest.raises(SystemExit) as exit:
        main(["simulate", *args])
    assert exit.value.code == 2 and "error" in capsys.readouterr().err


def test_the_console_script_runs(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "service.cli",
            "verify",
            write_games(tmp_path / "g.jsonl", GAMES[:1]),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip().endswith("1 passed, 0 failed")


def test_rebuild_writes_the_lobby_the_players_games_and_their_addresses_again(
    redis_client, redis_url, prefix, sqlite_archive_url, monkeypatch, capsys
):
    monkeypatch.setenv("CLAIM_ARCHIVE_URL", sqlite_archive_url)
    claim = games.Claim.connect(Config(prefix=prefix), client=redis_client, jobs=False)
    ann, key = games.register(claim, "Ann", email="ann@example.org")
    game = a_game(claim, kinds=("human", "random"))
    joined(claim, game, keys={0: key})
    redis_client.delete(*redis_client.scan_iter(match=f"{prefix}:{{lobby:*}}:*"))
    redis_client.delete(f"{prefix}:player:{ann.id}:games")
    redis_client.hset(f"{prefix}:{{lobby}}:games", "old", "{}")  # of an older version
    redis_client.delete(*redis_client.scan_iter(match=f"{prefix}:player-email:*"))
    assert claim.player_games.of(ann.id) == [] and claim.lobby.page("running").total == 0
    assert claim.players.by_email("ann@example.org") == []
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("CLAIM_PREFIX", prefix)
    assert main(["rebuild"]) == 0
    told = capsys.readouterr().err
    assert "1 game rebuilt" in told and "1 email address indexed" in told
    assert claim.player_games.of(ann.id) == [game.id]
    assert claim.players.by_email("ann@example.org") == [ann]
    assert [entry.game_id for entry in claim.lobby.page("running").games] == [game.id]
    only = games.LobbyFilter(players=2, public=False)
    assert claim.lobby.page("running", only=only).total == 1  # its filters' listings too
    assert not redis_client.exists(f"{prefix}:{{lobby}}:games")  # deleted


@pytest.mark.parametrize(
    ("missing", "command"),
    [("CLAIM_QUEUE_URL", command) for command in ("serve", "worker", "rebuild")]
    + [("CLAIM_ARCHIVE_URL", command) for command in ("serve", "worker", "rebuild", "archive")],
)
def test_on_a_cluster_the_service_does_not_start_without_a_queue_redis_and_an_archive(
    missing, command, cluster_url, single_redis_url, monkeypatch, capsys
):
    monkeypatch.setenv("REDIS_URL", cluster_url)
    monkeypatch.setenv("CLAIM_QUEUE_URL", single_redis_url)
    monkeypatch.setenv("CLAIM_ARCHIVE_URL", "sqlite:///unused.sqlite3")
    monkeypatch.delenv(missing)
    with pytest.raises(SystemExit) as stopped:
        main([command])
    assert stopped.value.code == 2
    assert f"{missing} is required" in capsys.readouterr().err


def test_verify_export_checks_a_finished_game_with_the_keys_of_its_server(
    redis_client, prefix, tmp_path, capsys
):
    # no key given: the server makes one in its data directory, its owner's only
    config = Config(prefix=prefix, data_dir=tmp_path / "data")
    claim = games.Claim.connect(config, client=redis_client, jobs=False)
    game = a_game(claim, kinds=("human", "human"))
    ended = moved(claim, game.id, joined(claim, game))
    key_file = tmp_path / "data" / "signing-key.pem"
    assert key_file.stat().st_mode & 0o077 == 0
    export = tmp_path / "game.jsonl"
    export.write_bytes(b"\n".join(games.export(claim, game.id)) + b"\n")
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": [key.listed() for key in games.public_keys(claim)]}))
    assert main(["verify-export", str(export), "--key", str(keys)]) == 0
    key_id = claim.signing_key.public.key_id
    assert capsys.readouterr().out == (
        f"ok: game {game.id}: {ended.version} events, chain, seal, deck and rules hold;"
        f" sealed by key {key_id}, as {keys} lists it\n"
    )
    lines = export.read_bytes().splitlines()
    lines[3] = lines[3].replace(b'"at":"2', b'"at":"1', 1)  # one byte of one event: its date
    export.write_bytes(b"\n".join(lines) + b"\n")
    assert main(["verify-export", str(export), "--key", str(keys)]) == 1
    assert capsys.readouterr().out.startswith(f"{export}:4: ")
    assert main(["verify-export", str(tmp_path / "missing.jsonl"), "--key", str(keys)]) == 2
    assert "cannot read" in capsys.readouterr().err


def a_deployment(monkeypatch, redis_url, prefix, archive):
    """The environment of a deployment on the test's Redis: its prefix and archive."""
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("CLAIM_PREFIX", prefix)
    monkeypatch.setenv("CLAIM_ARCHIVE_URL", archive)
    monkeypatch.setenv("CLAIM_SIGNING_KEY", SIGNING_KEY)
    return games.Claim.connect(Config.from_env(), jobs=False)


def test_archive_moves_the_games_ended_long_enough_ago(
    redis_url, prefix, sqlite_archive_url, monkeypatch, capsys
):
    claim = a_deployment(monkeypatch, redis_url, prefix, sqlite_archive_url)
    ended = a_game(claim, kinds=("human", "human"))
    ended = moved(claim, ended.id, joined(claim, ended))
    running = a_game(claim, kinds=("human", "human"))
    moved(claim, running.id, joined(claim, running), moves=2)
    assert main(["archive"]) == 0  # not a day ago
    assert "0 games archived" in capsys.readouterr().err
    assert main(["archive", "--older-than", "0"]) == 0
    assert "1 game archived" in capsys.readouterr().err
    assert claim.archive.versions([ended.id, running.id]) == {ended.id: ended.version}
    assert main(["archive", "--check"]) == 0
    assert "1 archived game checked, 0 wrong" in capsys.readouterr().err
    changed_row(claim, ended.id, version=ended.version - 1)
    assert main(["archive", "--check"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith(f"{ended.id}: its log ends at version {ended.version}")
    assert "1 archived game checked, 1 wrong" in err
    claim.close()


def test_a_backup_is_one_command_and_its_import_another(
    redis_client, redis_url, prefix, tmp_path, monkeypatch, capsysbinary
):
    claim = a_deployment(monkeypatch, redis_url, prefix, f"sqlite:///{tmp_path / 'a.sqlite3'}")
    ann, key = games.register(claim, "Ann")
    game = a_game(claim, kinds=("human", "human"))
    ended = moved(claim, game.id, joined(claim, game, keys={0: key}))
    assert main(["export", "--all"]) == 0
    backup = tmp_path / "backup.jsonl"
    backup.write_bytes(capsysbinary.readouterr().out)
    elsewhere = a_deployment(monkeypatch, redis_url, f"{prefix}b", f"sqlite:///{tmp_path / 'b'}")
    assert main(["import", str(backup)]) == 0
    assert "1 players and 1 games imported" in capsysbinary.readouterr().err.decode()
    assert elsewhere.store.load(game.id).head == ended.head
    assert elsewhere.players.holder(key).player == ann
    lines = backup.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'","20', b'","19', 1)  # one event's year
    backup.write_bytes(b"".join(lines))
    assert main(["import", str(backup)]) == 1
    assert f"{backup}:3:" in capsysbinary.readouterr().err.decode()
    assert main(["import", str(tmp_path / "none")]) == 2
    told = capsysbinary.readouterr().err.decode()
    assert "cannot read" in told and "Traceback" not in told
    for deployment in (claim, elsewhere):
        deployment.close()
    redis_client.delete(*redis_client.scan_iter(match=f"{prefix}b:*"))


def test_a_stopped_deployments_data_directory_is_exported_and_imported_into(
    tmp_path, monkeypatch, capsysbinary
):
    """Without REDIS_URL and with no `claim serve` running there, the command starts the
    data directory's embedded Redis for itself, and stops it after."""
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("CLAIM_ARCHIVE_URL", raising=False)
    monkeypatch.setenv("CLAIM_SIGNING_KEY", SIGNING_KEY)
    monkeypatch.setenv("CLAIM_DATA_DIR", str(tmp_path / "empty"))
    assert main(["export", "--all"]) == 0
    backup = tmp_path / "backup.jsonl"
    backup.write_bytes(capsysbinary.readouterr().out)
    monkeypatch.setenv("CLAIM_DATA_DIR", str(tmp_path / "new"))
    assert main(["import", str(backup)]) == 0
    assert "0 players and 0 games imported" in capsysbinary.readouterr().err.decode()
    assert not (tmp_path / "new" / "redis.sock").exists()  # stopped after


def test_a_backup_to_a_file_is_its_owners_only_whatever_the_umask_and_names_its_key(
    redis_url, prefix, tmp_path, monkeypatch, capsys
):
    claim = a_deployment(monkeypatch, redis_url, prefix, f"sqlite:///{tmp_path / 'a.sqlite3'}")
    games.register(claim, "Ann", email="ann@example.org")  # secrets a backup holds
    backup = tmp_path / "backup.jsonl"
    backup.write_text("older")
    backup.chmod(0o644)
    umask = os.umask(0o022)
    try:
        assert main(["export", "--all", "-o", str(backup)]) == 0
        fresh = tmp_path / "fresh.jsonl"
        assert main(["export", "--all", "--output", str(fresh)]) == 0
    finally:
        os.umask(umask)
    for written in (backup, fresh):
        assert stat.S_IMODE(written.stat().st_mode) == 0o600
        assert b"ann@example.org" in written.read_bytes()
    told = capsys.readouterr().err
    assert f"backup signed with key {claim.signing_key.public.key_id}" in told
    claim.close()


def test_a_backup_on_standard_output_made_a_file_is_its_owners_only(
    redis_url, prefix, tmp_path, monkeypatch
):
    """`claim export --all > backup.jsonl`: the shell made the file 0644."""
    claim = a_deployment(monkeypatch, redis_url, prefix, f"sqlite:///{tmp_path / 'a.sqlite3'}")
    backup = tmp_path / "backup.jsonl"
    umask = os.umask(0o022)
    try:
        with open(backup, "w") as redirected:
            monkeypatch.setattr(sys, "stdout", redirected)
            assert stat.S_IMODE(backup.stat().st_mode) == 0o644
            assert main(["export", "--all"]) == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert b'"end"' in backup.read_bytes().splitlines()[-1]
    claim.close()


OTHER_KEY = "ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8="  # another deployment's


def test_a_backup_of_another_deployment_is_imported_only_with_its_key_trusted(
    redis_client, redis_url, prefix, tmp_path, monkeypatch, capsysbinary
):
    claim = a_deployment(monkeypatch, redis_url, prefix, f"sqlite:///{tmp_path / 'a.sqlite3'}")
    game = a_game(claim, kinds=("human", "human"))
    moved(claim, game.id, joined(claim, game))
    backup = tmp_path / "backup.jsonl"
    assert main(["export", "--all", "-o", str(backup)]) == 0
    capsysbinary.readouterr()
    monkeypatch.setenv("CLAIM_SIGNING_KEY", OTHER_KEY)
    elsewhere = a_deployment(monkeypatch, redis_url, f"{prefix}b", f"sqlite:///{tmp_path / 'b'}")
    monkeypatch.setenv("CLAIM_SIGNING_KEY", OTHER_KEY)
    key_id = claim.signing_key.public.key_id
    assert main(["import", str(backup)]) == 1
    told = capsysbinary.readouterr().err.decode()
    assert f"sealed by key '{key_id}', which this deployment does not trust" in told
    assert "nothing imported" in told and elsewhere.store.versions([game.id])[game.id] == 0
    assert main(["import", "--trust", key_id, str(backup)]) == 2  # not one of its keys yet
    assert "neither a file nor the id of a key" in capsysbinary.readouterr().err.decode()
    key_file = tmp_path / "a-key.json"
    key_file.write_bytes(orjson.dumps(claim.signing_key.public.listed()))
    assert main(["import", "--trust", str(key_file), str(backup)]) == 0
    told = capsysbinary.readouterr().err.decode()
    assert f"signed by key {key_id} (trusted by --trust {key_file})" in told
    assert "0 players and 1 games imported" in told
    assert main(["import", "--trust", key_id, str(backup)]) == 0  # one of its keys now
    assert f"signed by key {key_id} (trusted by --trust {key_id})" in (
        capsysbinary.readouterr().err.decode()
    )
    for deployment in (claim, elsewhere):
        deployment.close()
    redis_client.delete(*redis_client.scan_iter(match=f"{prefix}b:*"))


def test_an_import_names_a_line_too_long_without_reading_it_whole(
    redis_url, prefix, tmp_path, monkeypatch, capsysbinary
):
    claim = a_deployment(monkeypatch, redis_url, prefix, f"sqlite:///{tmp_path / 'a.sqlite3'}")
    backup = tmp_path / "backup.jsonl"
    with open(backup, "wb") as file:
        header = {"claim_backup": 1, "exported_at": "", "server_secret": "", "keys": []}
        file.write(orjson.dumps(header) + b"\n")
        file.truncate(1 << 30)  # a second line of a GiB of zeros, on no disk
    assert main(["import", str(backup)]) == 1
    told = capsysbinary.readouterr().err.decode()
    assert f"{backup}:2: longer than 16 MiB; nothing imported" in told
    assert "Traceback" not in told and claim.players.ids() == []
    claim.close()


class KeysSite(ThreadingHTTPServer):
    """A server of keys on a free loopback port, answering as `behave(handler)` does;
    `asked` counts its requests."""

    daemon_threads = True

    def __init__(self, behave):
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                site.asked += 1
                behave(self)

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.asked = 0
        self.stopping = threading.Event()
        self.url = f"http://127.0.0.1:{self.server_address[1]}/.well-known/claim-keys"


@contextlib.contextmanager
def keys_site(behave):
    site = KeysSite(behave)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield site
    finally:
        site.stopping.set()
        site.shutdown()
        site.server_close()


def answering(body: bytes, status: int = 200, **headers):
    def behave(handler):
        handler.send_response(status)
        for name, value in {"Content-Length": str(len(body)), **headers}.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)

    return behave


def dripping(handler):
    """Headers, then a byte at a time, until the site stops."""
    handler.send_response(200)
    handler.send_header("Content-Length", "100000")
    handler.end_headers()
    while not handler.server.stopping.wait(0.05):
        handler.wfile.write(b" ")
        handler.wfile.flush()


def endless(handler):
    """A body that never ends, as fast as it is read."""
    handler.send_response(200)
    handler.end_headers()
    with contextlib.suppress(OSError):
        while not handler.server.stopping.is_set():
            handler.wfile.write(b" " * 65536)


@pytest.fixture
def an_export(redis_client, prefix, tmp_path):
    """A finished game's export in a file, and the listing of its server's keys."""
    claim = games.Claim.connect(
        Config(prefix=prefix, signing_key=SIGNING_KEY), client=redis_client, jobs=False
    )
    game = a_game(claim, kinds=("human", "human"))
    moved(claim, game.id, joined(claim, game))
    export = tmp_path / "game.jsonl"
    export.write_bytes(b"\n".join(games.export(claim, game.id)) + b"\n")
    listing = orjson.dumps({"keys": [key.listed() for key in games.public_keys(claim)]})
    yield export, listing, claim.signing_key.public.key_id
    claim.close()


def test_verify_export_names_the_key_and_the_address_it_came_from(an_export, capsys):
    export, listing, key_id = an_export
    with keys_site(answering(listing)) as site:
        assert main(["verify-export", str(export), "--key", site.url]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: game ") and out.endswith(
        f"; sealed by key {key_id}, as {site.url} lists it\n"
    )


def test_verify_export_follows_no_redirect(an_export, capsys):
    export, listing, _ = an_export
    with keys_site(answering(listing)) as elsewhere:
        with keys_site(answering(b"", 302, Location=elsewhere.url)) as site:
            assert main(["verify-export", str(export), "--key", site.url]) == 2
        assert elsewhere.asked == 0
    told = capsys.readouterr().err
    assert told == (
        f"cannot read the keys of {site.url}: it answered 302 Found, a redirect to"
        f" {elsewhere.url}: not followed\n"
    )


def test_verify_export_gives_a_server_a_deadline_for_its_whole_answer(
    an_export, capsys, monkeypatch
):
    """A byte a second (here one every 50 ms, the deadline 1 s): each read is quick,
    the answer never whole."""
    monkeypatch.setattr(cli, "KEYS_DEADLINE", 1.0)
    export, _, _ = an_export
    with keys_site(dripping) as site:
        assert main(["verify-export", str(export), "--key", site.url]) == 2
    assert capsys.readouterr().err == (
        f"cannot read the keys of {site.url}: no whole answer within 1 s\n"
    )


def test_verify_export_reads_a_servers_answer_up_to_a_cap(an_export, capsys):
    export, _, _ = an_export
    with keys_site(endless) as site:
        assert main(["verify-export", str(export), "--key", site.url]) == 2
    assert capsys.readouterr().err == (
        f"cannot read the keys of {site.url}: it goes on past 1 MiB: not a listing of keys\n"
    )


def test_verify_export_says_what_a_server_answered_instead_of_keys(an_export, capsys):
    export, _, _ = an_export
    with keys_site(answering(b"nothing here", 404)) as site:
        assert main(["verify-export", str(export), "--key", site.url]) == 2
    assert capsys.readouterr().err == (
        f"cannot read the keys of {site.url}: it answered 404 Not Found\n"
    )


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (lambda path: path.symlink_to("/dev/zero"), "1: longer than 64 KiB"),
        (lambda path: path.write_bytes(b"x" * (1 << 20)), "1: longer than 64 KiB"),
        (
            lambda path: path.write_bytes(b"{}\n" * (2 << 20)),
            "1398102: the file goes on past 4 MiB",
        ),
    ],
    ids=["/dev/zero", "a line of a MiB", "a file of 6 MiB"],
)
def test_verify_export_reads_a_file_and_its_lines_up_to_a_cap(
    an_export, tmp_path, capsys, content, reason
):
    _, listing, _ = an_export
    keys = tmp_path / "keys.json"
    keys.write_bytes(listing)
    export = tmp_path / "hostile.jsonl"
    content(export)
    assert main(["verify-export", str(export), "--key", str(keys)]) == 1
    assert capsys.readouterr().out == f"{export}:{reason}\n"
