"""Event schemas: every type round-trips, old versions upcast, bad data is refused."""

import json
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from service.domain import Decision
from service.events import (
    BreakEnded,
    BreakTaken,
    DecisionMade,
    GameAborted,
    GameResigned,
    SeatJoined,
    SeatRegistered,
    SeatReturned,
    SeatSpec,
    TurnTimedOut,
)
from service.events.codec import (
    BY_NAME,
    EVENT_TYPES,
    FAST,
    _game_created_v1,
    _game_created_v2,
    _game_created_v3,
    decode,
    encode,
)
from tests.events.factories import TOKEN_HASH, a_creation

EXAMPLES = [
    a_creation(players=2, kinds=["human", "greedy"], move_time_limit=3600),
    a_creation(players=3),
    a_creation(players=4, kinds=["human"] * 4),
    replace(a_creation(players=3, kinds=["human", "expert", "human"]), rated=True),
    SeatJoined(seat=1, name="Ann", token_hash=TOKEN_HASH),
    SeatJoined(seat=0, name="Bo", token_hash=TOKEN_HASH, player="p-17"),
    SeatRegistered(seat=1, player="p-17", player_salt="5a" * 32),
    DecisionMade(seat=0, decision=Decision.parse("play GO3")),
    DecisionMade(seat=2, decision=Decision.parse("take deck"), timeout_policy="ai:greedy"),
    GameResigned(seat=1),
    TurnTimedOut(seat=0, policy="forfeit"),
    TurnTimedOut(seat=1, policy="takeover:expert"),
    SeatReturned(seat=1),
    BreakTaken(seat=0, until=datetime(2026, 12, 24, tzinfo=UTC), days_used=7, days_allowed=30),
    BreakEnded(seat=0),
    GameAborted(reason="seats not taken in time"),
]


@pytest.mark.parametrize("event", EXAMPLES, ids=lambda event: type(event).__name__)
def test_every_event_reads_back_as_it_was_written(event):
    assert decode(*encode(event)) == event


def test_every_event_type_has_an_example():
    assert {type(event) for event in EXAMPLES} == set(EVENT_TYPES)


def test_an_event_is_stored_as_type_schema_version_and_json_data():
    assert encode(DecisionMade(1, Decision.parse("take KN5"))) == (
        "DecisionMade",
        1,
        '{"seat":1,"decision":"take KN5","timeout_policy":null}',
    )


def test_a_version_1_seat_joined_is_upcast_to_a_seat_without_a_player():
    data = json.dumps({"seat": 1, "name": "Ann", "token_hash": TOKEN_HASH})
    assert decode("SeatJoined", 1, data) == SeatJoined(1, "Ann", TOKEN_HASH, player=None)


def test_a_version_1_seat_registered_is_upcast_to_a_seat_without_a_salt():
    data = json.dumps({"seat": 1, "player": "p-17"})
    assert decode("SeatRegistered", 1, data) == SeatRegistered(1, "p-17", player_salt=None)


def test_a_seat_registered_is_written_with_its_salt_as_version_2():
    name, version, data = encode(SeatRegistered(0, "p-17", "5a" * 32))
    assert (name, version, json.loads(data)["player_salt"]) == ("SeatRegistered", 2, "5a" * 32)


def test_a_version_1_creation_is_upcast_to_the_default_policy_and_no_join_limit():
    creation = a_creation(players=2, move_time_limit=60)
    name, _, data = encode(creation)
    fields = json.loads(data)
    del fields["timeout_policy"], fields["join_time_limit"], fields["rated"]
    del fields["timeout_limit"], fields["final_timeout_policy"]
    old = decode(name, 1, json.dumps(fields))
    assert old == replace(
        creation, timeout_policy="ai:greedy", join_time_limit=None, timeout_limit=1
    )


def test_a_version_2_creation_is_upcast_to_an_unrated_game():
    creation = replace(a_creation(players=2, move_time_limit=60), rated=True)
    name, version, data = encode(creation)
    fields = json.loads(data)
    del fields["rated"], fields["timeout_limit"], fields["final_timeout_policy"]
    assert version == 4
    assert decode(name, 2, json.dumps(fields)) == replace(creation, rated=False, timeout_limit=1)


