"""A finished game's log checked in the browser (service/api/web/verify.js, proof.js):
the replay page verifies the export as `claim verify-export` does and names the first
bad line of a tampered one; the table's end panel checks the heads its seat kept while
it played against the final log. Tampered exports are served with `page.route`."""

from __future__ import annotations

import base64
import json
import random

import orjson
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service import games
from service.events import HUMAN, PublicKey, Seal
from service.events.chain import canonical, genesis, link
from service.events.keys import KEY_FILE, parse_key
from service.games import verify_export
from tests.games.factories import moved
from tests.games.test_export import NOT_EVENTS, NOT_SEALS, relined
from tests.web.conftest import (
    DESKTOP,
    PHONE,
    assert_accessible,
    assert_fits,
    card_label,
    invite_link,
    play_until_over,
    screenshot,
    take_seat,
)

FACTIONS = ("GO", "KN", "UN", "DO", "DW")


def export_of(site, game_id: str) -> list[bytes]:
    response = requests.get(f"{site.url}/games/{game_id}/export", timeout=30)
    assert response.ok, response.text
    return response.content.splitlines()


def keys_of(site) -> list[PublicKey]:
    listed = requests.get(f"{site.url}/.well-known/claim-keys", timeout=30).json()
    return [PublicKey.parse(entry) for entry in listed["keys"]]


def serve(page, lines: list[bytes]) -> None:
    """Answer the page's request for the export with `lines`."""
    body = b"".join(line + b"\n" for line in lines)
    page.route(
        "**/games/*/export",
        lambda route: route.fulfill(body=body, content_type="application/jsonl"),
    )


def resealed(site, lines: list[dict]) -> list[bytes]:
    """`lines` (parsed, the seal last) chained again and sealed with the server's own
    key: what a forger holding it could serve."""
    key = parse_key((site.data_dir / KEY_FILE).read_text())
    game_id = lines[-1]["seal"]["game_id"]
    chain = genesis(game_id)
    for line in lines[:-1]:
        chain = link(
            chain, canonical(*(line[k] for k in ("version", "id", "type", "v", "at", "data")))
        )
        line["hash"] = chain.hex()
    version = len(lines) - 1
    signature = key.sign(Seal.message(game_id, version, chain.hex()))
    seal = Seal(game_id, version, chain.hex(), PublicKey.of(key.public_key()).key_id, signature)
    return [orjson.dumps(line) for line in lines[:-1]] + [orjson.dumps({"seal": seal.body()})]


# --- the replay page -----------------------------------------------------------------


@pytest.fixture(scope="module")
def finished(site) -> dict[int, str]:
    """A game of AI seats played to its end, by player count."""
    return {players: site.finished_ai_game(players) for players in (2, 3, 4)}


def verdict_on(page, game_id: str) -> str:
    page.goto(f"/replay/{game_id}")
    verdict = page.locator("#proof-verdict")
    verdict.wait_for(timeout=60_000)
    return verdict.inner_text()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_replay_page_verifies_a_finished_games_export(site, new_page, finished, players):
    lines = export_of(site, finished[players])
    assert verify_export(lines, keys_of(site)).ok  # as the CLI finds it
    page = new_page()
    shown = verdict_on(page, finished[players])
    assert shown == f"✔ Verified: chain, seal, deck and rules hold for all {len(lines) - 1} events."
    summary = page.locator("#proof-summary").inner_text()
    assert summary == "✔ This game's log checks out in this browser. What was checked"
    checks = page.locator(".proof-checks").inner_text()
    commitment = orjson.loads(lines[0])["data"]["commitment"]
    assert page.locator("#proof-commitment").inner_text() == commitment
    assert "Seal:" in checks and keys_of(site)[0].key_id in checks
    if players == 3:
        assert_accessible(page)
        screenshot(page, "replay-verified-desktop")
        page.set_viewport_size(PHONE)
        assert_fits(page)
        screenshot(page, "replay-verified-phone")


def byte_changed(lines, site):
    at = lines[4].index(b'"at":"') + len(b'"at":"2')  # a digit of the year: 2026 -> 2126
    return [*lines[:4], lines[4][:at] + bytes([lines[4][at] ^ 1]) + lines[4][at + 1 :], *lines[5:]]


def swapped(lines, site):
    return [*lines[:3], lines[4], lines[3], *lines[5:]]


def dropped(lines, site):
    return [*lines[:5], *lines[6:]]


def sealed_by_another_key(lines, site):
    seal = orjson.loads(lines[-1])["seal"]
    message = Seal.message(seal["game_id"], seal["version"], seal["hash"])
    seal["signature"] = base64.b64encode(Ed25519PrivateKey.generate().sign(message)).decode()
    return [*lines[:-1], orjson.dumps({"seal": seal})]


