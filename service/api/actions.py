"""What a caller can do to a game: create it, join a seat, move, resign.

Thin functions that load, decide and append through the event store; the Flask views
call them and know nothing of events. Every change goes through `GameStore.append`
with an expected version, so concurrent callers can never both act at one version.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from random import SystemRandom

from service.domain import (
    PRESETS,
    Decision,
    Faction,
    Settings,
    random_factions,
)
from service.events import (
    AI,
    DEFAULT_JOIN_TIME_LIMIT,
    DEFAULT_TIMEOUT_POLICY,
    FINISHED,
    HUMAN,
    OPEN,
    DecisionMade,
    Game,
    GameResigned,
    GameStore,
    SeatJoined,
    SeatReturned,
    SeatSpec,
    StaleVersion,
)

from .auth import digest, matches, new_secret
from .problems import Problem

# Event ids of moves are derived from the game, the seat and the client's idempotency
# key, so that a repeated request appends nothing (the store has seen the id).
MOVES = uuid.UUID("6f1c0e1e-3c57-4d55-9a53-4e0c8f0c7a11")
RANDOM = "random"


@dataclass(frozen=True, slots=True)
class Created:
    game: Game
    invites: dict[int, str]  # human seat -> its invite code, shown once


def create_game(
    store: GameStore,
    players: int,
    factions: str | Sequence[str],
    seats: Sequence[dict] | None,
    first_leader: int = 0,
    move_time_limit: int | None = None,
    timeout_policy: str = DEFAULT_TIMEOUT_POLICY,
    join_time_limit: int | None = DEFAULT_JOIN_TIME_LIMIT,
) -> Created:
    """A new game, its deck shuffled by the store, with an invite per human seat."""
    if isinstance(factions, str):
        chosen = (
            random_factions(players, SystemRandom()) if factions == RANDOM else PRESETS[factions]
        )
    else:
        chosen = tuple(Faction.parse(code) for code in factions)
    settings = Settings(players, chosen, first_leader)  # raises InvalidSettings
    seats = list(seats) if seats is not None else [{"kind": HUMAN}] * players
    if len(seats) != players:
        detail = f"{players} players need {players} seats, not {len(seats)}"
        raise Problem("validation-error", detail, errors={"seats": [detail]})
    invites = {n: new_secret() for n, seat in enumerate(seats) if seat["kind"] == HUMAN}
    specs = [
        SeatSpec(HUMAN, invite_hash=digest(invites[n]))
        if seat["kind"] == HUMAN
        else SeatSpec(AI, seat["level"])
        for n, seat in enumerate(seats)
    ]
    game = store.create(
        settings,
        specs,
        move_time_limit=move_time_limit,
        timeout_policy=timeout_policy,
        join_time_limit=join_time_limit,
    )
    return Created(game, invites)


def join(
    store: GameStore,
    game_id: str,
    seat: int,
    invite: str,
    name: str,
    player: str | None = None,
) -> tuple[Game, str]:
    """Take a human seat with its invite code, for a registered `player` or not; answer
    the game and the seat's token."""
    token = new_secret()
    while True:
        game = store.load(game_id)
        if seat not in range(len(game.seats)):
            raise Problem("seat-unavailable", f"there is no seat {seat}")
        spec = game.seats[seat]
        if spec.kind != HUMAN:
            raise Problem("seat-unavailable", f"seat {seat} is an AI's")
        if not matches(invite, spec.invite_hash):
            raise Problem("wrong-invite", f"that is not the invite of seat {seat}")
        if spec.taken:
            raise Problem("seat-unavailable", f"seat {seat} is taken")
        if player is not None and any(other.player == player for other in game.seats):
            raise Problem("seat-unavailable", "a player takes one seat of a game")
        try:
            store.append(game_id, [SeatJoined(seat, name, digest(token), player)], game.version)
        except StaleVersion:
            continue  # someone else joined meanwhile: look again
        return store.load(game_id), token


