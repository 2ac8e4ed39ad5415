"""Live streams and long-polls refused to another site's pages without a token
(`service/api/sites.py`): no page of another site can use up its visitors' places."""

from dataclasses import replace

import pytest

from service.api import create_app
from tests.api.factories import a_table
from tests.api.test_games import problem

ANOTHER_SITE = [
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},  # another port of this host, a sibling subdomain
    {"Origin": "https://elsewhere.example"},
    {"Origin": "http://localhost:8001"},  # this host, another port
    {"Origin": "null"},  # a sandboxed frame, a page from a file
]
THIS_SITE = [
    {"Sec-Fetch-Site": "same-origin"},
    {"Sec-Fetch-Site": "none"},  # the person opened the address
    {"Origin": "http://localhost"},  # the test client's host
    {"Origin": "https://claim.example"},  # the server's public URL
    {},  # not a browser
]


@pytest.fixture
def client(claim):
    """A client of the API whose public URL is https://claim.example/."""
    config = replace(claim.config, public_url="https://claim.example/")
    return create_app(claim=replace(claim, config=config)).test_client()


def _statuses(client, game_id: str, headers: dict, changes: dict | None = None) -> list[int]:
    """The statuses of a live stream, a long-poll and a stream of changes of `game_id`
    sent with `headers` (`changes`: those of the last, if others)."""
    sent = {
        f"/games/{game_id}/stream": headers,
        f"/games/{game_id}?after=3&wait=0.01": headers,
        f"/changes?games={game_id}": headers if changes is None else changes,
    }
    statuses = []
    for path, path_headers in sent.items():
        response = client.get(path, headers=path_headers, buffered=False)
        statuses.append(response.status_code)
        if response.status_code != 200:
            problem(response, "cross-site-watch", 403)
        response.close()
    return statuses


@pytest.mark.parametrize("headers", ANOTHER_SITE)
def test_another_sites_page_is_refused_live_streams_and_long_polls(client, headers):
    table = a_table(client)
    assert _statuses(client, table.game_id, headers) == [403, 403, 403]


@pytest.mark.parametrize("headers", THIS_SITE)
def test_this_sites_pages_and_clients_that_are_not_browsers_are_not(client, headers):
    table = a_table(client)
    assert _statuses(client, table.game_id, headers) == [200, 200, 200]


def test_another_sites_request_with_a_token_is_not_refused(client):
    table = a_table(client)
    key = client.post("/players", json={"name": "Ann"}).json["key"]
    cross_site = {"Sec-Fetch-Site": "cross-site"}
    seat = {**cross_site, **table.headers(0)}
    player = {**cross_site, "Authorization": f"Bearer {key}"}
    assert _statuses(client, table.game_id, seat, player) == [200, 200, 200]


def test_a_token_that_opens_nothing_is_unauthorized_not_taken_for_none(client):
    table = a_table(client)
    headers = {"Sec-Fetch-Site": "cross-site", "Authorization": "Bearer made-up"}
    for path in (f"/games/{table.game_id}/stream", f"/changes?games={table.game_id}"):
        problem(client.get(path, headers=headers), "unauthorized", 401)


def test_a_refused_request_holds_no_place_and_a_plain_look_is_not_refused(client, claim):
    table = a_table(client)
    _statuses(client, table.game_id, {"Sec-Fetch-Site": "cross-site"})
    assert claim.watch_leases.held("127.0.0.1") == 0
    look = client.get(f"/games/{table.game_id}", headers={"Sec-Fetch-Site": "cross-site"})
    assert look.status_code == 200
