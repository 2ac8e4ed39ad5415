"""The seal of an ended game, its export, and `verify_export` (service/games/export.py)."""

import base64

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