def deck_reordered_and_resealed(lines, site):
    parsed = [orjson.loads(line) for line in lines]
    deck = parsed[0]["data"]["deck"]
    other = next(n for n, card in enumerate(deck) if card != deck[0])
    deck[0], deck[other] = deck[other], deck[0]  # the same cards, another order
    return resealed(site, parsed)


def illegal_decision_resealed(lines, site):
    parsed = [orjson.loads(line) for line in lines]
    first = next(line for line in parsed if line["type"] == "DecisionMade")
    first["data"]["decision"] = "take deck"  # nothing is taken before a trick is played
    return resealed(site, parsed)


TAMPERED = {
    "a byte of one event changed": (byte_changed, 5, "its hash is not the chain's"),
    "two lines swapped": (swapped, 4, "not an event of version 4: it says version 5"),
    "a line dropped": (dropped, 6, "not an event of version 6: it says version 7"),
    "a seal from another key": (sealed_by_another_key, -1, "the seal's signature is not key"),
    "the deck reordered, chained and sealed again with the server's key": (
        deck_reordered_and_resealed,
        1,
        "the deck and salt do not give the commitment",
    ),
    "an illegal decision, chained and sealed again with the server's key": (
        illegal_decision_resealed,
        None,  # the first decision's line
        "the rules reject it",
    ),
}


@pytest.mark.parametrize("tamper", TAMPERED, ids=list(TAMPERED))
def test_the_replay_page_refuses_a_tampered_export_naming_its_line(
    site, new_page, finished, tamper
):
    change, line, reason = TAMPERED[tamper]
    lines = change(export_of(site, finished[2]), site)
    expected = verify_export(lines, keys_of(site))  # the CLI's verdict
    if line is None:
        line = next(n for n, text in enumerate(lines, 1) if b"DecisionMade" in text)
    assert (expected.line, reason in expected.reason) == (len(lines) if line == -1 else line, True)
    page = new_page()
    serve(page, lines)
    shown = verdict_on(page, finished[2])
    assert (
        shown
        == f"✘ Not verified: line {expected.line} of the game's log is wrong: {expected.reason}."
    )
    summary = page.locator("#proof-summary").inner_text()
    assert summary.startswith(f"✘ This game's log does not hold together (line {expected.line}).")
    if tamper == "two lines swapped":
        assert_accessible(page)
        screenshot(page, "replay-refused-desktop")
        page.set_viewport_size(PHONE)
        assert_fits(page)
        screenshot(page, "replay-refused-phone")


def test_the_replay_page_refuses_another_games_export(site, new_page, finished):
    page = new_page()
    serve(page, export_of(site, finished[3]))
    shown = verdict_on(page, finished[2])
    assert shown.startswith("✘ Not verified: line ") and f"not of game {finished[2]}" in shown


# Runs in the page: verify.js's verdict on each export (base64), as [line, reason].
VERDICTS = """async ({ exports, keys }) => {
  const { verifyExport } = await import("/web/verify.js");
  const verdicts = [];
  for (const text of exports) {
    const verdict = await verifyExport(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)), keys);
    verdicts.push([verdict.line, verdict.reason]);
  }
  return verdicts;
}"""


def mutated(lines: list[bytes], site, rng: random.Random) -> list[bytes]:
    """`lines` changed at random: a byte, a line moved, dropped, doubled or cut short;
    or a decision's card or seat changed and the log chained and sealed again with the
    server's key."""
    lines = list(lines)
    kind = rng.randrange(7)
    at = rng.randrange(len(lines))
    if kind == 0:
        line = bytearray(lines[at])
        line[rng.randrange(len(line))] ^= 1 << rng.randrange(8)
        lines[at] = bytes(line)
    elif kind == 1:
        lines.insert(rng.randrange(len(lines)), lines.pop(at))
    elif kind == 2:
        del lines[at]
    elif kind == 3:
        lines.insert(at, lines[at])
    elif kind == 4:
        lines[at] = lines[at][: rng.randrange(len(lines[at]))]
    else:
        parsed = [orjson.loads(line) for line in lines]
        decisions = [line for line in parsed[:-1] if line["type"] == "DecisionMade"]
        changed = rng.choice(decisions)["data"]
        if kind == 5:
            codes = sorted({card for card in parsed[0]["data"]["deck"]})
            changed["decision"] = f"{rng.choice(['play', 'take'])} {rng.choice(codes)}"
        else:
            changed["seat"] = rng.randrange(4)
        return resealed(site, parsed)
    return lines


