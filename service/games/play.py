"""What people do to games: create one, take a seat, look, move, resign, take back a seat
an AI played meanwhile, and ask for a rematch.

Each use case loads, decides through the domain, appends with an expected version
(and derived event ids where a repeat must land once: `ids.py`), then does what
follows the change (`changes.py`). Callers pass credentials as they came (a seat
token or a player key, or None); the seat they open is worked out here.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from random import SystemRandom

from service.domain import PRESETS, ClaimError, Decision, Faction, Settings, random_factions
from service.events import (
    AI,
    DEFAULT_JOIN_TIME_LIMIT,
    DEFAULT_TIMEOUT_POLICY,
    FINISHED,
    FORFEIT,
    HUMAN,
    OPEN,
    TAKEOVER,
    TIMEOUT_LIMIT,
    DecisionMade,
    Event,
    Game,
    GameResigned,
    SeatJoined,
    SeatReturned,
    SeatSpec,
    StaleVersion,
    digest,
    new_secret,
)

from . import ids, notifications
from .access import matches, player_of, seat_of, seat_opened
from .changes import Change, follow_up
from .claim import Claim
from .errors import (
    BotRatedGame,
    GameNotOver,
    GameNotStarted,
    GameOver,
    IdempotencyKeyReused,
    InvalidRequest,
    SeatUnavailable,
    Unauthorized,
    WrongInvite,
    use_case,
)

log = logging.getLogger(__name__)
RANDOM = "random"  # the preset of a random legal set of factions
PRESET_NAMES = (*PRESETS, RANDOM)


@dataclass(frozen=True, slots=True)
class Created:
    game: Game
    invites: dict[int, str]  # human seat -> its invite code, shown once


@use_case
def create(
    claim: Claim,
    players: int,
    factions: str | Sequence[str] = RANDOM,
    seats: Sequence[tuple[str, str | None]] | None = None,
    first_leader: int = 0,
    move_time_limit: int | None = None,
    timeout_policy: str = DEFAULT_TIMEOUT_POLICY,
    join_time_limit: int | None = DEFAULT_JOIN_TIME_LIMIT,
    rated: bool = False,
    public: bool = False,
    timeout_limit: int = TIMEOUT_LIMIT,
    final_timeout_policy: str = TAKEOVER,
) -> Created:
    """A new game, its deck shuffled by the store, with an invite per human seat.

    `factions`: a preset name or faction codes; `seats`: (kind, AI level) per seat,
    all human by default; `rated`: its result moves the ratings, and only registered
    players take its human seats; `public`: anybody takes a human seat from the lobby,
    without an invite (none is made); `timeout_limit`, `final_timeout_policy`: what a
    takeover policy comes to (`Game.on_timeout`)."""
    settings = settings_of(players, factions, first_leader)
    check_timeout_policy(rated, move_time_limit, timeout_policy)
    seats = list(seats) if seats is not None else [(HUMAN, None)] * players
    if len(seats) != players:
        detail = f"{players} players need {players} seats, not {len(seats)}"
        raise InvalidRequest(detail, errors={"seats": [detail]})
    invites = {} if public else {n: new_secret() for n, (k, _) in enumerate(seats) if k == HUMAN}
    specs = [
        SeatSpec(AI, level) if kind != HUMAN else SeatSpec(HUMAN, invite_hash=_digest(invites, n))
        for n, (kind, level) in enumerate(seats)
    ]
    game = claim.store.create(
        settings,
        specs,
        move_time_limit=move_time_limit,
        timeout_policy=timeout_policy,
        join_time_limit=join_time_limit,
        rated=rated,
        timeout_limit=timeout_limit,
        final_timeout_policy=final_timeout_policy,
    )
    follow_up(claim, Change(game, (game.creation,)))
    return Created(game, invites)


def settings_of(players: int, factions: str | Sequence[str], first_leader: int) -> Settings:
    """The settings of a new game: `factions` a preset (`random`: drawn now) or codes;
    InvalidSettings (a `ClaimError`) if they do not make a game."""
    if isinstance(factions, str):
        chosen = (
            random_factions(players, SystemRandom()) if factions == RANDOM else PRESETS[factions]
        )
    else:
        chosen = tuple(Faction.parse(code) for code in factions)
    return Settings(players, chosen, first_leader)


def check_timeout_policy(rated: bool, move_time_limit: int | None, timeout_policy: str) -> None:
    """InvalidRequest unless a rated game's move time runs out by forfeit."""
    if rated and move_time_limit is not None and timeout_policy != FORFEIT:
        detail = "a rated game's move time runs out by forfeit: no AI plays a rated seat"
        raise InvalidRequest(detail, errors={"timeout_policy": [detail]})


