"""The archive of ended games, on SQLite and on PostgreSQL (skipped, saying so, where no
PostgreSQL answers): rows written once, read back, listed as the lobby and a player's
games list them."""

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from service.events import Archive, ArchivedGame, StoreUnavailable
from service.events import archive as archive_module


def a_row(game_id="g1", created_at=1000.0, **changes) -> ArchivedGame:
    row = ArchivedGame(
        id=game_id,
        status="finished",
        created_at=created_at,
        ended_at=created_at + 60,
        players=2,
        rated=False,
        public=True,
        result='{"reason":"completed","seat":null,"winners":[0]}',
        version=55,
        hash=bytes(range(32)),
        key_id="k1",
        signature=b"\x00\xff" * 32,
        log=b"\x01packed \x00 bytes",
        seats=(("ann", created_at + 1), ("bob", created_at + 2)),
    )
    return replace(row, **changes)


@pytest.fixture
def archive(archive_url):
    archive = Archive.open(archive_url)
    yield archive
    archive.close()


def without_seats(row):
    return replace(row, seats=())


def test_a_row_written_is_read_back_as_it_was(archive):
    row = a_row()
    archive.put([row])
    assert archive.get(["g1", "nothing"]) == {"g1": without_seats(row)}
    assert archive.versions(["g1", "nothing"]) == {"g1": 55}


def test_a_game_archived_already_is_kept_as_it_was(archive):
    archive.put([a_row()])
    archive.put([a_row(version=99, log=b"other"), a_row("g2")])
    assert archive.get(["g1"])["g1"] == without_seats(a_row())
    assert archive.count() == 2


def test_the_listing_is_newest_created_first_by_id_at_the_same_moment(archive):
    archive.put([a_row("a", 10.0), a_row("b", 30.0), a_row("c", 20.0), a_row("d", 30.0)])
    total, listed = archive.listing("finished", {}, 0, 10)
    assert total == 4
    assert [game.id for game in listed] == ["d", "b", "c", "a"]
    assert [game.created_at for game in listed] == [30.0, 30.0, 20.0, 10.0]
    assert [game.id for game in archive.listing("finished", {}, 1, 2)[1]] == ["b", "c"]


def test_the_listing_keeps_a_status_and_the_facets_asked_for(archive):
    archive.put(
        [
            a_row("a", players=3),
            a_row("b", status="aborted"),
            a_row("c", rated=True, public=False),
            a_row("d", rated=True),
        ]
    )
    assert archive.listing("aborted", {}, 0, 10)[0] == 1
    assert [g.id for g in archive.listing("finished", {"players": 2}, 0, 10)[1]] == ["d", "c"]
    assert archive.listing("finished", {"rated": 1, "public": 0}, 0, 10)[0] == 1
    assert archive.listing("finished", {"players": 4}, 0, 10) == (0, [])


def test_a_players_games_are_newest_joined_first_with_their_status(archive):
    archive.put([a_row("a", 10.0), a_row("b", 30.0, status="aborted", seats=(("ann", 5.0),))])
    assert archive.games_of("ann") == [("a", 11.0, "finished"), ("b", 5.0, "aborted")]
    assert archive.games_of("bob") == [("a", 12.0, "finished")]
    assert archive.games_of("cid") == []


def test_every_id_is_paged_in_order(archive):
    archive.put([a_row(f"g{n:03}") for n in range(25)])
    first = archive.ids(count=10)
    assert first == [f"g{n:03}" for n in range(10)]
    assert archive.ids(after=first[-1], count=100) == [f"g{n:03}" for n in range(10, 25)]


def test_many_ids_are_read_in_chunks(archive):
    archive.put([a_row(f"g{n:04}") for n in range(1200)])
    assert len(archive.versions([f"g{n:04}" for n in range(1300)])) == 1200


def test_a_sqlite_archive_is_made_by_the_first_write_only_and_kept_private(tmp_path):
    path = tmp_path / "data" / "archive.sqlite3"
    archive = Archive.open(f"sqlite:///{path}")
    assert archive.get(["g1"]) == {} and archive.count() == 0
    assert not path.exists()
    archive.put([a_row()])
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    archive.close()
    assert Archive.open(f"sqlite:///{path}").versions(["g1"]) == {"g1": 55}


def test_a_relative_sqlite_path_is_the_working_directorys(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Archive.open("sqlite:games/archive.sqlite3").put([a_row()])
    assert Path("games/archive.sqlite3").exists()


@pytest.mark.parametrize("url", ["mysql://x", "sqlite:", "http://host/archive"])
def test_an_archive_url_of_no_known_kind_is_refused(url):
    with pytest.raises(ValueError):
        Archive.open(url)


def test_a_postgresql_that_does_not_answer_is_unavailable(monkeypatch):
    monkeypatch.setattr(archive_module, "POOL_WAIT", 0.5)
    archive = Archive.open("postgresql://nobody@127.0.0.1:1/none?connect_timeout=1")
    with pytest.raises(StoreUnavailable):
        archive.get(["g1"])


def test_the_archive_reopens_in_a_forked_process(archive):
    archive.put([a_row()])
    pid = os.fork()
    if pid == 0:  # the child: its own connection, not the parent's
        os._exit(0 if archive.versions(["g1"]) == {"g1": 55} else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert archive.count() == 1