def test_a_version_3_takeover_game_keeps_taking_the_seat_over_at_its_first_timeout():
    """Before there was a limit, a takeover policy had the AI play the seat to the end
    at the first timeout: a game made then goes on so."""
    creation = replace(a_creation(players=2, move_time_limit=60), timeout_policy="takeover:greedy")
    name, _, data = encode(creation)
    fields = json.loads(data)
    del fields["timeout_limit"], fields["final_timeout_policy"]
    old = decode(name, 3, json.dumps(fields))
    assert (old.timeout_limit, old.final_timeout_policy) == (1, "takeover")


def test_the_current_creation_needs_a_timeout_limit_in_range_and_a_final_policy():
    name, version, data = encode(a_creation())
    fields = json.loads(data)
    for wrong in ({"timeout_limit": 0}, {"timeout_limit": 11}, {"timeout_limit": "3"}):
        with pytest.raises(ValidationError, match="timeout_limit"):
            decode(name, version, json.dumps({**fields, **wrong}))
    with pytest.raises(ValidationError, match="final_timeout_policy"):
        decode(name, version, json.dumps({**fields, "final_timeout_policy": "ai:greedy"}))


def test_the_current_creation_needs_its_rated_field_as_a_boolean():
    name, version, data = encode(a_creation())
    fields = json.loads(data)
    for wrong in ({"rated": "maybe"}, {"rated": None}, {}):
        text = json.dumps({**{k: v for k, v in fields.items() if k != "rated"}, **wrong})
        with pytest.raises(ValidationError, match="rated"):
            decode(name, version, text)


def test_the_current_seat_joined_needs_its_player_field():
    data = json.dumps({"seat": 1, "name": "Ann", "token_hash": TOKEN_HASH})
    with pytest.raises(ValidationError, match="player"):
        decode("SeatJoined", 2, data)


@pytest.mark.parametrize(
    ("name", "version", "data", "problem"),
    [
        ("CardsShuffled", 1, "{}", "unknown event type"),
        ("DecisionMade", 2, "{}", "unknown version 2"),
        ("DecisionMade", 0, "{}", "unknown version 0"),
        ("DecisionMade", 1, "{not json", "not JSON"),
        ("DecisionMade", 1, "[1, 2]", "not an object"),
        ("DecisionMade", 1, '{"seat": 0}', "decision"),
        ("DecisionMade", 1, '{"seat": 0, "decision": "play XX9"}', "unknown card"),
        ("DecisionMade", 1, '{"seat": "0", "decision": "play GO3"}', "seat"),
        ("DecisionMade", 1, '{"seat": 4, "decision": "play GO3"}', "seat"),
        ("DecisionMade", 1, '{"seat": 0, "decision": "play GO3", "extra": 1}', "extra"),
        ("TurnTimedOut", 1, '{"seat": 0, "policy": "ai:godlike"}', "policy"),
        ("SeatRegistered", 1, '{"seat": 0, "player": ""}', "player"),
        ("SeatRegistered", 1, '{"seat": 0, "player": null}', "player"),
        ("SeatRegistered", 1, '{"seat": 0}', "player"),
        ("SeatRegistered", 2, '{"seat": 0, "player": "p-17"}', "player_salt"),
        ("SeatRegistered", 2, '{"seat": 0, "player": "p-17", "player_salt": "ab"}', "32 bytes"),
        ("GameAborted", 1, '{"reason": ""}', "reason"),
    ],
)
def test_data_that_does_not_fit_its_schema_is_refused(name, version, data, problem):
    with pytest.raises(ValidationError, match=problem):
        decode(name, version, data)


def _created_data(**changes) -> str:
    _, _, data = encode(a_creation(players=2))
    return json.dumps({**json.loads(data), **changes})


def test_a_creation_whose_deck_is_not_its_factions_cards_is_refused():
    deck = json.loads(_created_data())["deck"]
    with pytest.raises(ValidationError, match="deck"):
        decode("GameCreated", 1, _created_data(deck=deck[:-1] + deck[:1]))


def test_a_creation_with_a_seat_per_player_only():
    with pytest.raises(ValidationError, match="2 players need 2 seats"):
        decode("GameCreated", 1, _created_data(seats=[{"kind": "human"}]))


