"""AI turns as a client sees them: from a person's move to the AI's answer.

    .venv/bin/python bench/ai_turns.py [--games 2] [--level expert] [--expert-seconds 0.2]
                                       [--players 2] [--rounds 2] [--analyses 0]

Starts `claim serve` with one RQ worker (as bench/api.py does: REDIS_URL if set, else
an embedded Redis), with `CLAIM_EXPERT_SECONDS` set, then plays `--games` games at
once, each a person (this script, a thread per game, posting a random legal move as
soon as it is their turn) against AI seats of `--level`, `--rounds` games in a row per
thread. For each AI decision, the time from the version before it (the person's move's
answer, or the AI's previous decision seen) to the view of the AI's decision, long-
polled version by version: the AI's turn as the client sees it (queue, load, decision,
append, the long-poll's wake). Prints how many, p50, p95 and max.

With `--analyses N`, N finished 2-player games (greedy against random, written to the
store) have their analysis asked for first, each by a player of its own registered
here (`POST /games/{id}/analysis` with the player's key), so that the AI turns are
played beside a queue of N analyses; then how many of them were done by the end.

Target (issue "A faster engine and event codec, and an expert that thinks within a
time budget"): p95 under 0.5 s and max under 1 s with two games at once; and (issue 47)
p95 at most 0.5 s beside 50 analyses queued.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
import uuid

import redis
from analysis import played
from api import Client, expect, join_all, percentile, serving
from tqdm import tqdm

from service import games
from service.config import DEFAULT_PREFIX, Config

WAIT = 20  # seconds each long-poll may wait (the client gives up after 30)


def play_games(port: int, players: int, level: str, rounds: int, seed: int, bar, out: list):
    """A person in seat 0 against AIs of `level`, `rounds` games; each AI turn's time as
    this client saw it goes to `out`."""
    client, rng = Client(port), random.Random(seed)
    seats = [{"kind": "human"}] + [{"kind": "ai", "level": level}] * (players - 1)
    for _ in range(rounds):
        status, game, _ = client.call("POST", "/games", {"players": players, "seats": seats})
        expect(status, 201, game)
        tokens, _ = join_all(
            client, game["game_id"], {i["seat"]: i["invite"] for i in game["invites"]}
        )
        auth = {"Authorization": f"Bearer {tokens[0]}"}
        path = f"/games/{game['game_id']}"
        _, view, _ = client.call("GET", path, headers=auth)
        while view["status"] == "running":
            if view["table"]["to_act"] != 0:  # the AI leads: wait for it, untimed
                _, view, _ = client.call(
                    "GET", f"{path}?after={view['version']}&wait={WAIT}", headers=auth
                )
                continue
            move = rng.choice(view["you"]["legal"])
            body = {"move": move, "expected_version": view["version"]}
            headers = {**auth, "Idempotency-Key": uuid.uuid4().hex}
            status, moved, _ = client.call("POST", f"{path}/moves", body, headers)
            expect(status, 201, moved)
            view, began = moved["view"], time.perf_counter()
            while view["status"] == "running" and view["table"]["to_act"] != 0:
                version = view["version"]
                _, view, _ = client.call("GET", f"{path}?after={version}&wait={WAIT}", headers=auth)
                if view["version"] == version + 1:  # one AI decision (two at once: rare, left out)
                    out.append(time.perf_counter() - began)
                    bar.update()
                began = time.perf_counter()


def queue_analyses(server, count: int, seed: int) -> list[str]:
    """`count` finished games written to the server's store, each one's analysis asked
    for by a player registered for it; answers the games' ids."""
    config = Config(redis_url=server.redis_url, prefix=server.prefix)
    claim, rng, client = games.Claim.connect(config), random.Random(seed), Client(server.port)
    try:
        game_ids = [played(claim, rng) for _ in range(count)]
    finally:
        claim.close()
    for n, game_id in enumerate(game_ids):
        status, player, _ = client.call("POST", "/players", {"name": f"analyst {n}"})
        expect(status, 201, player)
        auth = {"Authorization": f"Bearer {player['key']}"}
        status, asked, _ = client.call("POST", f"/games/{game_id}/analysis", headers=auth)
        expect(status, 202, asked)
    return game_ids


def analyses_done(server, game_ids: list[str]) -> tuple[int, int]:
    """How many of the games' analyses are done, and how many decisions were judged."""
    client = Client(server.port)
    answers = [client.call("GET", f"/games/{game_id}/analysis")[1] for game_id in game_ids]
    return sum(a["status"] == "done" for a in answers), sum(a["done"] for a in answers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="games played at once")
    parser.add_argument("--rounds", type=int, default=2, help="games in a row per thread")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--level", default="expert")
    parser.add_argument("--expert-seconds", default="0.2", help="CLAIM_EXPERT_SECONDS")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--analyses", type=int, default=0, help="analyses queued before the games are played"
    )
    args = parser.parse_args()
    settings = {"CLAIM_EXPERT_SECONDS": args.expert_seconds}
    with serving(2, 1000, rq_worker=True, **settings) as server:
        asked = queue_analyses(server, args.analyses, args.seed)
        began = time.monotonic()
        times: list[float] = []
        with tqdm(desc="AI turns", unit="turn", file=sys.stderr) as bar:
            threads = [
                threading.Thread(
                    target=play_games,
                    args=(
                        server.port,
                        args.players,
                        args.level,
                        args.rounds,
                        args.seed + n,
                        bar,
                        times,
                    ),
                )
                for n in range(args.games)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        took = time.monotonic() - began
        done, judged = analyses_done(server, asked)
        if server.prefix != DEFAULT_PREFIX:  # the queues' keys, named after the prefix
            with redis.Redis.from_url(server.redis_url) as client:
                doomed = [k for k in client.scan_iter(match="rq:*") if server.prefix.encode() in k]
                if doomed:
                    client.delete(*doomed)
    print(
        f"{args.games} games at once of a person against {args.players - 1} {args.level} AI"
        f" seat(s), CLAIM_EXPERT_SECONDS={args.expert_seconds}, one RQ worker"
    )
    if asked:
        print(
            f"beside {len(asked)} analyses queued: {done} of them done in {took:.0f} s"
            f" ({judged} decisions judged)"
        )
    print(f"{'AI turns':>8} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7}")  # decisions
    print(
        f"{len(times):>8} {percentile(times, 0.5):>7.0f} {percentile(times, 0.95):>7.0f}"
        f" {percentile(times, 1.0):>7.0f}"
    )
    print("target: p95 under 0.5 s, max under 1 s (two games at once)")


if __name__ == "__main__":
    main()
