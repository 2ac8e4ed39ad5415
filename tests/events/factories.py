"""Small builders of events and games for the event store's tests."""

import random
import uuid
from datetime import UTC, datetime, timedelta

from service.domain import Settings, State, legal_decisions, shuffled_deck
from service.events import (
    AI,
    HUMAN,
    DecisionMade,
    Game,
    GameCreated,
    GameStore,
    Recorded,
    SeatSpec,
    deck_commitment,
    fold,
)
from tests.domain.factories import CLAIM, SEVEN, SEVEN2

FACTIONS = {2: CLAIM, 3: SEVEN, 4: SEVEN2}
START = datetime(2026, 1, 1, tzinfo=UTC)
TOKEN_HASH = "ab" * 32


def stream_key(prefix: str, game_id: str) -> str:
    """The Redis key of a game's stream, as `service/events/store.py` documents it."""
    return f"{prefix}:game:{{{game_id}}}:events"


def ids_key(prefix: str, game_id: str) -> str:
    """The Redis key of a game's event ids, as `service/events/store.py` documents it."""
    return f"{prefix}:game:{{{game_id}}}:ids"


def seats(*kinds: str) -> list[SeatSpec]:
    """Seats by kind: "human", or an AI level such as "random"."""
    return [SeatSpec(HUMAN) if kind == HUMAN else SeatSpec(AI, kind) for kind in kinds]


def a_creation(players=2, kinds=None, seed=1, move_time_limit=None) -> GameCreated:
    settings = Settings(players, FACTIONS[players])
    deck = shuffled_deck(settings.factions, random.Random(seed))
    salt = bytes(range(32))
    return GameCreated(
        settings,
        tuple(seats(*(kinds or ["random"] * players))),
        deck,
        salt,
        deck_commitment(salt, deck),
        move_time_limit,
    )


def records(*events, after: int = 0) -> list[Recorded]:
    """`events` recorded at versions `after + 1`, `after + 2`, ..., a minute apart, each
    with an id made from its version (the same events recorded twice chain alike)."""
    return [
        Recorded(version, uuid.UUID(int=version), START + timedelta(minutes=version), event)
        for version, event in enumerate(events, start=after + 1)
    ]


def then(game: Game, *events) -> Game:
    """`game` after `events`."""
    return fold(game.id, records(*events, after=game.version), game)


def new_game(store: GameStore, players=2, kinds=None, seed=1):
    """A game created in `store` with the deck of seed `seed`."""
    settings = Settings(players, FACTIONS[players])
    return store.create(
        settings,
        seats(*(kinds or ["random"] * players)),
        deck=shuffled_deck(settings.factions, random.Random(seed)),
    )


def a_move(state: State, rng=None) -> DecisionMade:
    """A legal decision for the seat to act: the first, or a random one."""
    legal = legal_decisions(state)
    return DecisionMade(state.to_act, rng.choice(legal) if rng else legal[0])


def play(store: GameStore, game, moves: int | None = None, rng=None):
    """`moves` legal decisions appended one by one (None: to the end); the game after."""
    while game.state.to_act is not None and moves != 0:
        store.append(game.id, [a_move(game.state, rng)], game.version)
        game = store.load(game.id)
        moves = None if moves is None else moves - 1
    return game


class RoundTrips:
    """Counts the round trips a Redis client makes (a command, or a pipeline sent)."""

    def __init__(self, client, monkeypatch):
        self.count = 0
        execute, pipeline = client.execute_command, client.pipeline

        def counted(*args, **kwargs):
            self.count += 1
            return execute(*args, **kwargs)

        def counted_pipeline(*args, **kwargs):
            pipe = pipeline(*args, **kwargs)
            send = pipe.execute

            def execute_pipeline(*a, **k):
                self.count += 1
                return send(*a, **k)

            pipe.execute = execute_pipeline
            return pipe

        monkeypatch.setattr(client, "execute_command", counted)
        monkeypatch.setattr(client, "pipeline", counted_pipeline)