def check_bots_apart(claim: Claim, player: str, others: Sequence[str]) -> None:
    """BotRatedGame if `player` would meet in a rated game a player of `others` of the
    other kind (a bot and a person): that takes the person's challenge."""
    bots = claim.players.bots([player, *others])
    if any((player in bots) != (other in bots) for other in others):
        raise BotRatedGame(
            "a bot plays rated games with people only when a person challenges it"
            " (POST /challenges)"
        )


def _digest(invites: dict[int, str], seat: int) -> str | None:
    """What a seat keeps of its invite: its digest; None for a public game's seat."""
    return digest(invites[seat]) if seat in invites else None


@dataclass(frozen=True, slots=True)
class Joined:
    game: Game
    seat: int
    token: str  # the seat's token, shown once


@use_case
def join(
    claim: Claim,
    game_id: str,
    seat: int,
    invite: str | None,
    name: str | None,
    key: str | None = None,
) -> Joined:
    """Take a human seat with its invite code (a public game's without one); with the
    `key` of a registered player the seat is theirs (and in their inbox), and their
    name is the default."""
    holder = player_of(claim, key)
    name = name or (holder.name if holder else None)
    player = holder.id if holder else None
    token = new_secret()
    while True:
        game = claim.store.load(game_id)
        if player is None and game.creation.rated:
            raise Unauthorized("a rated game is for registered players: send your player key")
        if name is None:
            raise InvalidRequest("a name is needed", errors={"name": ["required"]})
        if seat not in range(len(game.seats)):
            raise SeatUnavailable(f"there is no seat {seat}")
        spec = game.seats[seat]
        if spec.kind != HUMAN:
            raise SeatUnavailable(f"seat {seat} is an AI's")
        if spec.invite_hash is not None and not matches(invite or "", spec.invite_hash):
            raise WrongInvite(f"that is not the invite of seat {seat}")
        if spec.taken:
            raise SeatUnavailable(f"seat {seat} is taken")
        if player is not None and any(other.player == player for other in game.seats):
            raise SeatUnavailable("a player takes one seat of a game")
        if player is not None and game.creation.rated:
            check_bots_apart(claim, player, [other.player for other in game.seats if other.player])
        event = SeatJoined(seat, name, digest(token), player)
        try:
            version = claim.store.append(game_id, [event], game.version)
        except StaleVersion:
            continue  # someone else joined meanwhile: look again
        joined = claim.store.load(game_id, version)
        follow_up(claim, Change(joined, (event,)))
        return Joined(joined, seat, token)


@dataclass(frozen=True, slots=True)
class Moved:
    """The game after a seat's change, and that seat."""

    game: Game
    seat: int


@use_case
def move(
    claim: Claim,
    game_id: str,
    token: str | None,
    move: str,
    expected_version: int,
    idempotency_key: str,
) -> Moved:
    """Append the decision `move` ("play GO3") of the seat `token` opens, at
    `expected_version`.

    The same idempotency key again answers the game as that first move left it and
    appends nothing; used for another move, it is refused."""
    game = claim.store.load_seated(game_id)  # the append checks the expected version
    seat = seat_of(claim, game, token)
    if seat is None:  # or in a seat registered to a player since this process folded it
        game = claim.store.load(game_id)
        seat = seat_opened(claim, game, token)
    try:
        decision = Decision.parse(move)
    except ClaimError as error:
        raise InvalidRequest(str(error), errors={"move": [str(error)]}) from None
    if game.status == OPEN:
        raise GameNotStarted("the game waits for its seats to be taken")
    event_id = ids.derived_id(game.id, ids.MOVE, f"{seat}/{idempotency_key}")
    event = DecisionMade(seat, decision)
    version, written = claim.store.append_once(game.id, [event], expected_version, [event_id])
    if not written:  # the key was used before: for this very move?
        first = claim.store.read(game.id, after=version - 1, until=version)[0]
        if first.id != event_id or first.event != event:
            raise IdempotencyKeyReused("this idempotency key was used for another request")
    moved = claim.store.load(game.id, version)
    follow_up(claim, Change(moved, (event,)))
    return Moved(moved, seat)


