"""Marshmallow schemas for every event type and schema version, and the upcasters.

An event is stored as its type name, its schema version and its data as JSON. Data of
an older schema version is upcast step by step to the current one when read; stored
events are never rewritten (docs/design.md, Events).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import orjson
from marshmallow import (
    Schema,
    ValidationError,
    fields,
    post_load,
    validate,
    validates_schema,
)

from service.domain import Card, ClaimError, Decision, Faction, Settings, check_deck
from service.domain.decisions import PLAY_DECISION, TAKE_DECISION, TAKE_DECK

from .model import (
    AI,
    AI_LEVELS,
    DEFAULT_TIMEOUT_POLICY,
    FINAL_TIMEOUT_POLICIES,
    HUMAN,
    MAX_TIMEOUT_LIMIT,
    TAKEOVER,
    TIMEOUT_POLICIES,
    BreakEnded,
    BreakTaken,
    DecisionMade,
    Event,
    GameAborted,
    GameCreated,
    GameResigned,
    SeatJoined,
    SeatRegistered,
    SeatReturned,
    SeatSpec,
    TurnTimedOut,
)

SEAT = validate.Range(min=0, max=3)
DAYS = validate.Range(min=0, max=366)  # of breaks in a year
SHA256_HEX = validate.Regexp(r"^[0-9a-f]{64}$", error="not a sha256 in hex")
SALT_HEX = validate.Regexp(r"^[0-9a-f]{64}$", error="not 32 bytes in hex")


class _Parsed(fields.Field):
    """A value stored as its text: a card, a faction or a decision."""

    def __init__(self, parse: Callable[[str], object], **kwargs):
        super().__init__(**kwargs)
        self.parse = parse

    def _serialize(self, value, attr, obj, **kwargs):
        return None if value is None else str(value)

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, str):
            raise ValidationError("not a string")
        try:
            return self.parse(value)
        except ClaimError as error:
            raise ValidationError(str(error)) from None


class _Cards(fields.Field):
    """A list of cards stored as a list of their texts: one field, not one per card
    (a deck is most of what a game's first event holds)."""

    def _serialize(self, value, attr, obj, **kwargs):
        return [str(card) for card in value]

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, list) or not all(isinstance(text, str) for text in value):
            raise ValidationError("not a list of cards")
        try:
            return [Card.parse(text) for text in value]
        except ClaimError as error:
            raise ValidationError(str(error)) from None


class _Hex(fields.Field):
    """Bytes stored as hex."""

    def _serialize(self, value, attr, obj, **kwargs):
        return value.hex()

    def _deserialize(self, value, attr, data, **kwargs):
        try:
            return bytes.fromhex(value)
        except (TypeError, ValueError):
            raise ValidationError("not hex") from None


class _Schema(Schema):
    """Loads into the dataclass named by `Meta.event`."""

    @post_load
    def _build(self, data, **kwargs):
        return self.Meta.event(**data)


class SettingsSchema(Schema):
    players = fields.Integer(strict=True, required=True)
    factions = fields.List(_Parsed(Faction.parse), required=True)
    first_leader = fields.Integer(strict=True, required=True)

    @post_load
    def _build(self, data, **kwargs):
        try:
            return Settings(**data)
        except ClaimError as error:
            raise ValidationError(str(error)) from None


class SeatSpecSchema(_Schema):
    class Meta:
        event = SeatSpec

    kind = fields.String(required=True, validate=validate.OneOf((HUMAN, AI)))
    level = fields.String(load_default=None, validate=validate.OneOf(AI_LEVELS), allow_none=True)
    invite_hash = fields.String(load_default=None, validate=SHA256_HEX, allow_none=True)

    @validates_schema
    def _level_for_ai_only(self, data, **kwargs):
        if (data["kind"] == AI) != (data.get("level") is not None):
            raise ValidationError("an AI seat has a level and a human seat has none")


class GameCreatedSchema(_Schema):
    class Meta:
        event = GameCreated

    settings = fields.Nested(SettingsSchema, required=True)
    seats = fields.List(fields.Nested(SeatSpecSchema), required=True)
    deck = _Cards(required=True)
    salt = _Hex(required=True)
    commitment = fields.String(required=True, validate=SHA256_HEX)
    move_time_limit = fields.Integer(
        strict=True, load_default=None, allow_none=True, validate=validate.Range(min=1)
    )
    timeout_policy = fields.String(required=True, validate=validate.OneOf(TIMEOUT_POLICIES))
    join_time_limit = fields.Integer(
        strict=True, required=True, allow_none=True, validate=validate.Range(min=1)
    )
    rated = fields.Boolean(required=True)
    timeout_limit = fields.Integer(
        strict=True, required=True, validate=validate.Range(min=1, max=MAX_TIMEOUT_LIMIT)
    )
    final_timeout_policy = fields.String(
        required=True, validate=validate.OneOf(FINAL_TIMEOUT_POLICIES)
    )

    @post_load
    def _build(self, data, **kwargs):
        settings = data["settings"]
        if len(data["seats"]) != settings.players:
            raise ValidationError(f"{settings.players} players need {settings.players} seats")
        try:
            deck = check_deck(settings.factions, data["deck"])
        except ClaimError as error:
            raise ValidationError(str(error)) from None
        return GameCreated(**{**data, "seats": tuple(data["seats"]), "deck": deck})


