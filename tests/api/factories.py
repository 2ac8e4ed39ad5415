"""Small builders of games over the API for its tests."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from service.api import create_app
from service.config import Config
from service.domain import Settings, shuffled_deck
from service.events import HUMAN, SeatSpec, digest
from service.games import Claim
from tests.events.factories import FACTIONS

INVITE = "invite-for-tests"


def an_app(redis_client, prefix: str, **settings):
    """An API app on the test's Redis and prefix with these settings (no rate limit
    unless they set one), enqueuing no job."""
    config = Config(prefix=prefix, **{"rate_limit": "", **settings})
    return create_app(claim=Claim.connect(config, client=redis_client, jobs=False))


@dataclass
class Table:
    """A game over the API: its id and the token of each human seat."""

    client: object
    game_id: str
    tokens: dict[int, str] = field(default_factory=dict)

    def headers(self, seat: int | None, key: str | None = None) -> dict:
        headers = {} if seat is None else {"Authorization": f"Bearer {self.tokens[seat]}"}
        if key is not None:
            headers["Idempotency-Key"] = key
        return headers

    def view(self, seat: int | None = None) -> dict:
        response = self.client.get(f"/games/{self.game_id}", headers=self.headers(seat))
        assert response.status_code == 200, response.json
        return response.json

    def post_move(self, seat: int, move: str, version: int, key: str | None = None):
        return self.client.post(
            f"/games/{self.game_id}/moves",
            json={"move": move, "expected_version": version},
            headers=self.headers(seat, key or f"{version}-{move}"),
        )

    def play(self, moves: int | None = None, rng: random.Random | None = None) -> dict:
        """Make `moves` legal moves (None: to the end), the first legal or a random one;
        answer the public view after them."""
        view = self.view()
        while view["status"] == "running" and moves != 0:
            seat = view["table"]["to_act"]
            legal = self.view(seat)["you"]["legal"]
            move = rng.choice(legal) if rng else legal[0]
            response = self.post_move(seat, move, view["version"])
            assert response.status_code == 201, response.json
            view = self.view()
            moves = None if moves is None else moves - 1
        return view


def created(client, players=2, seats=None, **settings) -> dict:
    body = {"players": players, "factions": "random", **settings}
    if seats is not None:
        body["seats"] = seats
    response = client.post("/games", json=body)
    assert response.status_code == 201, response.json
    return response.json


def a_table(client, players=2, **settings) -> Table:
    """A running game of human seats, every seat joined."""
    game = created(client, players, **settings)
    table = Table(client, game["game_id"])
    for invite in game["invites"]:
        seat = invite["seat"]
        response = client.post(
            f"/games/{table.game_id}/seats/{seat}",
            json={"invite": invite["invite"], "name": f"player {seat}"},
        )
        assert response.status_code == 201, response.json
        table.tokens[seat] = response.json["token"]
    return table


def a_table_with_deck(client, store, deck, players=2) -> Table:
    """A running game of human seats over a deck in the given order (tests only: the
    API always shuffles)."""
    settings = Settings(players, FACTIONS[players])
    seats = [SeatSpec(HUMAN, invite_hash=digest(INVITE))] * players
    game = store.create(settings, seats, deck=deck)
    table = Table(client, game.id)
    for seat in range(players):
        response = client.post(
            f"/games/{game.id}/seats/{seat}", json={"invite": INVITE, "name": f"p{seat}"}
        )
        assert response.status_code == 201, response.json
        table.tokens[seat] = response.json["token"]
    return table


def a_deck(players: int, seed: int):
    return shuffled_deck(Settings(players, FACTIONS[players]).factions, random.Random(seed))
