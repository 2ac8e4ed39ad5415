"""`examples/bot.py`, as docs/bots.md runs it, plays a whole rated game against an AI
level on a real `claim serve`, with the client installed from `client/` only."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

from claim_client import Client

from service.runtime.local_cluster import free_port
from tests.client.conftest import CLIENT, ROOT

PATIENCE = 300  # seconds for the whole game, AI turns included
BOT_ENV = {**os.environ, "PYTHONPATH": str(CLIENT), "PYTHONUNBUFFERED": "1"}


def bot_command(url: str, *options: str) -> list[str]:
    """examples/bot.py for one game."""
    return [
        sys.executable,
        str(ROOT / "examples" / "bot.py"),
        "--url",
        url,
        "--games",
        "1",
        *options,
    ]


def test_the_example_bot_plays_a_whole_rated_game_against_ai_greedy(server_url, tmp_path):
    ran = subprocess.run(
        bot_command(server_url, "--challenge", "ai:greedy", "--name", "Lowball"),
        cwd=tmp_path, env=BOT_ENV, capture_output=True, text=True, timeout=PATIENCE,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    registered = re.search(r"my id: (\S+); my key \(--key\): (\S+)", ran.stdout)
    assert "game over" in ran.stdout and "watch it: " in ran.stdout

    bot = Client(server_url, registered.group(2))
    me = bot.me()
    assert (me["player_id"], me["name"]) == (registered.group(1), "Lowball")
    (game,) = bot.my_games(status="finished")["games"]
    view = bot.game(game["game_id"])
    assert view["rated"] and view["status"] == "finished"
    assert view["ending"]["reason"] == "completed"  # played to the end, nobody resigned
    assert [(seat["kind"], seat["level"]) for seat in view["seats"]] == [
        ("human", None),
        ("ai", "greedy"),
    ]
    decisions = [e for e in bot.event_log(game["game_id"])["events"] if e["type"] == "DecisionMade"]
    assert any(decision["data"]["seat"] == 0 for decision in decisions)
    give_up = time.monotonic() + 30
    while bot.profile(me["player_id"])["games"] == 0:  # the ratings take it in moments later
        assert time.monotonic() < give_up, "the rated game never reached the ratings"
        time.sleep(0.2)
    profile = bot.profile(me["player_id"])
    assert profile["bot"] is True and profile["recent"][0]["game_id"] == game["game_id"]


def test_the_example_bot_accepts_a_challenge_and_plays_it_out(server_url, tmp_path):
    log = tmp_path / "bot.log"
    with log.open("wb") as output:
        bot = subprocess.Popen(
            bot_command(server_url), cwd=tmp_path, env=BOT_ENV, stdout=output, stderr=output
        )
    try:
        give_up = time.monotonic() + PATIENCE
        while not (registered := re.search(r"key \(--key\): (\S+)", log.read_text())):
            assert bot.poll() is None and time.monotonic() < give_up, log.read_text()
            time.sleep(0.1)
        bot_id = Client(server_url, registered.group(1)).me()["player_id"]
        person = Client(server_url)
        person.register("Ann")
        events = person.my_events()
        assert next(events).type == "state"
        challenge = person.challenge(bot_id)
        accepted = next(e for e in events if e.type == "challenge-accepted")
        game_id = accepted.data["challenge"]["game_id"]
        for event in person.watch(game_id):
            if (event.data["you"] or {}).get("legal"):
                person.move(game_id, event.data["you"]["legal"][0])
        assert event.data["status"] == "finished"
        assert bot.wait(timeout=PATIENCE) == 0, log.read_text()
    finally:
        if bot.poll() is None:
            bot.kill()
        bot.wait()
    assert person.challenge_of(challenge["id"])["game_id"] == game_id
    assert "game over" in log.read_text()
    assert f"watch it: {server_url}/play/{game_id}" in log.read_text()  # told on game-started


def test_the_example_bot_says_when_no_server_answers_at_its_url(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    ran = subprocess.run(
        bot_command(url), cwd=tmp_path, env=BOT_ENV, capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 1
    assert f"no Claim server answers at {url}" in ran.stderr.splitlines()[-1]