class SeatJoinedSchema(_Schema):
    class Meta:
        event = SeatJoined

    seat = fields.Integer(strict=True, required=True, validate=SEAT)
    name = fields.String(required=True, validate=validate.Length(min=1, max=64))
    token_hash = fields.String(required=True, validate=SHA256_HEX)
    player = fields.String(required=True, allow_none=True, validate=validate.Length(max=64))


class SeatRegisteredSchema(_Schema):
    class Meta:
        event = SeatRegistered

    seat = fields.Integer(strict=True, required=True, validate=SEAT)
    player = fields.String(required=True, validate=validate.Length(min=1, max=64))
    player_salt = fields.String(required=True, allow_none=True, validate=SALT_HEX)


class DecisionMadeSchema(_Schema):
    class Meta:
        event = DecisionMade

    seat = fields.Integer(strict=True, required=True, validate=SEAT)
    decision = _Parsed(Decision.parse, required=True)
    timeout_policy = fields.String(
        load_default=None, allow_none=True, validate=validate.OneOf(TIMEOUT_POLICIES)
    )


class GameResignedSchema(_Schema):
    class Meta:
        event = GameResigned

    seat = fields.Integer(strict=True, required=True, validate=SEAT)


class TurnTimedOutSchema(_Schema):
    class Meta:
        event = TurnTimedOut

    seat = fields.Integer(strict=True, required=True, validate=SEAT)
    policy = fields.String(required=True, validate=validate.OneOf(TIMEOUT_POLICIES))


class SeatReturnedSchema(_Schema):
    class Meta:
        event = SeatReturned

    seat = fields.Integer(strict=True, required=True, validate=SEAT)


class BreakTakenSchema(_Schema):
    class Meta:
        event = BreakTaken

    seat = fields.Integer(strict=True, required=True, validate=SEAT)
    until = fields.AwareDateTime(required=True, format="iso")
    days_used = fields.Integer(strict=True, required=True, validate=DAYS)
    days_allowed = fields.Integer(strict=True, required=True, validate=DAYS)


class BreakEndedSchema(_Schema):
    class Meta:
        event = BreakEnded

    seat = fields.Integer(strict=True, required=True, validate=SEAT)


class GameAbortedSchema(_Schema):
    class Meta:
        event = GameAborted

    reason = fields.String(required=True, validate=validate.Length(min=1, max=500))


@dataclass(frozen=True)
class EventType:
    """One event type: its stored name, current schema version, schema and upcasters.

    `upcasters[v]` turns data of schema version v into data of version v + 1.
    """

    name: str
    version: int
    schema: Schema
    upcasters: dict[int, Callable[[dict], dict]]


def _game_created_v1(data: dict) -> dict:
    # Version 2 added the timeout policy and the join time limit; version 1 games had
    # the default policy and no join time limit.
    return {**data, "timeout_policy": DEFAULT_TIMEOUT_POLICY, "join_time_limit": None}


def _game_created_v2(data: dict) -> dict:
    # Version 3 added whether the game is rated; earlier games were not.
    return {**data, "rated": False}


def _game_created_v3(data: dict) -> dict:
    # Version 4 added the timeouts in a row a takeover policy forgives and what follows
    # them; before, the first timeout had the AI play the seat to the end.
    return {**data, "timeout_limit": 1, "final_timeout_policy": TAKEOVER}


def _seat_joined_v1(data: dict) -> dict:
    # Version 2 added the registered player a seat belongs to; version 1 seats had none.
    return {**data, "player": None}


def _seat_registered_v1(data: dict) -> dict:
    # Version 2 added the salt that keys the chain's digest of the player; version 1
    # had none, and keeps the digest it was chained with (chain.py).
    return {**data, "player_salt": None}


