"""Replay step by step, the event log and the audit (against a real Redis)."""

import hashlib
import random

from service.domain import Decision, Settings, apply, legal_decisions, new_game, result
from tests.api.factories import a_deck, a_table, a_table_with_deck, an_app
from tests.api.test_games import problem
from tests.events.factories import FACTIONS, stream_key


def _played(client, store, players=2, seed=1, moves=None):
    """A game over a known deck, with random legal moves; answers the table and the
    engine's states after every step (index 0: the deal)."""
    deck = a_deck(players, seed)
    table = a_table_with_deck(client, store, deck, players)
    rng = random.Random(seed)
    states = [new_game(Settings(players, FACTIONS[players]), deck)]
    while states[-1].to_act is not None and moves != len(states) - 1:
        move = rng.choice(legal_decisions(states[-1]))
        table.post_move(states[-1].to_act, str(move), store.version(table.game_id))
        states.append(apply(states[-1], move))
    return table, states


def test_step_0_is_the_deal(client, store):
    table, states = _played(client, store, moves=4)
    replay = client.get(f"/games/{table.game_id}/replay/0", headers=table.headers(0)).json
    assert replay["step"] == 0
    assert replay["last_step"] == 4
    assert replay["account"] == ["the cards are dealt"]
    assert replay["view"]["you"]["hand"] == [card.code for card in states[0].hands[0]]
    assert replay["view"]["table"]["trick"] == []


def test_each_step_shows_the_game_after_it_as_the_caller_may_see_it(client, store):
    table, states = _played(client, store, moves=12)
    for step in (1, 2, 7, 12):
        replay = client.get(f"/games/{table.game_id}/replay/{step}", headers=table.headers(1)).json
        state = states[step]
        assert replay["version"] == 3 + step
        assert replay["view"]["you"]["hand"] == [card.code for card in state.hands[1]]
        assert replay["view"]["table"]["trick"] == [
            {"seat": play.seat, "card": play.card.code} for play in state.trick
        ]
        assert replay["view"]["revealed"] is None


def test_a_step_tells_who_played_what_and_who_won_the_round(client, store):
    table, states = _played(client, store, moves=2)
    replay = client.get(f"/games/{table.game_id}/replay/2").json
    record = states[2].rounds[0]
    second = record.plays[1]
    assert replay["account"][0] == f"seat {second.seat} played {second.card}"
    assert f"seat {record.winner} won round 1 of phase 1" in replay["account"]
    prize = record.prizes[0]
    assert f"seat {record.winner} took the prize {prize}" in replay["account"]
    assert f"seat {1 - record.winner} drew a card" in replay["account"]


def test_a_step_names_the_drawn_card_to_the_drawer_only(client, store):
    table, states = _played(client, store, moves=2)
    record = states[2].rounds[0]
    drawer = 1 - record.winner
    drawn = next(a.card for a in record.acquired if a.seat == drawer)
    own = client.get(f"/games/{table.game_id}/replay/2", headers=table.headers(drawer)).json
    other = client.get(f"/games/{table.game_id}/replay/2", headers=table.headers(1 - drawer)).json
    assert f"seat {drawer} drew {drawn}" in own["account"]
    assert f"seat {drawer} drew a card" in other["account"]


def test_once_the_game_is_over_every_step_shows_everything(client, store):
    table, states = _played(client, store)
    replay = client.get(f"/games/{table.game_id}/replay/2").json
    assert replay["view"]["revealed"]["hands"] == [
        [card.code for card in hand] for hand in states[2].hands
    ]
    record = states[2].rounds[0]
    drawer = 1 - record.winner
    drawn = next(a.card for a in record.acquired if a.seat == drawer)
    assert f"seat {drawer} drew {drawn}" in replay["account"]


def test_the_last_step_of_a_finished_game_says_so(client, store):
    table, states = _played(client, store)
    last = len(states) - 1
    replay = client.get(f"/games/{table.game_id}/replay/{last}").json
    assert replay["account"][-1] == "the game is over"
    assert replay["view"]["result"]["winner"] == result(states[-1]).winner


def test_a_step_beyond_the_last_is_unknown(client, store):
    table, _ = _played(client, store, moves=3)
    body = problem(client.get(f"/games/{table.game_id}/replay/4"), "unknown-step", 404)
    assert "0 to 3" in body["detail"]


def test_a_resignation_is_a_step(client):
    table = a_table(client)
    table.play(moves=1)
    client.post(f"/games/{table.game_id}/resign", headers=table.headers(1))
    replay = client.get(f"/games/{table.game_id}/replay/2").json
    assert replay["account"] == ["seat 1 resigned: the game is over"]


