"""`examples/bot.py`, as docs/bots.md runs it, plays a whole rated game against an AI
level on a real `claim serve`, with the client installed from `client/` only."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

from claim_client import Client

from tests.client.conftest import CLIENT, ROOT

PATIENCE = 300  # seconds for the whole game, AI turns included


def test_the_example_bot_plays_a_whole_rated_game_against_ai_greedy(server_url, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(CLIENT)}  # the client from client/
    command = [sys.executable, str(ROOT / "examples" / "bot.py"), "--url", server_url]
    command += ["--challenge", "ai:greedy", "--games", "1"]
    ran = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=PATIENCE
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    key = re.search(r"key \(--key\): (\S+)", ran.stdout).group(1)
    assert "game over" in ran.stdout and "watch it: " in ran.stdout

    bot = Client(server_url, key)
    me = bot.me()
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