@use_case
def resign(claim: Claim, game_id: str, token: str | None) -> Moved:
    """The seat `token` opens gives up: the game ends and the seat's side loses."""
    game = claim.store.load(game_id)
    seat = seat_opened(claim, game, token)
    return Moved(_append_at_current(claim, game, GameResigned(seat)), seat)


@use_case
def come_back(claim: Claim, game_id: str, seat: int, token: str | None) -> Moved:
    """The person of `seat`, which an AI played since their move time ran out
    (timeout policy `takeover`), plays it again."""
    game = claim.store.load(game_id)
    if seat_opened(claim, game, token) != seat:
        raise Unauthorized(f"send the token of seat {seat}")
    return Moved(_append_at_current(claim, game, SeatReturned(seat)), seat)


def _append_at_current(claim: Claim, game: Game, event: Event) -> Game:
    """Append `event` at the game's current version, looking again if it moves on."""
    while True:
        if game.status == OPEN:
            raise GameNotStarted("the game waits for its seats to be taken")
        if game.ending is not None:
            raise GameOver("the game is over")
        try:
            version = claim.store.append(game.id, [event], game.version)
        except StaleVersion:
            game = claim.store.load(game.id)
            continue
        changed = claim.store.load(game.id, version)
        follow_up(claim, Change(changed, (event,)))
        return changed


@dataclass(frozen=True, slots=True)
class Rematch:
    game: Game
    seat: int  # the caller's seat in it
    invite: str  # the invite of that seat
    created: bool  # whether this call created it


@use_case
def rematch(claim: Claim, game_id: str, token: str | None) -> Rematch:
    """The next game after a finished one: same settings, seats rotated by one and the
    first leader moved on. The first call creates it (and tells the other players);
    every call answers it, with the caller's invite, and has the finished game's
    watchers look at it again (its view links the rematch). Its id and invites are
    derived from the finished game with the server's secret, so that racing callers
    land on one game and nothing is stored in the clear."""
    game = claim.store.load(game_id)
    seat = seat_opened(claim, game, token)
    if game.status != FINISHED:
        raise GameNotOver("only a finished game has a rematch")
    secret = claim.rematches.secret()
    players = game.settings.players
    new_id = ids.rematch_id(secret, game.id)
    invites, specs = {}, [SeatSpec(HUMAN)] * players
    for old, spec in enumerate(game.seats):
        new = (old + 1) % players
        if spec.kind == HUMAN:
            code = ids.derive(secret, f"invite/{new_id}/{new}")
            invites[new] = base64.urlsafe_b64encode(code).decode().rstrip("=")
            specs[new] = SeatSpec(HUMAN, invite_hash=digest(invites[new]))
        else:
            specs[new] = SeatSpec(AI, spec.level)
    settings = replace(game.settings, first_leader=(game.settings.first_leader + 1) % players)
    creation = game.creation
    try:
        created = claim.store.create(
            settings,
            specs,
            move_time_limit=creation.move_time_limit,
            timeout_policy=creation.timeout_policy,
            join_time_limit=creation.join_time_limit,
            rated=creation.rated,
            timeout_limit=creation.timeout_limit,
            final_timeout_policy=creation.final_timeout_policy,
            game_id=new_id,
        )
        first = True
    except StaleVersion:
        created, first = claim.store.load(new_id), False
    claim.store.announce(game.id)  # its watchers look again, and find the rematch
    if first:
        follow_up(claim, Change(created, (created.creation,)))
        others = [s.player for n, s in enumerate(game.seats) if s.player and n != seat]
        try:  # the answer goes out whatever: it holds the caller's invite
            notifications.notify(claim, game, notifications.REMATCH, others, new_game_id=new_id)
            for player_id in others:  # their streams tell them: `rematch-offered`
                claim.store.announce_player(player_id)
        except Exception:
            log.exception("game %s: telling of its rematch failed", game.id)
    new_seat = (seat + 1) % players
    return Rematch(created, new_seat, invites[new_seat], first)