def test_the_page_finds_the_line_the_cli_finds_in_exports_changed_at_random(
    modules_page, site, finished
):
    rng = random.Random(30)
    keys = requests.get(f"{site.url}/.well-known/claim-keys", timeout=30).json()
    exports = [
        mutated(export_of(site, finished[players]), site, rng)
        for players in (2, 3, 4)
        for _ in range(60)
    ]
    expected = [verify_export(lines, keys_of(site)) for lines in exports]
    texts = [base64.b64encode(b"\n".join(lines)).decode() for lines in exports]
    found = modules_page.evaluate(VERDICTS, {"exports": texts, "keys": keys})
    assert [line for line, _ in found] == [verdict.line for verdict in expected]

    def clause(reason: str) -> str:
        return reason.split(":")[0]

    assert [clause(reason) for _, reason in found] == [clause(v.reason) for v in expected]
    pairs = zip(found, expected, strict=True)
    rejected = [(mine, v.reason) for (_, mine), v in pairs if "reject" in v.reason]
    assert rejected and all(mine == theirs for mine, theirs in rejected)


# --- the table's end panel: the heads its seat kept ----------------------------------


@pytest.fixture(scope="module")
def played(browser, site):
    """Ann plays a whole game against an AI (random) in her browser, clicking: her page
    at the end, the game's id and her browser's storage (the heads it kept)."""
    game_id, invites = site.game(FACTIONS, [HUMAN, "random"])
    context = browser.new_context(viewport=DESKTOP, base_url=site.url)
    context.set_default_timeout(30_000)
    errors = []
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    take_seat(page, invite_link(site, game_id, 0, invites[0]), "Ann")
    play_until_over(page)
    page.locator("#heads-check:not(.muted)").wait_for(timeout=60_000)
    yield page, game_id, context.storage_state()
    context.close()
    assert errors == []


def anns_moves(lines: list[bytes]) -> list[dict]:
    """The decisions Ann (seat 0) made herself, as the export has them."""
    events = [orjson.loads(line) for line in lines[:-1]]
    return [
        event
        for event in events
        if event["type"] == "DecisionMade"
        and event["data"]["seat"] == 0
        and event["data"]["timeout_policy"] is None
    ]


def test_a_seat_that_played_to_the_end_finds_its_moves_unchanged_in_the_final_log(site, played):
    page, game_id, _ = played
    moves = anns_moves(export_of(site, game_id))
    kept = json.loads(page.evaluate("localStorage.getItem('claim.heads')"))[game_id]
    assert sorted(map(int, kept["moves"])) == [move["version"] for move in moves]
    assert {int(v): h for v, (h, _) in kept["moves"].items()} == {
        m["version"]: m["hash"] for m in moves
    }
    note = page.locator("#heads-check")
    assert (
        note.locator(".good").inner_text()
        == f"Your {len(moves)} moves are in the final log, unchanged ✔"
    )
    assert_accessible(page)
    screenshot(page, "table-end-moves-unchanged-desktop")
    page.set_viewport_size(PHONE)
    assert_fits(page)
    screenshot(page, "table-end-moves-unchanged-phone")
    page.set_viewport_size(DESKTOP)


def rewritten(site, game_id: str) -> tuple[list[bytes], dict]:
    """The game's export with the time of Ann's fifth move changed, chained and sealed
    again with the server's key: a log that holds together, but not the one played;
    and that move."""
    lines = export_of(site, game_id)
    fifth = anns_moves(lines)[4]
    parsed = [orjson.loads(line) for line in lines]
    changed = parsed[fifth["version"] - 1]
    changed["at"] = changed["at"].replace(changed["at"][:4], str(int(changed["at"][:4]) - 1), 1)
    forged = resealed(site, parsed)
    assert verify_export(forged, keys_of(site)).ok
    return forged, fifth


def fifth_move_changed(fifth: dict) -> str:
    card = card_label(fifth["data"]["decision"].split()[1])
    return (
        "✘ The record of this game was changed after it was played: the log up to your move 5"
        f" (you played {card}, event {fifth['version']} of the log) is not the one the server"
        " confirmed when you made it."
    )


def test_a_log_rewritten_and_resealed_after_the_game_raises_the_alarm_naming_the_move(
    site, new_page, played
):
    _, game_id, storage = played
    forged, fifth = rewritten(site, game_id)
    page = new_page(storage_state=storage)
    serve(page, forged)
    page.goto(f"/play/{game_id}")
    alarm = page.locator("#heads-check[role='alert']")
    alarm.wait_for(timeout=60_000)
    assert alarm.inner_text().startswith(fifth_move_changed(fifth))
    assert "Your 4 moves before it are unchanged." in alarm.inner_text()
    assert_accessible(page)
    screenshot(page, "table-end-log-changed-desktop")
    page.set_viewport_size(PHONE)
    assert_fits(page)
    screenshot(page, "table-end-log-changed-phone")


