"""Every query parameter and header the API reads is in the contract: each operation is
called once with a request class that records what the code reads of the query string
and the headers, and each name read must be a parameter of that operation in
`openapi.yaml` (or a header of HTTP itself, or the bearer credential of the security
scheme)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from flask import Request, g, request
from werkzeug.datastructures import EnvironHeaders, ImmutableMultiDict
from werkzeug.utils import cached_property

from service.api import create_app
from tests.api.factories import a_table, created

CONTRACT = Path(__file__).resolve().parents[2] / "openapi.yaml"
# Headers of HTTP and WSGI themselves, read by Flask and werkzeug, the bearer token (the
# contract's security scheme), and those a browser sets itself, which no page can (read
# to refuse another site's watches: the stream endpoints' 403 says so).
OF_HTTP = {"authorization", "content-type", "content-length", "transfer-encoding", "host"}
OF_HTTP |= {"origin", "sec-fetch-site"}


def _noting(kind: str, name) -> None:
    if isinstance(name, str):
        g.setdefault("read", set()).add((kind, name.lower() if kind == "header" else name))


class _Headers(EnvironHeaders):
    def __getitem__(self, key, *args, **kwargs):
        _noting("header", key)
        return super().__getitem__(key, *args, **kwargs)

    def get(self, key, *args, **kwargs):
        _noting("header", key)
        return super().get(key, *args, **kwargs)

    def __contains__(self, key):
        _noting("header", key)
        return super().__contains__(key)


class _Query(ImmutableMultiDict):
    def __getitem__(self, key):
        _noting("query", key)
        return super().__getitem__(key)

    def get(self, key, *args, **kwargs):
        _noting("query", key)
        return super().get(key, *args, **kwargs)

    def getlist(self, key, *args, **kwargs):
        _noting("query", key)
        return super().getlist(key, *args, **kwargs)

    def __contains__(self, key):
        _noting("query", key)
        return super().__contains__(key)


class Noting(Request):
    """A request that notes which headers and query parameters are read."""

    def __init__(self, environ, *args, **kwargs):
        super().__init__(environ, *args, **kwargs)
        self.headers = _Headers(environ)

    @cached_property
    def args(self):
        return _Query(super().args)


@pytest.fixture
def reads(claim):
    """Each operation called, as (method, path of the contract) -> the names it read."""
    app = create_app(claim=claim)
    app.request_class = Noting
    reads: dict[tuple[str, str], set] = {}

    @app.after_request
    def note(response):
        if request.url_rule is not None:
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", request.url_rule.rule)
            reads.setdefault((request.method, path), set()).update(g.get("read", ()))
        return response

    client = app.test_client()
    table = a_table(client)
    game, key = table.game_id, client.post("/players", json={"name": "Ann"}).json["key"]
    me = {"Authorization": f"Bearer {key}"}
    seat = table.view()["table"]["to_act"]
    move = table.view(seat)["you"]["legal"][0]
    invite = created(client)
    calls = [
        ("GET", "/games?status=open&players=2&rated=false&public=false&offset=0&limit=5", {}),
        ("POST", "/games", {}, {"players": 2}),
        ("GET", f"/games/{game}?after=9&wait=0.01", {**table.headers(0), "If-None-Match": '"3"'}),
        ("GET", f"/games/{game}/legal", table.headers(seat), None),
        ("GET", f"/games/{game}/events?after=1", {}, None),
        ("GET", f"/games/{game}/replay/0", table.headers(0), None),
        ("GET", f"/games/{game}/stream?max_seconds=1", {"Last-Event-ID": "3"}, None),
        ("GET", f"/changes?games={game}&lobby=true&max_seconds=1", {}, None),
        ("POST", f"/games/{game}/moves", table.headers(seat, "k"), move),
        ("POST", f"/games/{game}/seats/0/return", table.headers(0), None),
        ("POST", f"/games/{game}/resign", table.headers(0), None),
        ("POST", f"/games/{game}/rematch", table.headers(0), None),
        ("GET", f"/games/{game}/audit", {}, None),
        ("GET", f"/games/{game}/export", {}, None),
        ("POST", f"/games/{game}/analysis", {}, None),
        ("GET", f"/games/{game}/analysis", {}, None),
        ("GET", "/.well-known/claim-keys", {}, None),
        (
            "POST",
            f"/games/{invite['game_id']}/seats/0",
            me,
            {"invite": invite["invites"][0]["invite"]},
        ),
        ("GET", "/me", me, None),
        ("PATCH", "/me", me, {"name": "Ann B"}),
        ("GET", "/me/games?status=open&turn=mine&offset=0&limit=5", me, None),
        ("GET", "/me/deliveries", me, None),
        ("POST", "/me/devices", me, {"name": "phone"}),
        ("GET", "/me/devices", me, None),
        ("DELETE", "/me/devices/nonesuch", me, None),
        ("GET", "/me/break", me, None),
        ("POST", "/me/break", me, {"days": 1}),
        ("DELETE", "/me/break", me, None),
        ("GET", "/push/key", {}, None),
        ("POST", "/me/push-subscriptions", me, {"endpoint": "https://fcm.googleapis.com/x"}),
        ("GET", "/me/push-subscriptions", me, None),
        ("DELETE", "/me/push-subscriptions/nonesuch", me, None),
        ("POST", "/me/seats", me, {"game_id": game, "seat": 1, "token": table.tokens[1]}),
        ("POST", "/challenges", me, {"to": "ai:random", "factions": "claim"}),
        ("GET", "/challenges/nonesuch", me, None),
        ("POST", "/challenges/nonesuch/accept", me, None),
        ("POST", "/challenges/nonesuch/decline", me, None),
        ("POST", "/challenges/nonesuch/cancel", me, None),
        ("GET", "/me/challenges", me, None),
        ("GET", "/me/stream?max_seconds=1", {**me, "Last-Event-ID": "1"}, None),
        ("GET", "/sign-in/options", {}, None),
        ("POST", "/sign-in", {}, {"email": "ann@example.org"}),
        ("POST", "/sign-in/code", {}, {"code": "not-a-code"}),
        ("POST", "/me/sign-in-code", me, None),
        ("POST", "/me/email-confirmation", me, None),
        ("POST", "/email-confirmation", {}, {"code": "not-a-code"}),
        ("POST", "/me/key", me, None),
        ("GET", "/ratings?players=2&bots=only&offset=0&limit=5", {}, None),
        ("GET", "/players/ai:greedy", {}, None),
        ("GET", "/decks", {}, None),
        ("GET", "/healthz", {}, None),
        ("GET", "/readyz", {}, None),
        ("GET", "/openapi.yaml", {}, None),
    ]
    for method, path, headers, body in (
        call if len(call) == 4 else (*call, None) for call in calls
    ):
        if path.endswith("/moves"):
            body = {"move": body, "expected_version": 3}
        response = client.open(path, method=method, headers=headers, json=body)
        assert response.status_code < 500, (method, path, response.json)
        response.close()
    return reads


def _declared(document: dict, method: str, path: str) -> set:
    item = document["paths"][path]
    parameters = item.get("parameters", []) + item[method.lower()].get("parameters", [])
    return {
        (p["in"], p["name"].lower() if p["in"] == "header" else p["name"])
        for p in parameters
        if p["in"] in ("header", "query")
    }


def test_every_operation_of_the_contract_is_called_here(reads):
    document = yaml.safe_load(CONTRACT.read_text(encoding="utf-8"))
    operations = {
        (method.upper(), path)
        for path, item in document["paths"].items()
        for method in item
        if method != "parameters"
    }
    assert operations == set(reads)


def test_every_header_and_query_parameter_read_is_declared_for_its_operation(reads):
    document = yaml.safe_load(CONTRACT.read_text(encoding="utf-8"))
    undeclared = {
        (method, path): sorted(
            (kind, name)
            for kind, name in names - _declared(document, method, path)
            if not (kind == "header" and name in OF_HTTP)
        )
        for (method, path), names in reads.items()
    }
    assert {operation: names for operation, names in undeclared.items() if names} == {}


def _numbers_in_query_strings(document: dict) -> list[tuple[str, str, str]]:
    """(path, parameter, its type) of every number in a query string of the contract (all
    of them are GETs')."""
    return [
        (path, parameter["name"], parameter["schema"]["type"])
        for path, item in document["paths"].items()
        for parameter in item.get("get", {}).get("parameters", [])
        if parameter["in"] == "query" and parameter["schema"].get("type") in ("integer", "number")
    ]


ODD_NUMBERS = ["\u0662", "\uff12", "+2", "02", "1_0", " 2", "2.", "1e1"]  # Arabic-Indic, fullwidth


def test_every_number_in_a_query_string_is_written_in_ascii_digits(client):
    document = yaml.safe_load(CONTRACT.read_text(encoding="utf-8"))
    numbers = _numbers_in_query_strings(document)
    assert {(path, name) for path, name, _ in numbers} >= {
        ("/ratings", "players"),
        ("/games", "offset"),
        ("/games/{game_id}", "wait"),
        ("/changes", "max_seconds"),
    }
    key = client.post("/players", json={"name": "Ann"}).json["key"]
    me = {"Authorization": f"Bearer {key}"}
    for path, name, kind in numbers:
        url = path.replace("{game_id}", "0123456789abcdef")
        for odd in ODD_NUMBERS + (["1.5"] if kind == "integer" else []):
            response = client.get(url, query_string={name: odd}, headers=me)
            assert response.status_code == 400, (path, name, odd, response.status_code)
            assert name in response.json["errors"], (path, name, odd)


def test_numbers_in_ascii_digits_are_taken(client):
    assert client.get("/ratings?players=2&offset=10&limit=1").json["offset"] == 10
    assert client.get("/games?players=3&offset=0").status_code == 200
    assert client.get(f"/games/{a_table(client).game_id}?after=0&wait=0.5").status_code == 200


def test_a_number_in_a_path_is_written_in_ascii_digits_or_names_nothing(client):
    table = a_table(client)
    assert client.get(f"/games/{table.game_id}/replay/0").status_code == 200
    for odd in ("\u0660", "00", "+0", "0_0"):
        response = client.get(f"/games/{table.game_id}/replay/{odd}")
        assert (response.status_code, response.json["type"]) == (404, "/problems/not-found"), odd
        response = client.post(f"/games/{table.game_id}/seats/{odd}1", json={"name": "A"})
        assert (response.status_code, response.json["type"]) == (404, "/problems/not-found"), odd