def move(
    store: GameStore,
    game: Game,
    seat: int,
    decision: Decision,
    expected_version: int,
    idempotency_key: str,
) -> Game:
    """Append `seat`'s decision at `expected_version`; answer the game just after it.

    The same idempotency key again answers the game as that first move left it and
    appends nothing; used for another move, it is a problem.
    """
    if game.status == OPEN:
        raise Problem("game-not-started", "the game waits for its seats to be taken")
    event_id = uuid.uuid5(MOVES, f"{game.id}/{seat}/{idempotency_key}")
    event = DecisionMade(seat, decision)
    version, written = store.append_once(game.id, [event], expected_version, ids=[event_id])
    if not written:  # the key was used before: for this very move?
        first = store.read(game.id, after=version - 1, until=version)[0]
        if first.id != event_id or first.event != event:
            detail = "this idempotency key was used for another request"
            raise Problem("idempotency-key-reused", detail)
    return store.load(game.id, version)


def resign(store: GameStore, game: Game, seat: int) -> Game:
    """The seat gives up: the game ends and its side loses."""
    return _append_at_current(store, game, GameResigned(seat))


def come_back(store: GameStore, game: Game, seat: int) -> Game:
    """The person of a seat an AI took over plays it again."""
    return _append_at_current(store, game, SeatReturned(seat))


def _append_at_current(store: GameStore, game: Game, event) -> Game:
    """Append `event` at the game's current version, looking again if it moves on."""
    while True:
        if game.status == OPEN:
            raise Problem("game-not-started", "the game waits for its seats to be taken")
        if game.ending is not None:
            raise Problem("game-over", "the game is over")
        try:
            version = store.append(game.id, [event], game.version)
        except StaleVersion:
            game = store.load(game.id)
            continue
        return store.load(game.id, version)


@dataclass(frozen=True, slots=True)
class Rematch:
    game: Game
    seat: int  # the caller's seat in it
    invite: str  # the invite of that seat
    created: bool  # whether this call created it


def rematch(store: GameStore, game: Game, seat: int) -> Rematch:
    """The next game after `game`: same settings, seats rotated by one and the first
    leader moved on. The first call creates it; every call answers it, with the
    caller's invite. Its id and invites are derived from the finished game with the
    server's secret, so that racing callers land on one game and nothing is stored
    in the clear."""
    if game.status != FINISHED:
        raise Problem("game-not-over", "only a finished game has a rematch")
    secret = _server_secret(store)
    players = game.settings.players
    new_id = _derive(secret, f"rematch/{game.id}").hex()[:16]
    invites, specs = {}, [SeatSpec(HUMAN)] * players
    for old, spec in enumerate(game.seats):
        new = (old + 1) % players
        if spec.kind == HUMAN:
            code = _derive(secret, f"invite/{new_id}/{new}")
            invites[new] = base64.urlsafe_b64encode(code).decode().rstrip("=")
            specs[new] = SeatSpec(HUMAN, invite_hash=digest(invites[new]))
        else:
            specs[new] = SeatSpec(AI, spec.level)
    settings = replace(game.settings, first_leader=(game.settings.first_leader + 1) % players)
    creation = game.creation
    try:
        created = store.create(
            settings,
            specs,
            move_time_limit=creation.move_time_limit,
            timeout_policy=creation.timeout_policy,
            join_time_limit=creation.join_time_limit,
            game_id=new_id,
        )
        first = True
    except StaleVersion:
        created, first = store.load(new_id), False
    store.redis.set(store.key(game.id, "rematch"), new_id)
    new_seat = (seat + 1) % players
    return Rematch(created, new_seat, invites[new_seat], first)


def rematch_of(store: GameStore, game: Game) -> str | None:
    """The id of the game's rematch, once someone asked for it."""
    if game.ending is None:
        return None
    linked = store.redis.get(store.key(game.id, "rematch"))
    return linked.decode() if linked else None


def _server_secret(store: GameStore) -> bytes:
    """The server's secret for derived ids and invites, made on first use."""
    key = f"{store.prefix}:server-secret"
    store.redis.set(key, secrets.token_hex(32), nx=True)
    return bytes.fromhex(store.redis.get(key).decode())


def _derive(secret: bytes, text: str) -> bytes:
    return hmac.new(secret, text.encode(), hashlib.sha256).digest()
