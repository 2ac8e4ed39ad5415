"""The browser's own rules engine (service/api/web/rules.js) held to the server's
(service/domain), in Chromium: the conformance games (tests/conformance) and random games
the server's engine plays, with every step's acting seat and legal decisions, the reason
given for decisions the rules refuse there, and the final scoring; and the canonical
JSON of chain.js, byte for byte as the server's orjson writes it."""

from __future__ import annotations

import copy
import json
import random
import struct

import orjson
import pytest

from service.domain import (
    IllegalDecision,
    Settings,
    apply,
    full_deck,
    is_over,
    legal_decisions,
    new_game,
    random_factions,
    result,
    shuffled_deck,
)
from service.events.chain import canonical_data
from tests.conformance_games import GAMES
from tests.sizes import sized

TRIED_PER_STEP = 2  # decisions the rules refuse, tried at each step of a game

# Runs in the page: each game replayed by rules.js, compared at every step; the first
# difference of each game that has one.
REPLAY = """async (games) => {
  const { IllegalDecision, Replay } = await import("/web/rules.js");
  const text = (value) => JSON.stringify(value);
  function difference(game) {
    const { players, factions, first_leader: firstLeader } = game;
    const replay = new Replay({ players, factions, firstLeader }, game.deck);
    for (const [n, step] of game.steps.entries()) {
      if (replay.toAct !== step.seat) return `step ${n}: seat ${replay.toAct} acts`;
      const legal = replay.legalDecisions();
      if (text(legal) !== text(step.legal)) return `step ${n}: legal ${text(legal)}`;
      for (const { decision, seat, reason } of step.refused) {
        try {
          replay.apply(decision, seat);
          return `step ${n}: ${decision} by seat ${seat} was taken`;
        } catch (error) {
          if (!(error instanceof IllegalDecision)) throw error;
          if (error.reason !== reason) return `step ${n}: ${decision}: "${error.reason}"`;
        }
      }
      replay.apply(step.move, step.seat);
    }
    if (!replay.isOver) return "the game is not over after its last step";
    try {
      replay.apply(game.steps[0].move);
      return "a decision was taken after the end";
    } catch (error) {
      if (error.reason !== "the game is over") return `after the end: ${error.message}`;
    }
    const outcome = replay.result();
    const found = {
      round_leaders: replay.roundLeaders,
      score_piles: replay.scorePiles.map((pile) => [...pile].sort()),
      faction_winner: Object.entries(outcome.factionWinners).sort(),
      side_keys: outcome.sideKeys,
      winner: outcome.winner,
    };
    const recorded = { ...game, faction_winner: Object.entries(game.faction_winner).sort() };
    for (const [field, value] of Object.entries(found)) {
      if (text(value) !== text(recorded[field])) return `${field}: ${text(value)}`;
    }
    return null;
  }
  return games.map((game) => [game.id, difference(game)]).filter(([, found]) => found !== null);
}"""


def with_refusals(game: dict, rng: random.Random) -> dict:
    """`game` with, at each step, decisions the server's engine refuses there (a card
    that may not be played or is not in hand, a take out of place, another seat's turn)
    and the reason it gives for each."""
    game = copy.deepcopy(game)
    settings = Settings(game["players"], tuple(game["factions"]), game["first_leader"])
    codes = sorted({card.code for card in full_deck(settings.factions)})
    every = [f"play {code}" for code in codes] + [f"take {code}" for code in codes] + ["take deck"]
    state = new_game(settings, game["deck"])
    for step in game["steps"]:
        legal = set(step["legal"])
        others = [seat for seat in range(settings.players) if seat != step["seat"]]
        tries = [(text, step["seat"]) for text in every if text not in legal]
        tries += [(step["move"], seat) for seat in others]
        step["refused"] = []
        for text, seat in rng.sample(tries, TRIED_PER_STEP):
            with pytest.raises(IllegalDecision) as refused:
                apply(state, text, seat=seat)
            step["refused"].append({"decision": text, "seat": seat, "reason": refused.value.reason})
        state = apply(state, step["move"])
    return game


