"""Rating farming over HTTP, against a real `claim serve`: a player wins rated duels
against their own second account, which resigns, and what it does to the rating.

    .venv/bin/python bench/farming.py [--games 30] [--decisions 0,8] [--workers 1]

Starts `claim serve` as bench/api.py does (on `REDIS_URL` if set, else on an embedded
Redis in a temporary directory). For each number of decisions (0: the second account
resigns at once; 8: it plays 4 decisions a seat first, the minimum for a resignation
to be rated), a new farmer and a new second account register and play --games rated
duels as fast as they can; the second account resigns each. Prints the farmer's
rating before and after as the API shows it (`GET /players/{id}`), its place on the
leaderboard, how much each game counted, and the rating the same wins would have
given had every game counted fully (the ratings before issue 29's rules: openskill
over the same results, computed here).
"""

from __future__ import annotations

import argparse
import os
import time
import uuid

from api import Client, expect, serving
from tqdm import tqdm

from service.config import Config
from service.events import RatedResult
from service.events.ratings import MODEL, rate

PATIENCE = 30  # seconds the ratings may take to take a game in


def register(client: Client, name: str) -> tuple[str, str]:
    """A new registered player: its id and key."""
    status, body, _ = client.call("POST", "/players", {"name": name})
    expect(status, 201, body)
    return body["player_id"], body["key"]


def a_duel(client: Client, keys: list[str]) -> tuple[str, dict[int, str]]:
    """A rated duel whose seats the players of `keys` took: its id and seat tokens."""
    seats = [{"kind": "human"}, {"kind": "human"}]
    status, game, _ = client.call("POST", "/games", {"players": 2, "rated": True, "seats": seats})
    expect(status, 201, game)
    tokens = {}
    for invite, key in zip(game["invites"], keys, strict=True):
        seat = invite["seat"]
        headers = {"Authorization": f"Bearer {key}"}
        body = {"invite": invite["invite"]}
        status, joined, _ = client.call(
            "POST", f"/games/{game['game_id']}/seats/{seat}", body, headers
        )
        expect(status, 201, joined)
        tokens[seat] = joined["token"]
    return game["game_id"], tokens


def play(client: Client, game_id: str, tokens: dict[int, str], decisions: int) -> None:
    """`decisions` decisions, each the first legal one of the seat to act."""
    for _ in range(decisions):
        status, view, _ = client.call("GET", f"/games/{game_id}")
        expect(status, 200, view)
        seat = view["table"]["to_act"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        status, legal, _ = client.call("GET", f"/games/{game_id}/legal", headers=auth)
        expect(status, 200, legal)
        body = {"move": legal["legal"][0], "expected_version": legal["version"]}
        headers = {**auth, "Idempotency-Key": uuid.uuid4().hex}
        status, moved, _ = client.call("POST", f"/games/{game_id}/moves", body, headers)
        expect(status, 201, moved)


def rated(client: Client, game_id: str) -> dict:
    """The game's view once the ratings have taken it in (moments after its end)."""
    give_up = time.monotonic() + PATIENCE
    while True:
        status, view, _ = client.call("GET", f"/games/{game_id}")
        expect(status, 200, view)
        if view["ratings"] is not None:
            return view
        if time.monotonic() > give_up:
            raise RuntimeError(f"game {game_id} ended but its ratings did not come")
        time.sleep(0.02)


def shown(client: Client, player_id: str) -> dict | None:
    """The farmer's 2-player standing as the profile shows it (None: no rating)."""
    status, profile, _ = client.call("GET", f"/players/{player_id}")
    expect(status, 200, profile)
    return profile["ratings"]["2"]


def without_the_rules(games: int) -> float:
    """The farmer's rating had every one of `games` wins counted fully."""
    state: dict = {}
    for n in range(games):
        result = RatedResult(f"g{n}", 2, float(n), ("farmer", "second"), ((0,), (1,)), (1, 2))
        after, _ = rate(state, result)
        state.update(after)
    return state["farmer"].mu


def farm(client: Client, games: int, decisions: int) -> dict:
    """One farmer and their second account, `games` duels each resigned by the second
    account after `decisions` decisions; what the farmer's rating did."""
    farmer, farmer_key = register(client, f"Farmer {decisions}")
    _, second_key = register(client, f"Second {decisions}")
    before = shown(client, farmer)
    weights, note = [], None
    start = time.perf_counter()
    for _ in tqdm(range(games), desc=f"resigning after {decisions} decisions", unit="game"):
        game_id, tokens = a_duel(client, [farmer_key, second_key])
        play(client, game_id, tokens, decisions)
        status, body, _ = client.call(
            "POST", f"/games/{game_id}/resign", headers={"Authorization": f"Bearer {tokens[1]}"}
        )
        expect(status, 201, body)
        view = rated(client, game_id)
        weights.append(view["ratings"][0]["weight"])
        note = view["ratings"][0]["note"]
    seconds = time.perf_counter() - start
    status, board, _ = client.call("GET", "/ratings?players=2&limit=100")
    expect(status, 200, board)
    place = next((s for s in board["standings"] if s["player_id"] == farmer), None)
    return {
        "before": before,
        "after": shown(client, farmer),
        "weights": weights,
        "note": note,
        "seconds": seconds,
        "place": place,
        "ranked": board["ranked"],
    }


def figure(standing: dict | None) -> str:
    if standing is None:
        return f"{MODEL.mu:.2f} (no rating: a newcomer's)"
    mark = ", provisional" if standing["provisional"] else ""
    return f"{standing['rating']:.2f} ± {standing['uncertainty']:.2f}{mark}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="rated duels per farmer")
    parser.add_argument(
        "--decisions", default="0,8", help="comma-separated: decisions before each resignation"
    )
    parser.add_argument("--workers", type=int, default=1, help="claim serve --workers")
    args = parser.parse_args()
    runs = {}
    with serving(args.workers, 100) as server:
        client = Client(server.port)
        for decisions in (int(d) for d in args.decisions.split(",")):
            runs[decisions] = farm(client, args.games, decisions)

    redis_at = Config.from_env().redis_url or "embedded"
    print(
        f"claim serve --workers {args.workers}, Redis {redis_at}, {os.cpu_count()} CPUs;"
        f" {args.games} rated duels per farmer, each resigned by the second account"
    )
    unruled = without_the_rules(args.games)
    for decisions, run in runs.items():
        before = MODEL.mu if run["before"] is None else run["before"]["rating"]
        after = MODEL.mu if run["after"] is None else run["after"]["rating"]
        place = run["place"]
        print(f"\nresigned after {decisions} decisions ({run['seconds']:.1f} s):")
        print(f"  rating before     {figure(run['before'])}")
        print(f"  rating after      {figure(run['after'])}")
        print(f"  change            {after - before:+.2f}")
        print(f"  every game fully  {unruled:.2f} ({unruled - MODEL.mu:+.2f}): the rules before")
        print(f"  weights           {' '.join(f'{w:g}' for w in run['weights'])}")
        if place is None:
            print("  leaderboard       not on it (no rated game moved the rating)")
        else:
            rank = "no rank" if place["rank"] is None else f"rank {place['rank']}"
            print(
                f"  leaderboard       {rank}, {place['opponents']} distinct opponent(s);"
                f" {run['ranked']} ranked on the board"
            )
        print(f"  last game's note  {run['note']}")


if __name__ == "__main__":
    main()