@pytest.mark.parametrize(
    "seat", [{"kind": "ai"}, {"kind": "human", "level": "greedy"}, {"kind": "robot"}]
)
def test_an_ai_seat_has_a_level_and_a_human_seat_none(seat):
    with pytest.raises(ValidationError):
        decode("GameCreated", 1, _created_data(seats=[seat, {"kind": "human"}]))


def test_a_creation_with_illegal_factions_is_refused():
    settings = {"players": 2, "factions": ["GO", "GO", "UN", "DO", "DW"], "first_leader": 0}
    with pytest.raises(ValidationError, match="a faction appears twice"):
        decode("GameCreated", 1, _created_data(settings=settings))


def test_encode_refuses_an_event_its_schema_would_not_read_back():
    with pytest.raises(ValidationError, match="seat"):
        encode(DecisionMade(seat=7, decision=Decision.parse("play GO3")))
    with pytest.raises(ValidationError, match="invite_hash"):
        encode(replace(a_creation(), seats=(SeatSpec("human", invite_hash="x"),) * 2))


def test_encode_refuses_what_is_not_an_event():
    with pytest.raises(ValidationError, match="not an event"):
        encode("play GO3")


@pytest.mark.parametrize("deck", [["GO1", "XX9"], ["GO1", 7], "GO1"])
def test_a_deck_that_is_not_a_list_of_cards_is_refused(deck):
    with pytest.raises(ValidationError) as error:
        decode("GameCreated", 1, _created_data(deck=deck))
    assert "deck" in error.value.messages


def _stored(event) -> tuple[str, dict]:
    name, _, data = encode(event)
    return name, json.loads(data)


# A break is rare: the schema alone reads it.
FAST_EXAMPLES = [event for event in EXAMPLES if encode(event)[0] in FAST]


def test_only_the_rare_events_have_no_fast_path():
    assert set(BY_NAME) - set(FAST) == {"BreakTaken"}


@pytest.mark.parametrize("event", FAST_EXAMPLES, ids=lambda event: type(event).__name__)
def test_the_fast_path_reads_every_example_as_the_schema_does(event):
    name, fields = _stored(event)
    fast = FAST[name](fields)
    assert fast is not None, "read by the schema only: the fast path missed it"
    assert fast == BY_NAME[name].schema.load(fields) == event


def test_old_versions_are_upcast_then_read_by_the_fast_path():
    creation = a_creation(players=2, move_time_limit=60)
    name, fields = _stored(creation)
    del fields["timeout_policy"], fields["join_time_limit"], fields["rated"]
    del fields["timeout_limit"], fields["final_timeout_policy"]
    upcast = _game_created_v3(_game_created_v2(_game_created_v1(fields)))
    old = replace(creation, timeout_policy="ai:greedy", join_time_limit=None, timeout_limit=1)
    assert FAST[name](upcast) == old


ODD_VALUES = [
    True, False, 0, 1, 3, 4, -1, 1.0, 17.5, 2**40, "", " ", "x" * 65, "x" * 501, None, [], {},
    "play GO3", "take deck", "play  GO3", "ai:greedy", "forfeit", "human", "ai", "expert",
    "ab" * 32, "AB" * 32, "ab" * 32 + "\n", "GO3", ["GO3"], {"kind": "human"},
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(
    example=st.sampled_from(FAST_EXAMPLES),
    changes=st.lists(
        st.tuples(st.integers(0, 20), st.sampled_from(["set", "drop", "add"]), st.integers(0, 30)),
        max_size=3,
    ),
)
def test_the_fast_path_never_reads_what_the_schema_refuses_or_reads_otherwise(example, changes):
    name, fields = _stored(example)
    for at, how, value in changes:
        target = fields
        if at % 3 == 0 and isinstance(fields.get("settings"), dict):
            target = fields["settings"]  # the nested settings too
        keys = sorted(target)
        key = keys[at % len(keys)] if keys else "seat"
        if how == "set":
            target[key] = ODD_VALUES[value]
        elif how == "drop":
            target.pop(key, None)
        else:
            target[f"unknown{value}"] = ODD_VALUES[value]
    fast = FAST[name](fields)
    if fast is None:
        return  # the schema has the last word
    assert fast == BY_NAME[name].schema.load(fields)