def a_random_game(players: int, seed: int) -> dict:
    """A game the server's engine plays with random legal decisions, in the format of
    tests/conformance/README.md."""
    rng = random.Random(seed)
    settings = Settings(players, random_factions(players, rng), rng.randrange(players))
    deck = shuffled_deck(settings.factions, rng)
    state, steps = new_game(settings, deck), []
    while not is_over(state):
        legal = legal_decisions(state)
        move = rng.choice(legal)
        steps.append({"seat": state.to_act, "legal": [str(d) for d in legal], "move": str(move)})
        state = apply(state, move)
    outcome = result(state)
    return {
        "id": f"random-n{players}-s{seed}",
        "players": players,
        "factions": [faction.code for faction in settings.factions],
        "first_leader": settings.first_leader,
        "deck": [card.code for card in deck],
        "steps": steps,
        "round_leaders": list(state.round_leaders),
        "score_piles": [sorted(card.code for card in pile) for pile in state.score_piles],
        "faction_winner": {faction.code: side for faction, side in outcome.faction_winners},
        "side_keys": [list(keys) for keys in outcome.side_keys],
        "winner": outcome.winner,
    }


def test_the_browsers_rules_replay_every_conformance_game_as_the_server_does(modules_page):
    """Every one with `--full`; the suite, every third (each player count and deck kind)."""
    rng = random.Random(30)
    games = [with_refusals(game, rng) for game in GAMES[:: sized(3, 1)]]
    assert {game["players"] for game in games} == {2, 3, 4} and len(games) >= sized(100, 300)
    assert modules_page.evaluate(REPLAY, games) == []


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_browsers_rules_replay_random_games_of_the_servers_engine(modules_page, players):
    rng = random.Random(players)
    games = [with_refusals(a_random_game(players, seed), rng) for seed in range(40)]
    assert modules_page.evaluate(REPLAY, games) == []


def test_a_game_told_wrong_is_found_out(modules_page):
    """The comparison can fail: a recorded legal list and a winner changed are named."""
    game = with_refusals(GAMES[0], random.Random(1))
    game["steps"][5]["legal"] = game["steps"][5]["legal"][1:]
    other = copy.deepcopy(with_refusals(GAMES[1], random.Random(1)))
    other["winner"] = None if other["winner"] is not None else 0
    found = dict(modules_page.evaluate(REPLAY, [game, other]))
    assert found[game["id"]].startswith("step 5: legal")
    assert found[other["id"]].startswith("winner:")


# Runs in the page: each JSON text as chain.js reads and writes it again, or "refused".
CANONICAL = """async (texts) => {
  const { canonicalJson, parseJson, NotJson } = await import("/web/chain.js");
  return texts.map((text) => {
    try { return canonicalJson(parseJson(text)); } catch (error) {
      if (error instanceof NotJson) return "refused";
      throw error;
    }
  });
}"""

TRICKY = [
    "1",
    "-0",
    "1.0",
    "1.50",
    "1E2",
    "1e-7",
    "1e-5",
    "-0.0",
    "0.000123",
    "1e16",
    "9999999999999998",
    "9999999999999998.0",
    "12345678.9",
    "1.7976931348623157e308",
    "5e-324",
    "1e400",
    "-1e400",
    "9007199254740993",
    "9223372036854775807",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890",
    '"\\u00e9\\u0000\\u001f\\b\\f\\n\\r\\t\\"\\\\\\/\\u2028\\u007f"',
    '"é😀"',
    '"\\ud83d\\ude00"',
    '"\\ud800"',
    '"\\udc00x"',
    '{"b":1,"a":[true,false,null],"":{}}',
    '{"a":1,"a":2}',
    '{"\\uffff":1,"😀":2,"z":3,"Z":4,"é":5}',
    "[]",
    "[1,]",
    "01",
    "NaN",
    '"a\tb"',
    '{"__proto__":{"x":1},"y":2}',
]


