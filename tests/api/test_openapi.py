"""The contract: `openapi.yaml` is current, is valid OpenAPI 3.1, and the live app keeps to it.

schemathesis makes requests from the contract and sends them to the app in process
(through WSGI: nothing goes over a network): random ones, and ones aimed at real games
(open, running, finished) with their seat tokens, invites, legal moves and current
version, so that the paths that succeed are run as well as the ones that refuse. Every
response must be in the contract: no 5xx, a documented status and content type, a body
that fits its schema, and a 4xx for a request the contract forbids.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import hypothesis.strategies as st
import pytest
import requests
import schemathesis
import yaml
from hypothesis import HealthCheck, settings
from openapi_spec_validator import OpenAPIV31SpecValidator, validate

from service.api import openapi_document
from service.domain import legal_decisions
from service.events import FINISHED, OPEN, RUNNING, GameStore
from tests.api.factories import Table, a_table, created
from tests.sizes import sized

CONTRACT = Path(__file__).resolve().parents[2] / "openapi.yaml"
SEED = 20260101
LONG_POLL = 0.05  # seconds: the longest `wait` a generated request may hold the app here
GENERATED = "as generated"  # an aim that keeps what schemathesis generated
# Query parameters that hold a request: (the value used here, the largest valid one).
LONG_POLLS = {"wait": (LONG_POLL, 60), "max_seconds": (1, 3600)}
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
)
# Function-scoped fixtures (the app, the games) are shared by one operation's examples
# on purpose: the games move on as the requests play them.
SHARED_FIXTURES = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


def test_openapi_yaml_is_the_document_the_schemas_generate():
    assert CONTRACT.read_text(encoding="utf-8") == openapi_document(), (
        "openapi.yaml is stale: run `bin/claim openapi -o openapi.yaml`"
    )


def test_openapi_yaml_is_valid_openapi_3_1():
    document = yaml.safe_load(CONTRACT.read_text(encoding="utf-8"))
    assert document["openapi"].startswith("3.1.")
    validate(document, cls=OpenAPIV31SpecValidator)


def contract(max_examples: int, **phases: bool) -> schemathesis.BaseSchema:
    """The committed contract for schemathesis: deterministic, valid and invalid data."""
    config = schemathesis.Config.from_dict(
        {
            "seed": SEED,
            "max-stream-events": 1,  # a stream's first event; the rest would wait
            "generation": {
                "mode": "all",
                "max-examples": max_examples,
                "deterministic": True,
                "database": "none",
            },
            "phases": {name: {"enabled": enabled} for name, enabled in phases.items()},
            "checks": {"enabled": False, **{name: {"enabled": True} for name in CHECKS}},
        }
    )
    return schemathesis.openapi.from_path(CONTRACT, config=config)


# Examples an operation: `--full` draws more than the suite.
random_requests = contract(max_examples=sized(10, 25)).exclude(method="POST", path="/sign-in")
# Its boundary cases but one: schemathesis spent 28 s of each test process's collection
# drawing a required address of 320 characters that fits the names' pattern.
sign_in_requests = contract(max_examples=sized(10, 25), coverage=False).include(
    method="POST", path="/sign-in"
)
# Drawing aims needs `@given`, which schemathesis runs in its fuzzing phase only.
aimed_requests = contract(max_examples=sized(15, 40), examples=False, coverage=False).include(
    path_regex="{game_id}"
)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    """schemathesis talks to the app in process; any real HTTP request is a mistake."""

    def refuse(session, request, **kwargs):
        raise AssertionError(f"a test request left the process: {request.method} {request.url}")

    monkeypatch.setattr(requests.Session, "send", refuse)


def short_long_polls(case) -> None:
    """Cap a valid long-poll `wait` or stream `max_seconds`, so that a request holds the
    app a moment at most."""
    query = case.query or {}
    for name, (shortest, longest) in LONG_POLLS.items():
        try:
            seconds = float(query[name])
        except (KeyError, TypeError, ValueError):
            continue
        if shortest < seconds <= longest:
            query[name] = shortest


@random_requests.parametrize()
@SHARED_FIXTURES
def test_random_requests_get_answers_within_the_contract(case, app):
    short_long_polls(case)
    case.call_and_validate(app=app)


@sign_in_requests.parametrize()
@SHARED_FIXTURES
def test_random_requests_for_sign_in_links_get_answers_within_the_contract(case, app):
    case.call_and_validate(app=app)


@dataclass
class Games:
    """Real games to aim requests at; a game that requests have used up (all seats
    taken, the game over) is replaced by a new one when next asked for."""

    client: object
    store: GameStore
    players: int = 3
    tables: dict[str, Table] = field(default_factory=dict)
    invites: dict[int, str] = field(default_factory=dict)

    def table(self, status: str) -> Table:
        """A game with `status`: open (seat 0 taken, the others free), running (a few
        moves in) or finished."""
        table = self.tables.get(status)
        if table is None or self.store.load(table.game_id).status != status:
            table = self.tables[status] = self.new(status)
        return table

    def new(self, status: str) -> Table:
        if status != OPEN:
            table = a_table(self.client, self.players)
            table.play(moves=4 if status == RUNNING else None)
            return table
        game = created(self.client, self.players)
        table = Table(self.client, game["game_id"])
        self.invites = {invite["seat"]: invite["invite"] for invite in game["invites"]}
        response = self.client.post(
            f"/games/{table.game_id}/seats/0", json={"invite": self.invites[0], "name": "p0"}
        )
        assert response.status_code == 201, response.json
        table.tokens[0] = response.json["token"]
        return table


@pytest.fixture
def games(client, store) -> Games:
    return Games(client, store)


def aim(case, data, games: Games) -> None:
    """Point `case` at a real game (or leave it as generated), with the token of one of
    its seats and, as the operation wants, a legal move at the current version, a free
    seat's invite, a long-poll or a conditional request, a step or version the game has.

    The choices that make a request succeed come first, where hypothesis draws most."""
    if "game_id" not in (case.path_parameters or {}):
        return
    operation = f"{case.method.upper()} {case.operation.path}"
    # A move or a join that may succeed needs a game of one status: draw those first.
    if operation == "POST /games/{game_id}/moves" and first_choice(data, "a legal move"):
        status, meaningful = RUNNING, True
    elif operation == "POST /games/{game_id}/seats/{seat}" and first_choice(data, "an invite"):
        status, meaningful = OPEN, True
    else:
        status = data.draw(st.sampled_from([RUNNING, OPEN, FINISHED, GENERATED]), label="game")
        meaningful = False
    if status == GENERATED:
        return
    table = games.table(status)
    game = games.store.load(table.game_id)
    case.path_parameters["game_id"] = game.id
    seat = data.draw(st.sampled_from([*sorted(table.tokens), GENERATED]), label="token of seat")
    if seat != GENERATED:
        set_headers(case, table.headers(seat))
    if "seat" in case.path_parameters:
        seats = range(game.settings.players + 1)  # and a seat too many
        case.path_parameters["seat"] = data.draw(st.sampled_from(seats), label="seat")

    if operation == "POST /games/{game_id}/moves" and meaningful:
        acting = game.state.to_act
        move = pick(data, [str(d) for d in legal_decisions(game.state)], label="move")
        others = [number for number in sorted(table.tokens) if number != acting]
        mover = pick(data, [acting, *others], label="mover")
        version = data.draw(st.sampled_from([game.version, game.version - 1]), label="version")
        keys = [f"move {game.version}", "the same key every time"]
        key = data.draw(st.sampled_from(keys), label="idempotency key")
        case.body = {"move": move, "expected_version": version}
        set_headers(case, table.headers(mover, key))
    elif operation == "POST /games/{game_id}/seats/{seat}" and meaningful:
        free = [number for number, place in enumerate(game.seats) if not place.taken]
        number = case.path_parameters["seat"] = pick(data, free, label="seat")
        case.body = {"invite": games.invites[number], "name": f"player {number}"}
    elif operation == "GET /games/{game_id}":
        kind = data.draw(st.sampled_from(["long-poll", "conditional", GENERATED]), label="kind")
        if kind == "long-poll":
            after = data.draw(st.sampled_from([game.version - 1, game.version]), label="after")
            case.query = {**(case.query or {}), "after": after, "wait": LONG_POLL}
        elif kind == "conditional":
            set_headers(case, {"If-None-Match": f'"{game.version}"'})
    elif operation == "GET /games/{game_id}/replay/{step}":
        steps = [*range(game.decisions + 2), GENERATED]  # and a step too many
        step = pick(data, steps, label="step")
        if step != GENERATED:
            case.path_parameters["step"] = step
    elif operation == "GET /games/{game_id}/events":
        after = data.draw(st.sampled_from([0, game.version - 1, GENERATED]), label="after")
        if after != GENERATED:
            case.query = {**(case.query or {}), "after": after}


def pick(data, options: list, label: str):
    """One of `options`, a list that depends on the game's state: drawn by index from
    a fixed range, so that hypothesis replays the same draws when the state moved."""
    return options[data.draw(st.integers(0, 255), label=label) % len(options)]


def first_choice(data, label: str) -> bool:
    """True or False, True being what hypothesis draws first and most often."""
    return data.draw(st.sampled_from([True, False]), label=label)


def set_headers(case, headers: dict) -> None:
    case.headers = {**(case.headers or {}), **headers}


@aimed_requests.parametrize()
@aimed_requests.given(data=st.data())
@SHARED_FIXTURES
def test_requests_aimed_at_real_games_get_answers_within_the_contract(case, data, app, games):
    aim(case, data, games)
    short_long_polls(case)
    case.call_and_validate(app=app)
