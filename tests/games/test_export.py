"""The seal of an ended game, its export, and `verify_export` (service/games/export.py)."""

import base64
import hashlib

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service import games
from service.events import PublicKey, Seal
from service.events.chain import canonical, genesis, link
from service.games import GameNotOver, verify_export
from tests.games.factories import a_game, joined, moved


@pytest.fixture
def ended(claim):
    game = a_game(claim, kinds=("human", "human"))
    return moved(claim, game.id, joined(claim, game))


@pytest.fixture
def exported(claim, ended):
    return games.export(claim, ended.id)


@pytest.fixture
def keys(claim):
    return games.public_keys(claim)


def test_a_game_is_sealed_with_its_last_head_when_it_ends(claim, ended, keys):
    sealed = claim.seals.get(ended.id)
    assert (sealed.version, sealed.hash) == ended.head
    assert sealed.signed_by({key.key_id: key for key in keys})


def test_a_running_game_is_not_exported(claim):
    game = a_game(claim, kinds=("human", "human"))
    moved(claim, game.id, joined(claim, game), moves=2)
    assert claim.seals.get(game.id) is None
    with pytest.raises(GameNotOver):
        games.export(claim, game.id)


def test_an_export_has_every_event_with_its_hash_then_the_seal(ended, exported):
    lines = [orjson.loads(line) for line in exported]
    assert [line["version"] for line in lines[:-1]] == list(range(1, ended.version + 1))
    assert lines[-2]["hash"] == ended.head.hash
    assert lines[-1]["seal"]["hash"] == ended.head.hash


def test_an_export_holds_no_token_invite_or_player(claim, ended, exported):
    text = b"".join(exported)
    for seat in ended.seats:
        assert seat.token_hash.encode() not in text
    assert all(spec.invite_hash.encode() not in text for spec in ended.creation.seats)


def test_a_good_export_is_verified(exported, keys):
    verdict = verify_export(exported, keys)
    assert verdict.ok, verdict.reason


def test_one_byte_of_one_event_changed_is_refused_on_its_line(exported, keys):
    lines = list(exported)
    at = lines[4].index(b'"at":"') + len(b'"at":"2')  # a digit of the year: 2026 -> 2126
    lines[4] = lines[4][:at] + bytes([lines[4][at] ^ 1]) + lines[4][at + 1 :]
    verdict = verify_export(lines, keys)
    assert (verdict.ok, verdict.line) == (False, 5)


def test_a_reordered_line_is_refused(exported, keys):
    lines = list(exported)
    lines[3], lines[4] = lines[4], lines[3]
    assert verify_export(lines, keys).line == 4


def test_a_dropped_line_is_refused(exported, keys):
    lines = list(exported)
    del lines[5]
    assert verify_export(lines, keys).line == 6


def test_the_last_event_dropped_with_its_seal_kept_is_refused(exported, keys):
    lines = exported[:-2] + exported[-1:]
    assert verify_export(lines, keys).line == len(lines)


def test_a_seal_signed_by_another_key_is_refused(exported, keys):
    seal = orjson.loads(exported[-1])["seal"]
    other = Ed25519PrivateKey.generate()
    message = Seal.message(seal["game_id"], seal["version"], seal["hash"])
    seal["signature"] = base64.b64encode(other.sign(message)).decode()
    lines = [*exported[:-1], orjson.dumps({"seal": seal})]
    verdict = verify_export(lines, keys)
    assert (verdict.ok, verdict.line) == (False, len(lines))
    assert verify_export(lines, [PublicKey.of(other.public_key())]).line == len(lines)


def test_a_seal_of_another_version_is_refused(exported, keys):
    seal = orjson.loads(exported[-1])["seal"]
    seal["version"] -= 1
    lines = [*exported[:-1], orjson.dumps({"seal": seal})]
    assert verify_export(lines, keys).line == len(lines)


def test_a_decision_against_the_rules_with_a_good_chain_and_seal_is_refused(claim, exported, keys):
    """A forger with the key still cannot pass an illegal move: the rules replay."""
    game_id = orjson.loads(exported[-1])["seal"]["game_id"]
    lines = [orjson.loads(line) for line in exported[:-1]]
    first = next(n for n, line in enumerate(lines) if line["type"] == "DecisionMade")
    lines[first]["data"]["decision"] = "take deck"  # no prize is taken before a trick
    chain = genesis(game_id)
    for line in lines:
        fields = (line[key] for key in ("version", "id", "type", "v", "at", "data"))
        chain = link(chain, canonical(*fields))
        line["hash"] = chain.hex()
    signature = claim.signing_key.sign(Seal.message(game_id, len(lines), chain.hex()))
    seal = Seal(game_id, len(lines), chain.hex(), keys[0].key_id, signature)
    forged = [orjson.dumps(line) for line in lines] + [orjson.dumps({"seal": seal.body()})]
    assert verify_export(forged, keys).line == first + 1


