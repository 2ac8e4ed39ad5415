"""Floods (issue 47): a flood of challenges to one player (a thousand with `--full`, a
hundred in the suite), from one sender or from as many, opens a few and the rest are
refused (429 too-many-challenges), so that a bot that accepts everything plays a few
games of them, not all; whatever a player has, `/me/challenges`, `/me/games` and the
`state` of `/me/stream` stay under 64 KB."""

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import orjson
import pytest

from service.api import create_app
from service.config import Config
from tests.api.test_challenges import a_player, challenge, problem
from tests.sizes import sized

FLOOD = 1000  # challenges in a flood, with `--full`; the suite's a tenth


@pytest.fixture
def flood() -> int:
    return sized(FLOOD // 10, FLOOD)


LONG_NAME = "N" * 64  # the longest name
ESCAPED_NAME = "\N{GRINNING FACE}" * 64  # the longest, each character a 12-byte JSON escape
SIZE_CAP = 64 * 1024


def accepted_of_a_flood(client, senders: list[dict], bot: str, bot_key: dict, flood: int) -> int:
    """`flood` challenges to the bot from `senders` in turn, each accepted by the bot as
    soon as it is made: how many games it got; every refusal is too-many-challenges."""
    games = 0
    for n in range(flood):
        made = challenge(client, senders[n % len(senders)], bot)
        if made.status_code == 201:
            accepted = client.post(f"/challenges/{made.json['id']}/accept", headers=bot_key)
            assert accepted.status_code == 200 and accepted.json["game_id"]
            games += 1
        else:
            assert problem(made) == (429, "/problems/too-many-challenges"), made.json
    return games


def test_a_flood_from_one_sender_gives_a_bot_that_accepts_all_five_games(client, flood):
    _, ann_key = a_player(client, "Ann")
    bot, bot_key = a_player(client, "Acceptor", bot=True)
    accepted = accepted_of_a_flood(client, [ann_key], bot, bot_key, flood)
    assert accepted == Config().challenges_sent == 5
    games = client.get("/me/games", headers=bot_key).json
    assert games["total"] == 5 and games["challenges"] == []
    # A game ended: its place is free again.
    client.post(f"/games/{games['games'][0]['game_id']}/resign", headers=ann_key)
    assert challenge(client, ann_key, bot).status_code == 201


def test_a_flood_from_as_many_senders_gives_a_bot_twenty_games(client, flood):
    senders = [a_player(client, f"Sender {n}")[1] for n in range(flood)]
    bot, bot_key = a_player(client, "Acceptor", bot=True)
    accepted = accepted_of_a_flood(client, senders, bot, bot_key, flood)
    assert accepted == Config().challenges_received
    assert Config().challenges_received == 20


def test_a_flood_to_a_person_leaves_twenty_open(client, flood):
    _, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    made = [challenge(client, ann_key, bob) for _ in range(flood)]
    assert [r.status_code for r in made].count(201) == 1  # one open per challenger and player
    assert problem(made[1]) == (429, "/problems/too-many-challenges")
    assert "open already" in made[1].json["detail"]
    senders = [a_player(client, f"Sender {n}")[1] for n in range(flood)]
    made = [challenge(client, key, bob) for key in senders]
    assert [r.status_code for r in made].count(201) == 19  # Ann's is the 20th
    assert "CLAIM_CHALLENGES_RECEIVED" in made[-1].json["detail"]
    assert client.get("/me/challenges", headers=bob_key).json["total"] == 20


def test_a_challenger_has_five_places_and_one_comes_back_when_its_challenge_is_answered(client):
    _, ann_key = a_player(client, "Ann")
    others = [a_player(client, f"Player {n}") for n in range(6)]
    made = [challenge(client, ann_key, player_id) for player_id, _ in others]
    assert [r.status_code for r in made] == [201] * 5 + [429]
    assert "CLAIM_CHALLENGES_SENT" in made[-1].json["detail"]
    declined = client.post(f"/challenges/{made[0].json['id']}/decline", headers=others[0][1])
    assert declined.status_code == 200
    client.post(f"/challenges/{made[1].json['id']}/cancel", headers=ann_key)
    assert challenge(client, ann_key, others[5][0]).status_code == 201
    assert challenge(client, ann_key, others[0][0]).status_code == 201
    assert challenge(client, ann_key, others[1][0]).status_code == 429  # full again


def test_an_accepted_challenge_holds_no_pair_while_its_game_runs(client):
    _, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    first = challenge(client, ann_key, bob).json
    client.post(f"/challenges/{first['id']}/accept", headers=bob_key)
    assert challenge(client, ann_key, bob).status_code == 201  # a second game with Bob


def test_a_challenge_to_an_ai_level_holds_no_place(client):
    _, ann_key = a_player(client, "Ann")
    made = [challenge(client, ann_key, "ai:greedy") for _ in range(7)]
    assert [r.status_code for r in made] == [201] * 7


@pytest.fixture
def uncapped(claim):
    """A client of an application whose operator let challenges through by thousands."""
    config = replace(claim.config, challenges_sent=10_000, challenges_received=10_000)
    return create_app(claim=replace(claim, config=config)).test_client()


def a_game_of_four_long_names(client, player_key: dict) -> None:
    """A running 4-player game whose four seats are named with 64 characters, the
    player's (by their key) in seat 0."""
    created = client.post("/games", json={"players": 4}).json
    for invite in created["invites"]:
        joined = client.post(
            f"/games/{created['game_id']}/seats/{invite['seat']}",
            json={"invite": invite["invite"], "name": LONG_NAME},
            headers=player_key if invite["seat"] == 0 else {},
        )
        assert joined.status_code == 201, joined.json


def test_the_lists_of_challenges_and_games_stay_under_64_kb_however_many(uncapped, flood):
    """More games than the stream's state lists (100) and than a page of /me/games (50),
    more challenges than are listed (20): each list at its longest, names included."""
    client = uncapped
    _, victim_key = a_player(client, LONG_NAME)
    victim = client.get("/me", headers=victim_key).json["player_id"]
    games_made = sized(110, 150)
    for _ in range(games_made):
        a_game_of_four_long_names(client, victim_key)
    for n in range(flood):
        _, key = a_player(client, LONG_NAME[: 64 - len(str(n))] + str(n))
        assert challenge(client, key, victim).status_code == 201

    challenges = client.get("/me/challenges", headers=victim_key)
    assert challenges.json["total"] == flood and len(challenges.json["challenges"]) == 20
    assert len(challenges.data) < SIZE_CAP
    assert client.get("/me/challenges?limit=21", headers=victim_key).status_code == 400
    later = client.get(f"/me/challenges?offset={flood - 10}", headers=victim_key).json
    assert len(later["challenges"]) == 10
    games = client.get("/me/games?limit=50", headers=victim_key)
    assert (games.json["total"], len(games.json["games"])) == (games_made, 50)
    assert (len(games.json["challenges"]), games.json["challenges_total"]) == (10, flood)
    assert len(games.data) < SIZE_CAP
    assert client.get("/me/games?limit=51", headers=victim_key).status_code == 400

    state = the_state(client, victim_key)
    assert (len(state["games"]), state["games_total"]) == (100, games_made)
    assert (len(state["challenges"]), state["challenges_total"]) == (20, flood)
    assert len(orjson.dumps(state)) < SIZE_CAP


def test_twenty_challenges_of_the_longest_names_escaped_stay_under_64_kb(uncapped):
    client = uncapped
    victim, victim_key = a_player(client, ESCAPED_NAME)
    for n in range(25):
        _, key = a_player(client, ESCAPED_NAME[: 64 - len(str(n))] + str(n))
        challenge(client, key, victim)
    challenges = client.get("/me/challenges", headers=victim_key)
    assert len(challenges.json["challenges"]) == 20 and len(challenges.data) < SIZE_CAP
    assert len(orjson.dumps(the_state(client, victim_key))) < SIZE_CAP


def the_state(client, key: dict) -> dict:
    """The first line of the player's stream."""
    headers = {**key, "Accept": "application/x-ndjson"}
    stream = client.get("/me/stream?max_seconds=1", headers=headers, buffered=False)
    line = next(iter(stream.response))
    stream.close()
    state = orjson.loads(line)
    assert state["type"] == "state"
    return state


def test_the_state_lists_the_games_waiting_for_the_player_first(client):
    _, ann_key = a_player(client, "Ann")
    bob, bob_key = a_player(client, "Bob")
    for _ in range(3):  # Ann leads each: Bob waits
        made = challenge(client, ann_key, bob, factions="claim").json
        client.post(f"/challenges/{made['id']}/accept", headers=bob_key)
    first = [c["game_id"] for c in client.get("/me/games", headers=ann_key).json["games"]]
    state = the_state(client, bob_key)
    assert [g["your_turn"] for g in state["games"]] == [False] * 3
    led = client.get(f"/games/{first[-1]}/legal", headers=ann_key).json["legal"][0]
    client.post(
        f"/games/{first[-1]}/moves",
        json={"move": led, "expected_version": 3},
        headers={**ann_key, "Idempotency-Key": "lead"},
    )
    state = the_state(client, bob_key)
    assert (state["games"][0]["game_id"], state["games"][0]["your_turn"]) == (first[-1], True)


def test_challenges_sent_at_once_hold_no_more_places_than_there_are(app, client):
    """Twenty challenges from one player to twenty others, sent together: five open."""
    _, ann_key = a_player(client, "Ann")
    others = [a_player(client, f"Player {n}")[0] for n in range(20)]
    with ThreadPoolExecutor(max_workers=10) as pool:
        answers = list(pool.map(lambda to: challenge(app.test_client(), ann_key, to), others))
    assert sorted(r.status_code for r in answers) == [201] * 5 + [429] * 15
    assert client.get("/me/challenges", headers=ann_key).json["total"] == 5