def test_a_seat_registered_to_a_player_midgame_is_a_step_that_tells_no_player(client):
    table = a_table(client)
    table.play(moves=1)
    key = client.post("/players", json={"name": "Bo"}).json["key"]
    body = {"game_id": table.game_id, "seat": 1, "token": table.tokens[1]}
    registered = client.post("/me/seats", json=body, headers={"Authorization": f"Bearer {key}"})
    assert registered.status_code == 200
    replay = client.get(f"/games/{table.game_id}/replay/2").json
    assert (replay["last_step"], replay["version"]) == (2, 5)
    assert replay["account"] == ["seat 1 became a registered player's"]
    before = client.get(f"/games/{table.game_id}/replay/1").json["view"]
    assert replay["view"]["table"] == before["table"]


def test_the_event_log_leaves_out_deck_salt_and_secrets_while_the_game_runs(client):
    table = a_table(client)
    table.play(moves=2)
    log = client.get(f"/games/{table.game_id}/events").json
    assert [event["type"] for event in log["events"]] == [
        "GameCreated",
        "SeatJoined",
        "SeatJoined",
        "DecisionMade",
        "DecisionMade",
    ]
    creation = log["events"][0]["data"]
    assert "deck" not in creation and "salt" not in creation
    assert all("invite_hash" not in seat for seat in creation["seats"])
    assert all("token_hash" not in event["data"] for event in log["events"])
    after = client.get(f"/games/{table.game_id}/events?after=3").json
    assert [event["version"] for event in after["events"]] == [4, 5]


def test_the_event_log_of_an_ended_game_holds_deck_and_salt(client):
    table = a_table(client)
    client.post(f"/games/{table.game_id}/resign", headers=table.headers(0))
    creation = client.get(f"/games/{table.game_id}/events").json["events"][0]["data"]
    assert len(creation["deck"]) == 52
    assert len(bytes.fromhex(creation["salt"])) == 32


def test_the_audit_of_a_running_game_is_refused(client):
    table = a_table(client)
    problem(client.get(f"/games/{table.game_id}/audit"), "game-not-over", 409)


def test_the_audit_reveals_the_deck_checks_the_commitment_and_recomputes_the_result(client, store):
    table, states = _played(client, store, players=4, seed=3)
    audit = client.get(f"/games/{table.game_id}/audit").json
    deck = " ".join(audit["deck"]).encode()
    commitment = hashlib.sha256(bytes.fromhex(audit["salt"]) + deck).hexdigest()
    assert audit["commitment"] == commitment
    assert audit["commitment_verified"] and audit["result_verified"]
    assert audit["deck"] == [card.code for card in states[0].deck]
    state = new_game(Settings(4, FACTIONS[4]), states[0].deck)
    for decision in audit["decisions"]:
        state = apply(state, Decision.parse(decision["move"]), seat=decision["seat"])
    assert state == states[-1]
    assert audit["result"]["winner"] == result(state).winner
    assert audit["score_piles"] == [[c.code for c in pile] for pile in state.score_piles]


def test_the_audit_finds_a_salt_that_does_not_match_the_commitment(
    client, store, redis_client, prefix
):
    table, _ = _played(client, store)
    key = stream_key(prefix, table.game_id)
    entries = redis_client.xrange(key)
    first_id, first = entries[0]
    forged = {**first, b"data": first[b"data"].replace(b'"salt":"', b'"salt":"00', 1)}
    redis_client.delete(key)
    for entry_id, fields in [(first_id, forged), *entries[1:]]:
        redis_client.xadd(key, fields, id=entry_id)
    client = an_app(redis_client, prefix).test_client()  # no cached fold
    audit = client.get(f"/games/{table.game_id}/audit").json
    assert audit["commitment_verified"] is False
    assert audit["result_verified"] is True


def test_an_ended_games_export_is_verified_with_the_servers_keys(client, claim):
    from service.events import PublicKey
    from service.games import verify_export
    from tests.games.factories import a_game, joined, moved

    game = a_game(claim, kinds=("human", "human"))
    moved(claim, game.id, joined(claim, game))
    answer = client.get(f"/games/{game.id}/export")
    assert answer.status_code == 200 and answer.mimetype == "application/jsonl"
    keys = client.get("/.well-known/claim-keys").json["keys"]
    verdict = verify_export(answer.data.splitlines(), [PublicKey.parse(key) for key in keys])
    assert verdict.ok, verdict.reason


def test_a_running_games_export_is_refused_as_not_over(client, claim):
    from tests.games.factories import a_game

    game = a_game(claim, kinds=("random", "random"))
    answer = client.get(f"/games/{game.id}/export")
    assert answer.status_code == 409 and answer.json["type"].endswith("/game-not-over")
