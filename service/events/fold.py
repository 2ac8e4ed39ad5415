"""The fold: a game's state at any version is `reduce(apply_event, events)`.

`Game` is everything the events say about one game: its creation, its seats, the
rules engine's `State` and how it ended. Decisions go through the engine, checked as
its pure `apply` checks them; whatever the engine or the seat rules reject raises, and
nothing changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from service.domain import (
    GameOver,
    IllegalDecision,
    NotYourTurn,
    Replay,
    Result,
    Settings,
    State,
    is_over,
    new_game,
    result,
)

from .chain import Head, canonical, genesis, link
from .codec import encode
from .errors import GameNotStarted, RejectedEvent, SeatRefusal, SeatUnavailable
from .model import (
    AI,
    AI_DECIDES,
    CORRESPONDENCE,
    FORFEIT,
    HUMAN,
    TAKEOVER,
    BreakEnded,
    BreakTaken,
    DecisionMade,
    GameAborted,
    GameCreated,
    GameResigned,
    Recorded,
    SeatJoined,
    SeatRegistered,
    SeatReturned,
    TurnTimedOut,
    policy_parts,
)

# A game's status, as the lobby lists it.
OPEN = "open"  # waiting for people to take their seats
RUNNING = "running"
FINISHED = "finished"
ABORTED = "aborted"
STATUSES = (OPEN, RUNNING, FINISHED, ABORTED)

# How a game ended.
COMPLETED = "completed"  # played to the end and scored
RESIGNED = "resigned"
FORFEITED = "forfeited"  # a seat's move time ran out under the forfeit policy


@dataclass(frozen=True, slots=True)
class Seat:
    """A seat: an AI of some level, or a person once joined (only the token's hash)."""

    kind: str
    level: str | None = None
    invite_hash: str | None = None
    name: str | None = None
    token_hash: str | None = None
    player: str | None = None
    joined_at: datetime | None = None  # when the person took the seat
    takeover: str | None = None  # the level of the AI playing a person's seat meanwhile
    ai_decisions: int = 0  # decisions an AI made for the person when their time ran out
    timeouts: int = 0  # times the person's move time ran out
    timeouts_in_a_row: int = 0  # the same since the person last decided or came back
    breaks: tuple[tuple[datetime, datetime], ...] = ()  # (from, until) of each break taken
    break_days_used: int = 0  # of the person's days of breaks this year, as the last said
    break_days_allowed: int = 0

    @property
    def taken(self) -> bool:
        return self.kind == AI or self.token_hash is not None

    @property
    def break_until(self) -> datetime | None:
        """When the last break of the seat's person ends (or ended); None if none."""
        return self.breaks[-1][1] if self.breaks else None

    def on_break(self, at: datetime) -> bool:
        return bool(self.breaks) and self.breaks[-1][0] <= at < self.breaks[-1][1]

    def paused_after(self, since: datetime) -> timedelta:
        """How long the person's breaks stopped their clock after `since`."""
        return sum(
            (until - max(start, since) for start, until in self.breaks if until > since),
            timedelta(),
        )

    @property
    def ai_level(self) -> str | None:
        """The level of the AI that decides for this seat now, None for a person."""
        return self.level if self.kind == AI else self.takeover


@dataclass(frozen=True, slots=True)
class Ending:
    """How a game ended: `reason`, the seat that resigned or forfeited, and the
    winning sides (one, or none for a draw or an abort; with 3 players a resignation
    leaves both others winning)."""

    reason: str
    seat: int | None
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Game:
    """One game at one version: what its events say, folded."""

    id: str
    version: int
    created_at: datetime
    updated_at: datetime  # the time of the last event
    # Since when the seat to act has been waited for: the time of the last event but a
    # seat's registration, which changes nobody's turn (nor the move time left).
    waiting_since: datetime
    creation: GameCreated
    seats: tuple[Seat, ...]
    state: State
    decisions: int = 0
    ending: Ending | None = None
    chain: bytes = b""  # the hash of its log up to `version` (`chain.py`)

    @property
    def head(self) -> Head:
        """Its version and the hash of its log up to it, which a client may keep."""
        return Head(self.version, self.chain.hex())

    @property
    def settings(self) -> Settings:
        return self.creation.settings

    @property
    def open_seats(self) -> tuple[int, ...]:
        return tuple(seat for seat, spec in enumerate(self.seats) if not spec.taken)

    @property
    def status(self) -> str:
        if self.ending is not None:
            return ABORTED if self.ending.reason == ABORTED else FINISHED
        return OPEN if self.open_seats else RUNNING

    @property
    def public(self) -> bool:
        """Whether anybody may take its people's seats without an invite."""
        people = [spec for spec in self.creation.seats if spec.kind == HUMAN]
        return bool(people) and all(spec.invite_hash is None for spec in people)

    @property
    def ai_may_act(self) -> bool:
        """Whether an AI ever decides in this game: it has an AI seat, or a person's
        seat is taken over when their move time runs out."""
        mode, _ = policy_parts(self.creation.timeout_policy)
        takeover = mode == TAKEOVER and self.creation.move_time_limit is not None
        return takeover or any(seat.kind == AI for seat in self.seats)

    @property
    def acting_ai(self) -> int | None:
        """The seat to act if the game runs and an AI decides for it, else None."""
        seat = self.state.to_act
        if self.status != RUNNING or self.seats[seat].ai_level is None:
            return None
        return seat

    @property
    def deadline(self) -> datetime | None:
        """When the waiting runs out: the move time of the person to act, or the join
        time of a game still open; None when nobody is waited for or there is no limit."""
        if self.status == OPEN:
            limit, since = self.creation.join_time_limit, self.created_at
        elif self.status == RUNNING and self.acting_ai is None:
            limit, since = self.creation.move_time_limit, self.waiting_since
            if limit is not None:  # a break of the person stops their clock
                paused = self.seats[self.state.to_act].paused_after(since)
                return since + timedelta(seconds=limit) + paused
        else:
            return None
        return None if limit is None else since + timedelta(seconds=limit)

    @property
    def on_timeout(self) -> str | None:
        """The timeout policy that applies if the seat to act lets its time run out
        now: the game's, or what its takeover policy comes to at this timeout (an AI's
        one decision before the limit; the final policy at it); None if no deadline
        runs for a seat."""
        if self.status != RUNNING or self.acting_ai is not None:
            return None
        creation = self.creation
        mode, level = policy_parts(creation.timeout_policy)
        if creation.move_time_limit is None or mode != TAKEOVER:
            return None if creation.move_time_limit is None else creation.timeout_policy
        if self.seats[self.state.to_act].timeouts_in_a_row + 1 < creation.timeout_limit:
            return f"{AI_DECIDES}:{level}"
        return FORFEIT if creation.final_timeout_policy == FORFEIT else creation.timeout_policy

    @property
    def result(self) -> Result | None:
        """The engine's scoring, once the game was played to its end."""
        return result(self.state) if is_over(self.state) else None


def fold(game_id: str, records: Iterable[Recorded], game: Game | None = None) -> Game:
    """The game after `records`, starting from `game` (None: from its creation).

    Raises RejectedEvent, naming game and version, for an event the rules reject.
    """
    run: list[Recorded] = []  # decisions in a row, not yet folded into `game`
    for record in records:
        if type(record.event) is DecisionMade and game is not None:
            run.append(record)
            continue
        if run:
            game, run = _decided(game_id, game, run), []
        game = apply_event(game_id, game, record)
    if run:
        game = _decided(game_id, game, run)
    if game is None:
        raise ValueError(f"game {game_id} has no events")
    return game


def _decided(game_id: str, game: Game, records: list[Recorded]) -> Game:
    """The game after decisions in a row (one, for `apply_event`), each checked in
    turn: the game runs, the seat is not taken over, the engine's rules. One `Game` at
    the end instead of one per decision: most of a game's events are decisions, and
    building a `Game` for each was near half of a fold's time; a `Replay` takes the
    state through them a quarter faster than `apply` after `apply`."""
    replay = Replay(game.state)
    timed_out = []  # the seats an AI decided for since their move time ran out
    decided = set()  # the seats that decided for themselves
    for n, record in enumerate(records):
        event = record.event
        try:
            if n == 0:
                _check_running(game)
            elif replay.to_act is None:  # over: said before the seat's check, as above
                raise GameOver("the game is over")
            if event.timeout_policy is not None:
                timed_out.append(event.seat)
            elif _taken_over(game, event.seat):
                raise SeatUnavailable(
                    f"an AI plays seat {event.seat} since its move time ran out:"
                    " take the seat back first"
                )
            else:
                decided.add(event.seat)
            replay.apply(event.decision, seat=event.seat)
        except (IllegalDecision, SeatRefusal) as error:
            raise RejectedEvent(game_id, record.version, error) from None
    state = replay.state()
    ending = _completed(state) if is_over(state) else None
    chain = game.chain
    for record in records:
        chain = link(chain, canonical_bytes(record))
    changes = {"state": state, "decisions": game.decisions + len(records), "ending": ending}
    changes["chain"] = chain
    if timed_out or any(game.seats[seat].timeouts_in_a_row for seat in decided):
        changes["seats"] = _counted(game.seats, timed_out, decided)
    return _changed(game, records[-1], changes)


def _counted(seats: tuple[Seat, ...], timed_out: list[int], decided: set[int]) -> tuple[Seat, ...]:
    """`seats`, each counting the decisions an AI made for it, once per time in
    `timed_out`; those in `decided` decided for themselves since: no timeout in a row."""
    return tuple(
        replace(
            seat,
            ai_decisions=seat.ai_decisions + timed_out.count(n),
            timeouts_in_a_row=0 if n in decided else seat.timeouts_in_a_row,
        )
        if n in timed_out or n in decided
        else seat
        for n, seat in enumerate(seats)
    )


def apply_event(game_id: str, game: Game | None, record: Recorded) -> Game:
    """The game after one more event; raises RejectedEvent if the rules reject it."""
    event = record.event
    if game is not None and type(event) is DecisionMade:
        return _decided(game_id, game, [record])
    try:
        if game is None or isinstance(event, GameCreated):
            return _created(game_id, game, record)
        changes = _changes(game, record)
    except (IllegalDecision, SeatRefusal) as error:
        raise RejectedEvent(game_id, record.version, error) from None
    return _changed(game, record, changes)


def _changed(game: Game, record: Recorded, changes: dict) -> Game:
    """`game` as of `record`, with the fields in `changes` changed. Made field by field,
    not by `dataclasses.replace`, which looks up every field's definition each time: a
    fold runs this once per event, or per run of decisions."""
    return Game(
        id=game.id,
        version=record.version,
        created_at=game.created_at,
        updated_at=record.at,
        waiting_since=changes.get("waiting_since", record.at),
        creation=game.creation,
        seats=changes.get("seats", game.seats),
        state=changes.get("state", game.state),
        decisions=changes.get("decisions", game.decisions),
        ending=changes.get("ending", game.ending),
        chain=changes.get("chain") or link(game.chain, canonical_bytes(record)),
    )


def canonical_bytes(record: Recorded) -> bytes:
    """The record's canonical bytes (`chain.py`): as read or written, else made from
    its event as the store would write it (a record made in memory)."""
    if record.canonical is not None:
        return record.canonical
    name, schema, data = encode(record.event)
    return canonical(record.version, str(record.id), name, schema, record.at.isoformat(), data)


def _created(game_id: str, game: Game | None, record: Recorded) -> Game:
    if game is not None or not isinstance(record.event, GameCreated) or record.version != 1:
        raise IllegalDecision("a game is created once, by its first event")
    creation = record.event
    return Game(
        id=game_id,
        version=1,
        created_at=record.at,
        updated_at=record.at,
        waiting_since=record.at,
        creation=creation,
        seats=tuple(Seat(spec.kind, spec.level, spec.invite_hash) for spec in creation.seats),
        state=new_game(creation.settings, creation.deck),
        chain=link(genesis(game_id), canonical_bytes(record)),
    )


def _changes(game: Game, record: Recorded) -> dict:
    """The fields of `game` that the event of `record` changes."""
    event = record.event
    if isinstance(event, SeatJoined):
        return {"seats": _join(game, event, record.at)}
    if isinstance(event, SeatRegistered):
        return {"seats": _register(game, event), "waiting_since": game.waiting_since}
    if isinstance(event, GameAborted):
        _check_not_over(game)
        return {"ending": Ending(ABORTED, None, ())}
    _check_running(game)
    if isinstance(event, GameResigned):
        if event.seat not in range(game.settings.players):
            raise IllegalDecision(f"there is no seat {event.seat}")
        return {"ending": _lost_by(game.settings, RESIGNED, event.seat)}
    if isinstance(event, TurnTimedOut):
        if event.seat != game.state.to_act:
            raise NotYourTurn(f"seat {event.seat} is not the seat to act")
        mode, level = policy_parts(event.policy)
        seat = game.seats[event.seat]
        counted = {"timeouts": seat.timeouts + 1, "timeouts_in_a_row": seat.timeouts_in_a_row + 1}
        changes = {"seats": _with_seat(game, event.seat, **counted)}
        if mode == FORFEIT:
            changes["ending"] = _lost_by(game.settings, FORFEITED, event.seat)
        elif mode == TAKEOVER:
            changes["seats"] = _with_seat(game, event.seat, takeover=level, **counted)
        return changes  # with `ai:<level>`, its AI makes this one decision: a DecisionMade
    if isinstance(event, BreakTaken):
        return {"seats": _break_taken(game, event, record.at), "waiting_since": game.waiting_since}
    if isinstance(event, BreakEnded):
        seat = _seat_at(game, event.seat)
        if seat is None or not seat.on_break(record.at):
            raise IllegalDecision(f"seat {event.seat} is not on a break")
        breaks = (*seat.breaks[:-1], (seat.breaks[-1][0], record.at))
        seats = _with_seat(game, event.seat, breaks=breaks)
        return {"seats": seats, "waiting_since": game.waiting_since}
    if isinstance(event, SeatReturned):
        if not _taken_over(game, event.seat):
            raise SeatUnavailable(f"no AI is playing seat {event.seat}")
        # Another person's move time runs on; the returning seat's own starts now.
        since = record.at if game.state.to_act == event.seat else game.waiting_since
        seats = _with_seat(game, event.seat, takeover=None, timeouts_in_a_row=0)
        return {"seats": seats, "waiting_since": since}
    raise TypeError(f"not an event: {event!r}")


def _break_taken(game: Game, event: BreakTaken, at: datetime) -> tuple[Seat, ...]:
    """The seats once `event`'s seat took its break at `at`: a person's seat, in a
    correspondence game, not on a break already, its move time not run out."""
    seat = _seat_at(game, event.seat)
    if seat is None or seat.kind != HUMAN or not seat.taken:
        raise IllegalDecision(f"seat {event.seat} is not a person's seat taken")
    limit = game.creation.move_time_limit
    if limit is None or limit < CORRESPONDENCE:
        raise IllegalDecision("a break stops a correspondence clock only: a day or more a move")
    if event.until <= at or seat.on_break(at):
        raise IllegalDecision(f"seat {event.seat} is on a break already, or this one is over")
    if game.state.to_act == event.seat and game.deadline is not None and game.deadline <= at:
        raise IllegalDecision(f"seat {event.seat}'s move time has run out")
    return _with_seat(
        game,
        event.seat,
        breaks=(*seat.breaks, (at, event.until)),
        break_days_used=event.days_used,
        break_days_allowed=event.days_allowed,
    )


def _seat_at(game: Game, seat: int) -> Seat | None:
    """The seat numbered `seat`, None if the game has none such."""
    return game.seats[seat] if seat in range(len(game.seats)) else None


def _taken_over(game: Game, seat: int) -> bool:
    return (found := _seat_at(game, seat)) is not None and found.takeover is not None


def _join(game: Game, event: SeatJoined, at: datetime) -> tuple[Seat, ...]:
    _check_not_over(game)
    if event.seat not in range(len(game.seats)):
        raise SeatUnavailable(f"there is no seat {event.seat}")
    seat = game.seats[event.seat]
    if seat.taken:
        raise SeatUnavailable(f"seat {event.seat} is taken")
    return _with_seat(
        game,
        event.seat,
        name=event.name,
        token_hash=event.token_hash,
        player=event.player,
        joined_at=at,
    )


def _register(game: Game, event: SeatRegistered) -> tuple[Seat, ...]:
    _check_not_over(game)
    seat = _seat_at(game, event.seat)
    if seat is None or seat.kind != HUMAN or seat.token_hash is None:
        raise SeatUnavailable(f"seat {event.seat} is not a person's seat taken")
    if seat.player is not None:
        raise SeatUnavailable(f"seat {event.seat} is a registered player's already")
    return _with_seat(game, event.seat, player=event.player)


def _with_seat(game: Game, seat: int, **changes) -> tuple[Seat, ...]:
    """The seats of `game`, `seat` changed."""
    return game.seats[:seat] + (replace(game.seats[seat], **changes),) + game.seats[seat + 1 :]


def _check_not_over(game: Game) -> None:
    if game.ending is not None:
        raise GameOver("the game is over")


def _check_running(game: Game) -> None:
    _check_not_over(game)
    if game.decisions == 0 and game.open_seats:  # a seat once taken stays taken
        seats = ", ".join(map(str, game.open_seats))
        raise GameNotStarted(f"the game has not started: seats {seats} are not taken")


def _completed(state: State) -> Ending:
    winner = result(state).winner
    return Ending(COMPLETED, None, () if winner is None else (winner,))


def _lost_by(settings: Settings, reason: str, seat: int) -> Ending:
    loser = settings.side_of(seat)
    winners = tuple(side for side in range(len(settings.sides)) if side != loser)
    return Ending(reason, seat, winners)