def test_the_replay_in_the_browser_that_played_checks_its_moves_too(site, new_page, played):
    _, game_id, storage = played
    moves = len(anns_moves(export_of(site, game_id)))
    page = new_page(storage_state=storage)
    assert verdict_on(page, game_id).startswith("✔ Verified: chain, seal, deck and rules hold")
    proof = page.locator("section[aria-labelledby='p-checked-in-this-browser']")
    assert f"Your {moves} moves are in the final log, unchanged ✔" in proof.inner_text()
    assert (
        page.locator("#proof-summary")
        .inner_text()
        .startswith("✔ This game's log checks out in this browser, your moves in it unchanged.")
    )
    forged, fifth = rewritten(site, game_id)
    cheated = new_page(storage_state=storage)
    serve(cheated, forged)
    assert verdict_on(cheated, game_id).startswith(
        f"✘ This log holds together (chain, seal, deck and rules hold for all {len(forged) - 1}"
        " events), but it is not the one the server confirmed to your moves while you played:"
    )
    proof = cheated.locator("section[aria-labelledby='p-checked-in-this-browser']")
    assert fifth_move_changed(fifth) in proof.inner_text()


def test_a_final_log_that_does_not_hold_together_raises_the_alarm_at_its_line(
    site, new_page, played
):
    _, game_id, storage = played
    lines = export_of(site, game_id)
    version = anns_moves(lines)[2]["version"]
    lines[version - 1] = lines[version - 1].replace(b'"seat":0', b'"seat":1')
    page = new_page(storage_state=storage)
    serve(page, lines)
    page.goto(f"/play/{game_id}")
    alarm = page.locator("#heads-check[role='alert']")
    alarm.wait_for(timeout=60_000)
    assert alarm.inner_text().startswith(
        f"✘ The final log of this game does not hold together at line {version}, your move 3 ("
    )
    assert "its hash is not the chain's" in alarm.inner_text()


def test_moves_made_on_another_device_are_not_counted_as_checked(site, new_page, played):
    _, game_id, storage = played
    moves = len(anns_moves(export_of(site, game_id)))
    storage = json.loads(json.dumps(storage))
    entries = storage["origins"][0]["localStorage"]
    heads = next(entry for entry in entries if entry["name"] == "claim.heads")
    kept = json.loads(heads["value"])
    kept[game_id]["moves"] = dict(list(kept[game_id]["moves"].items())[::2])  # every other one
    heads["value"] = json.dumps(kept)
    page = new_page(storage_state=storage)
    page.goto(f"/play/{game_id}")
    checked = page.locator("#heads-check .good")
    checked.wait_for(timeout=60_000)
    made_here = (moves + 1) // 2
    assert checked.inner_text() == (
        f"The {made_here} of your {moves} moves made in this browser are in the final log,"
        " unchanged ✔"
    )


# --- in step with the CLI: the fields of a line, a registered seat -------------------


def test_the_page_refuses_a_line_with_fields_not_its_own_in_the_clis_words(
    modules_page, site, finished
):
    """An extra field is not covered by the chain: the CLI and the page refuse it, and
    say what is wrong with a line's fields in the same words."""
    exported = export_of(site, finished[2])
    number = next(n for n, line in enumerate(exported, 1) if b'"DecisionMade"' in line)
    cases = [relined(exported, number, change) for change, _ in NOT_EVENTS.values()]
    cases += [relined(exported, len(exported), change) for change, _ in NOT_SEALS.values()]
    keys = requests.get(f"{site.url}/.well-known/claim-keys", timeout=30).json()
    texts = [base64.b64encode(b"\n".join(lines)).decode() for lines in cases]
    found = modules_page.evaluate(VERDICTS, {"exports": texts, "keys": keys})
    expected = [verify_export(lines, keys_of(site)) for lines in cases]
    assert [line for line, _ in found] == [verdict.line for verdict in expected]
    for (_, reason), verdict in zip(found, expected, strict=True):
        detailed = "does not fit" in verdict.reason  # the CLI names the schema's fields too
        assert verdict.reason.startswith(reason) if detailed else reason == verdict.reason


def test_the_page_verifies_a_game_whose_seats_were_registered_as_the_cli_does(site, new_page):
    """A `SeatRegistered` of schema 2: its digest is keyed with a salt the export does
    not carry, and the page's chain is the server's."""
    game_id, invites = site.game(FACTIONS, [HUMAN, HUMAN])
    tokens = {seat: site.join(game_id, seat, invites[seat], f"p{seat}") for seat in invites}
    for seat, token in tokens.items():
        _, key = games.register(site.claim, f"Registered {seat}")
        games.register_seat(site.claim, key, game_id, seat, token)
    moved(site.claim, game_id, tokens)
    lines = export_of(site, game_id)
    assert b'"type":"SeatRegistered","v":2' in b"".join(lines)
    assert verify_export(lines, keys_of(site)).ok
    shown = verdict_on(new_page(), game_id)
    assert shown == f"✔ Verified: chain, seal, deck and rules hold for all {len(lines) - 1} events."
