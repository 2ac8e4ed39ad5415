"""Over HTTP, every read of a game answers the same bytes and ETags once it is archived,
and what may still be done with an ended game (a rematch, a late move refused) is done
the same."""

from __future__ import annotations

import pytest

from service import games
from tests.api.factories import a_table
from tests.api.test_players import bearer, register


def answers(client, paths: list[tuple[str, dict]]) -> list:
    """Each GET's status, ETag and body bytes."""
    found = []
    for path, headers in paths:
        response = client.get(path, headers=headers)
        found.append((path, response.status_code, response.headers.get("ETag"), response.data))
    return found


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_read_of_an_archived_game_answers_the_same_bytes_and_etags(client, claim, players):
    ann = register(client, name="Ann")
    table = a_table(client, players)
    joined = client.post(
        "/me/seats",
        json={"game_id": table.game_id, "seat": 0, "token": table.tokens[0]},
        headers=bearer(ann["key"]),
    )
    assert joined.status_code in (200, 201), joined.json
    view = table.play()
    seats = [(f"/games/{table.game_id}", table.headers(seat)) for seat in table.tokens]
    steps = view["version"] - players - 1
    paths = [
        (f"/games/{table.game_id}", {}),
        *seats,
        (f"/games/{table.game_id}/legal", table.headers(0)),
        *[(f"/games/{table.game_id}/replay/{step}", {}) for step in (0, 1, steps // 2, steps)],
        (f"/games/{table.game_id}/replay/3", table.headers(1)),
        (f"/games/{table.game_id}/events", {}),
        (f"/games/{table.game_id}/events?after=5", {}),
        (f"/games/{table.game_id}/audit", {}),
        (f"/games/{table.game_id}/export", {}),
        ("/games?status=finished", {}),
        (f"/games?status=finished&players={players}", {}),
        ("/me/games", bearer(ann["key"])),
        ("/me/games?status=finished", bearer(ann["key"])),
    ]
    before = answers(client, paths)
    assert games.archive(claim, [table.game_id]).archived == (table.game_id,)
    assert answers(client, paths) == before


def test_a_rematch_of_an_archived_game_is_made_and_seen_in_its_view(client, claim):
    table = a_table(client)
    table.play()
    games.archive(claim, [table.game_id])
    asked = client.post(f"/games/{table.game_id}/rematch", headers=table.headers(0))
    assert asked.status_code == 201, asked.json
    view = client.get(f"/games/{table.game_id}")
    assert view.json["rematch"] == asked.json["game_id"]
    assert view.headers["ETag"].endswith('-m"')


def test_a_move_on_an_archived_game_is_refused_as_over(client, claim):
    table = a_table(client)
    view = table.play()
    games.archive(claim, [table.game_id])
    late = table.post_move(0, "take deck", view["version"])
    assert late.status_code == 409
    assert late.json["type"].endswith("/game-over")