EVENT_TYPES: dict[type, EventType] = {
    GameCreated: EventType(
        "GameCreated",
        4,
        GameCreatedSchema(),
        {1: _game_created_v1, 2: _game_created_v2, 3: _game_created_v3},
    ),
    SeatJoined: EventType("SeatJoined", 2, SeatJoinedSchema(), {1: _seat_joined_v1}),
    SeatRegistered: EventType(
        "SeatRegistered", 2, SeatRegisteredSchema(), {1: _seat_registered_v1}
    ),
    DecisionMade: EventType("DecisionMade", 1, DecisionMadeSchema(), {}),
    GameResigned: EventType("GameResigned", 1, GameResignedSchema(), {}),
    TurnTimedOut: EventType("TurnTimedOut", 1, TurnTimedOutSchema(), {}),
    SeatReturned: EventType("SeatReturned", 1, SeatReturnedSchema(), {}),
    BreakTaken: EventType("BreakTaken", 1, BreakTakenSchema(), {}),
    BreakEnded: EventType("BreakEnded", 1, BreakEndedSchema(), {}),
    GameAborted: EventType("GameAborted", 1, GameAbortedSchema(), {}),
}
BY_NAME = {event_type.name: event_type for event_type in EVENT_TYPES.values()}


def dump(event: Event) -> tuple[str, dict]:
    """The event's type name and its data as plain values."""
    event_type = EVENT_TYPES.get(type(event))
    if event_type is None:
        raise ValidationError(f"not an event: {type(event).__name__}")
    return event_type.name, event_type.schema.dump(event)


def encode(event: Event) -> tuple[str, int, str]:
    """The event's type name, schema version and data as JSON.

    Raises ValidationError for an event that its own schema would not read back.
    """
    name, data = dump(event)
    event_type = BY_NAME[name]
    event_type.schema.load(data)  # never write what cannot be read back
    return name, event_type.version, json.dumps(data, separators=(",", ":"))


def decode(name: str, version: int, data: str | bytes) -> Event:
    """The event stored as `encode` wrote it, upcast from an older schema version.

    Raises ValidationError, with what is wrong, for anything that does not fit. Data
    that fits is read by the fast path (`FAST`); anything the fast path is not sure
    of, by the schema, which has the last word and the words for what is wrong.
    """
    if name == "DecisionMade":
        return decision_made_read(version, data)
    return _decode(name, version, data)


@lru_cache(maxsize=8192)
def decision_made_read(version: int, data: str | bytes) -> Event:
    """A decision's data, read once: events are immutable values, and a decision's
    data is one of a few thousand (seat, decision, policy), the same in every game.
    Most of a game's events are decisions; a miss costs what reading it costs."""
    return _decode("DecisionMade", version, data)


def _decode(name: str, version: int, data: str | bytes) -> Event:
    event_type = BY_NAME.get(name)
    if event_type is None:
        raise ValidationError(f"unknown event type {name!r}")
    if not 1 <= version <= event_type.version:
        raise ValidationError(f"unknown version {version} of {name}")
    try:
        fields_ = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise ValidationError("data is not JSON") from None
    if not isinstance(fields_, dict):
        raise ValidationError("data is not an object")
    for old in range(version, event_type.version):
        fields_ = event_type.upcasters[old](fields_)
    fast = FAST.get(name)  # the rare events (a break) have none
    event = fast(fields_) if fast is not None else None
    return event if event is not None else event_type.schema.load(fields_)


# The fast path: one function per event type that builds the event from data that
# fits its schema exactly, and answers None for anything else (an unknown key, a
# wrong type, a value out of range...), which the schema then reads or refuses. It
# never accepts what the schema refuses (tests/events/test_codec.py checks both ways).

DECISIONS = {
    str(decision): decision
    for decision in (*PLAY_DECISION.values(), *TAKE_DECISION.values(), TAKE_DECK)
}
POLICIES = frozenset(TIMEOUT_POLICIES)
HEX64 = re.compile(r"[0-9a-f]{64}")


def _seat(value) -> bool:
    return type(value) is int and 0 <= value <= 3


def _fits(data: dict, required: frozenset, optional: frozenset = frozenset()) -> bool:
    keys = data.keys()
    return required <= keys and keys <= required | optional


def _text(value, longest: int) -> bool:
    return type(value) is str and 1 <= len(value) <= longest


def _limit(value) -> bool:
    return value is None or (type(value) is int and value >= 1)


DECISION_KEYS = frozenset({"seat", "decision"}), frozenset({"timeout_policy"})


def _policy(value) -> bool:
    return type(value) is str and value in POLICIES


def _decision_made(data: dict) -> DecisionMade | None:
    if not (_fits(data, *DECISION_KEYS) and _seat(data["seat"])):
        return None
    text, policy = data["decision"], data.get("timeout_policy")
    decision = DECISIONS.get(text) if type(text) is str else None
    if decision is None or not (policy is None or _policy(policy)):
        return None
    return DecisionMade(data["seat"], decision, policy)


JOINED_KEYS = frozenset({"seat", "name", "token_hash", "player"})