def random_json(rng: random.Random, depth: int = 0):
    """A random JSON value: integers of every size, finite floats of any bit pattern,
    strings of any code point but surrogates, nested objects and arrays."""
    kind = rng.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.randrange(-(2 ** rng.randrange(1, 70)), 2 ** rng.randrange(1, 70))
    if kind == 2:
        value = struct.unpack("<d", rng.randbytes(8))[0]
        return value if value == value and abs(value) != float("inf") else 0.5
    if kind in (3, 4):
        return random_text(rng)
    if kind == 5:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {random_text(rng): random_json(rng, depth + 1) for _ in range(rng.randrange(4))}


def random_text(rng: random.Random) -> str:
    ranges = [(0, 0x80), (0x80, 0xD800), (0xE000, 0x110000)]
    return "".join(chr(rng.randrange(*rng.choice(ranges))) for _ in range(rng.randrange(8)))


def orjson_canonical(text: str) -> str:
    try:
        return orjson.dumps(orjson.loads(text), option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONDecodeError:
        return "refused"


def test_canonical_json_is_written_byte_for_byte_as_the_server_writes_it(modules_page):
    rng = random.Random(7)
    values = [random_json(rng) for _ in range(3000)]
    texts = TRICKY + [json.dumps(value, ensure_ascii=n % 2 == 0) for n, value in enumerate(values)]
    assert modules_page.evaluate(CANONICAL, texts) == [orjson_canonical(text) for text in texts]


CANONICAL_DATA = """async (datas) => {
  const { canonicalData } = await import("/web/chain.js");
  return datas.map(canonicalData);
}"""


def test_an_events_private_values_are_digested_as_the_server_digests_them(modules_page):
    hashes = [f"{n:064x}" for n in range(4)]
    datas = [
        {"seat": 1, "name": "Ånn", "token_hash": hashes[0], "player": None},
        {"seat": 2, "player": "p-1"},
        {"seat": 2, "player": "p-1", "player_salt": hashes[2]},  # keyed with the salt
        {"seat": 2, "player": "Ånn", "player_salt": "s" * 70},  # a key longer than a block
        {"seat": 2, "player": "p-1", "player_salt": None},
        {"player": "p-1", "player_salt": hashes[2], "token_hash": hashes[3]},
        {"seats": [{"kind": "human", "invite_hash": hashes[1]}, {"kind": "ai", "level": "random"}]},
        {"seats": [{"kind": "ai", "level": "random", "invite_hash": None}], "deck": ["GO0"]},
        {"seats": [{"kind": "human"}, 3], "player": "x"},
        {"decision": "play GO3", "seat": 0, "timeout_policy": None},
    ]
    expected = [canonical_data(data).decode() for data in datas]
    assert modules_page.evaluate(CANONICAL_DATA, datas) == expected


# Runs in the page: the phrases telling where each phase-2 round's cards went.
DESTINATIONS = """async (rounds) => {
  const { phase2Destinations } = await import("/web/words.js");
  const seats = [{ kind: "human", name: "Ann" }, { kind: "ai", level: "greedy" }];
  const view = { players: 2, seats };
  return rounds.map((round) => phase2Destinations(view, round, null));
}"""


def test_a_phase_2_round_tells_where_its_cards_went_as_the_powers_send_them(modules_page):
    def round_of(winner, *cards):
        return {
            "phase": 2,
            "winner": winner,
            "plays": [{"seat": n, "card": c} for n, c in enumerate(cards)],
        }

    told = modules_page.evaluate(
        DESTINATIONS,
        [round_of(0, "GO7", "GO3"), round_of(0, "DW5", "DW2"), round_of(1, "GN3", "GN4")],
    )
    assert told[0] == ["the cards → Ann's score pile"]
    # 2 players: the Dwarves to the round's loser, the winner nothing else
    assert told[1] == ["Dwarves 5, Dwarves 2 → AI (greedy)'s score pile"]
    assert told[2] == ["Gnomes 3, Gnomes 4 laid in front of AI (greedy)"]