def relined(exported: list[bytes], number: int, change) -> list[bytes]:
    """`exported` with line `number` (from 1) changed by `change(parsed)`, or replaced
    by what it answers."""
    parsed = orjson.loads(exported[number - 1])
    parsed = change(parsed) or parsed
    return [*exported[: number - 1], orjson.dumps(parsed), *exported[number:]]


def without(field):
    return lambda line: line.pop(field) and None


def setting(field, value):
    return lambda line: line.update({field: value})


NOT_EVENTS = {
    "a list": (lambda line: [1, 2], "not an object but a list"),
    "no version": (without("version"), "no 'version'"),
    "an extra field": (setting("signed_by", "the server"), "an unknown field 'signed_by'"),
    "an id that is a number": (setting("id", 5), "'id' is an integer, not a string"),
    "a version that is true": (
        setting("version", True),
        "'version' is true or false, not an integer",
    ),
    "a type that is a list": (setting("type", ["x"]), "'type' is a list, not a string"),
    "a schema version as text": (setting("v", "1"), "'v' is a string, not an integer"),
    "data that is a list": (setting("data", []), "'data' is a list, not an object"),
    "an unknown type": (setting("type", "CardsBurnt"), "unknown event type 'CardsBurnt'"),
    "an unknown schema version": (setting("v", 9), "unknown version 9 of DecisionMade"),
    "a time that is none": (setting("at", "yesterday"), "Invalid isoformat string: 'yesterday'"),
    "data without its seat": (
        lambda line: line["data"].pop("seat") and None,
        "its data does not fit DecisionMade: seat: Missing data for required field.",
    ),
}


@pytest.mark.parametrize("case", NOT_EVENTS, ids=list(NOT_EVENTS))
def test_a_line_that_is_no_event_is_refused_saying_why_in_words(exported, keys, case):
    """What fails 11: the reasons were Python's own (`list indices must be integers`,
    `'version'`); and an extra field, which the chain does not cover, passed."""
    change, reason = NOT_EVENTS[case]
    number = next(n for n, line in enumerate(exported, 1) if b'"DecisionMade"' in line)
    verdict = verify_export(relined(exported, number, change), keys)
    assert (verdict.line, verdict.reason) == (number, f"not an event of version {number}: {reason}")


NOT_SEALS = {
    "a field beside it": (setting("signed", True), "an unknown field 'signed' beside it"),
    "a field in it": (
        lambda line: line["seal"].update(note="mine") and None,
        "an unknown field 'note'",
    ),
    "a list": (setting("seal", []), "not an object but a list"),
    "a version as text": (
        lambda line: line["seal"].update(version="3") and None,
        "'version' is a string, not an integer",
    ),
    "a signature that is not base64": (
        lambda line: line["seal"].update(signature="%%") and None,
        "its signature is not base64",
    ),
}


@pytest.mark.parametrize("case", NOT_SEALS, ids=list(NOT_SEALS))
def test_a_seal_line_that_is_no_seal_is_refused_saying_why_in_words(exported, keys, case):
    change, reason = NOT_SEALS[case]
    verdict = verify_export(relined(exported, len(exported), change), keys)
    assert (verdict.line, verdict.reason) == (len(exported), f"not a seal: {reason}")


def test_a_good_export_is_verified_naming_the_key_that_sealed_it(ended, exported, keys):
    verdict = verify_export(exported, keys)
    held = f"{ended.version} events, chain, seal, deck and rules hold"
    assert verdict.reason == f"game {ended.id}: {held}; sealed by key {keys[0].key_id}"


def test_an_export_does_not_tell_whose_seat_a_registered_one_is(claim, keys):
    """What fails 9: a `SeatRegistered`'s digest was sha256('{"player":"<id>"}'), and
    player ids are public: anyone matched an unrated game's seats to accounts."""
    game = a_game(claim, kinds=("human", "human"))
    tokens = joined(claim, game)  # without a player key
    players = [games.register(claim, name) for name in ("Ann", "Bo")]
    for seat, (_, key) in enumerate(players):
        games.register_seat(claim, key, game.id, seat, tokens[seat])
    ended = moved(claim, game.id, tokens)
    exported = games.export(claim, ended.id)
    text = b"".join(exported)
    for player, _ in players:
        for form in ({"player": player.id}, {"player": player.id, "player_salt": None}):
            assert hashlib.sha256(orjson.dumps(form)).hexdigest().encode() not in text
        assert player.id.encode() not in text
    salts = [record.event.player_salt for record in claim.store.read(game.id)[3:5]]
    assert all(salt.encode() not in text and len(salt) == 64 for salt in salts)
    assert salts[0] != salts[1]  # drawn at random, each its own
    assert verify_export(exported, keys).ok