def _seat_joined(data: dict) -> SeatJoined | None:
    if not (_fits(data, JOINED_KEYS) and _seat(data["seat"]) and _text(data["name"], 64)):
        return None
    player, token_hash = data["player"], data["token_hash"]
    if not (type(token_hash) is str and HEX64.fullmatch(token_hash)):
        return None
    if player is not None and not (type(player) is str and len(player) <= 64):
        return None
    return SeatJoined(data["seat"], data["name"], token_hash, player)


REGISTERED_KEYS = frozenset({"seat", "player", "player_salt"})


def _seat_registered(data: dict) -> SeatRegistered | None:
    if not (_fits(data, REGISTERED_KEYS) and _seat(data["seat"]) and _text(data["player"], 64)):
        return None
    salt = data["player_salt"]
    if salt is not None and not (type(salt) is str and HEX64.fullmatch(salt)):
        return None
    return SeatRegistered(data["seat"], data["player"], salt)


def _one_seat(kind: type):
    keys = frozenset({"seat"})

    def read(data: dict):
        return kind(data["seat"]) if _fits(data, keys) and _seat(data["seat"]) else None

    return read


TIMED_OUT_KEYS = frozenset({"seat", "policy"})


def _turn_timed_out(data: dict) -> TurnTimedOut | None:
    if _fits(data, TIMED_OUT_KEYS) and _seat(data["seat"]) and _policy(data["policy"]):
        return TurnTimedOut(data["seat"], data["policy"])
    return None


def _game_aborted(data: dict) -> GameAborted | None:
    if _fits(data, frozenset({"reason"})) and _text(data["reason"], 500):
        return GameAborted(data["reason"])
    return None


CREATED_KEYS = (
    frozenset(
        {"settings", "seats", "deck", "salt", "commitment", "timeout_policy", "join_time_limit"}
        | {"rated", "timeout_limit", "final_timeout_policy"}
    ),
    frozenset({"move_time_limit"}),
)
SETTINGS_KEYS = frozenset({"players", "factions", "first_leader"})
SPEC_KEYS = frozenset({"kind"}), frozenset({"level", "invite_hash"})


def _spec(data) -> SeatSpec | None:
    if not (type(data) is dict and _fits(data, *SPEC_KEYS)):
        return None
    kind, level, invite_hash = data["kind"], data.get("level"), data.get("invite_hash")
    if type(kind) is not str or kind not in (HUMAN, AI) or (kind == AI) != (level is not None):
        return None
    if level is not None and not (type(level) is str and level in AI_LEVELS):
        return None
    if invite_hash is not None and not (type(invite_hash) is str and HEX64.fullmatch(invite_hash)):
        return None
    return SeatSpec(kind, level, invite_hash)


def _game_created(data: dict) -> GameCreated | None:
    if not _fits(data, *CREATED_KEYS):
        return None
    settings, seats, deck, salt = data["settings"], data["seats"], data["deck"], data["salt"]
    if not (type(settings) is dict and _fits(settings, SETTINGS_KEYS)):
        return None
    if not (type(seats) is list and type(deck) is list and type(salt) is str):
        return None
    if not all(type(code) is str for code in deck) or type(settings["factions"]) is not list:
        return None
    if not (type(settings["players"]) is int and type(settings["first_leader"]) is int):
        return None
    commitment, policy = data["commitment"], data["timeout_policy"]
    if not (type(commitment) is str and HEX64.fullmatch(commitment) and _policy(policy)):
        return None
    move, join, rated = data.get("move_time_limit"), data["join_time_limit"], data["rated"]
    if not (_limit(move) and _limit(join) and type(rated) is bool):
        return None
    limit, final = data["timeout_limit"], data["final_timeout_policy"]
    if not (type(limit) is int and 1 <= limit <= MAX_TIMEOUT_LIMIT):
        return None
    if not (type(final) is str and final in FINAL_TIMEOUT_POLICIES):
        return None
    specs = tuple(_spec(seat) for seat in seats)
    if None in specs or len(specs) != settings["players"]:
        return None
    try:
        factions = [Faction.parse(code) for code in settings["factions"]]
        chosen = Settings(settings["players"], factions, settings["first_leader"])
        cards = check_deck(chosen.factions, deck)
        salt = bytes.fromhex(salt)
    except (ClaimError, TypeError, ValueError):
        return None
    return GameCreated(
        chosen, specs, cards, salt, commitment, move, policy, join, rated, limit, final
    )


FAST: dict[str, Callable[[dict], Event | None]] = {
    "GameCreated": _game_created,
    "SeatJoined": _seat_joined,
    "SeatRegistered": _seat_registered,
    "DecisionMade": _decision_made,
    "GameResigned": _one_seat(GameResigned),
    "TurnTimedOut": _turn_timed_out,
    "SeatReturned": _one_seat(SeatReturned),
    "BreakEnded": _one_seat(BreakEnded),
    "GameAborted": _game_aborted,
}
