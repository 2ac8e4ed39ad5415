"""Rating farming over HTTP, against a real `claim serve`: a person wins rated duels
against accounts of their own, which resign, and what it does to the rating.

    .venv/bin/python bench/farming.py [--accounts 6] [--games 3] [--decisions 8]
                                      [--people] [--established] [--workers 1]

The defaults are issue 47's farming: six bots' accounts, three rated challenges each
(18 in all), in which the bot plays 4 decisions a seat (8: enough for a resignation to
be rated), then resigns. Starts `claim serve` as bench/api.py does (on `REDIS_URL` if
set, else on an embedded Redis in a temporary directory), with an RQ worker for the AI
levels' turns. A farmer (a person) and --accounts accounts of its own register: bots'
accounts, or with --people people's (the bot flag is the owner's word). With
--established each account first establishes itself: it challenges each AI level to a
rated duel and resigns it after --decisions decisions. Then the farmer challenges the
accounts in turn, --games times each; each accepts, plays its decisions (the first
legal ones, both seats on their player keys) and resigns.

Prints the farmer's rating before and after as the API shows it (`GET /players/{id}`),
the change, whether it is ranked and its place on `GET /ratings?players=2&bots=exclude`,
how much each game counted for it (`weight`) and the last game's `note`.
"""

from __future__ import annotations

import argparse
import os
import time
import uuid

from api import Client, expect, serving
from tqdm import tqdm

from service.config import Config
from service.events import AI_LEVELS
from service.events.ratings import MODEL

PATIENCE = 60  # seconds the ratings (or an AI's turn) may take to take a game in


def register(client: Client, name: str, bot: bool = False) -> tuple[str, dict]:
    """A new registered player: its id and the headers of its key."""
    status, body, _ = client.call("POST", "/players", {"name": name, "bot": bot})
    expect(status, 201, body)
    return body["player_id"], {"Authorization": f"Bearer {body['key']}"}


def challenged(client: Client, to: str, challenger: dict, challenged: dict | None) -> str:
    """The game of a rated duel `challenger` asks of `to` (a player, who accepts with the
    headers `challenged`, or an AI level: None)."""
    body = {"to": to, "players": 2, "rated": True}
    status, challenge, _ = client.call("POST", "/challenges", body, challenger)
    expect(status, 201, challenge)
    if challenged is not None:
        path = f"/challenges/{challenge['id']}/accept"
        status, challenge, _ = client.call("POST", path, headers=challenged)
        expect(status, 200, challenge)
    return challenge["game_id"]


def play(client: Client, game_id: str, seats: dict[int, dict], decisions: int) -> None:
    """`decisions` decisions, each the first legal one of the seat to act: the seats of
    `seats` (by their headers) by the bench, the others (AI seats) by the server."""
    give_up = time.monotonic() + PATIENCE
    made = 0
    while made < decisions:
        status, view, _ = client.call("GET", f"/games/{game_id}")
        expect(status, 200, view)
        seat = view["table"]["to_act"]
        if seat not in seats:  # an AI's turn: the worker plays it
            if time.monotonic() > give_up:
                raise RuntimeError(f"game {game_id}: the AI did not play")
            time.sleep(0.02)
            continue
        status, legal, _ = client.call("GET", f"/games/{game_id}/legal", headers=seats[seat])
        expect(status, 200, legal)
        body = {"move": legal["legal"][0], "expected_version": legal["version"]}
        headers = {**seats[seat], "Idempotency-Key": uuid.uuid4().hex}
        status, moved, _ = client.call("POST", f"/games/{game_id}/moves", body, headers)
        expect(status, 201, moved)
        made += 1


def resigned_and_rated(client: Client, game_id: str, loser: dict) -> dict:
    """The game's view once `loser` has resigned and the ratings have taken it in."""
    status, body, _ = client.call("POST", f"/games/{game_id}/resign", headers=loser)
    expect(status, 201, body)
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
    """The 2-player standing the profile shows (None: no rating yet)."""
    status, profile, _ = client.call("GET", f"/players/{player_id}")
    expect(status, 200, profile)
    return profile["ratings"]["2"]


def establish(client: Client, account: dict, decisions: int) -> None:
    """A rated duel against each AI level that `account` resigns after `decisions`."""
    for level in AI_LEVELS:
        game_id = challenged(client, f"ai:{level}", account, None)
        play(client, game_id, {0: account}, decisions)
        resigned_and_rated(client, game_id, account)


def farm(client: Client, args: argparse.Namespace) -> dict:
    """The farmer, its accounts, and its rated wins over them; what they did."""
    farmer, farmer_key = register(client, "Farmer")
    kind = "Person" if args.people else "Bot"
    accounts = [register(client, f"{kind} {n}", bot=not args.people) for n in range(args.accounts)]
    if args.established:
        for _, key in tqdm(accounts, desc="establishing the accounts", unit="account"):
            establish(client, key, args.decisions)
    before = shown(client, farmer)
    weights, note = [], None
    start = time.perf_counter()
    duels = args.accounts * args.games
    for n in tqdm(range(duels), desc="farming", unit="game"):
        account, key = accounts[n % args.accounts]
        game_id = challenged(client, account, farmer_key, key)
        play(client, game_id, {0: farmer_key, 1: key}, args.decisions)
        view = resigned_and_rated(client, game_id, key)
        mine = next(r for r in view["ratings"] if r["player_id"] == farmer)
        weights.append(mine["weight"])
        note = mine["note"]
    seconds = time.perf_counter() - start
    status, board, _ = client.call("GET", "/ratings?players=2&bots=exclude&limit=100")
    expect(status, 200, board)
    place = next((s for s in board["standings"] if s["player_id"] == farmer), None)
    return {
        "before": before,
        "after": shown(client, farmer),
        "weights": weights,
        "note": note,
        "seconds": seconds,
        "place": place,
    }


def figure(standing: dict | None) -> str:
    if standing is None:
        return f"{MODEL.mu:.2f} (no rating: a newcomer's)"
    marks = "" if standing["ranked"] else ", not ranked"
    marks += ", provisional" if standing["provisional"] else ""
    return f"{standing['rating']:.2f} ± {standing['uncertainty']:.2f}{marks}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=6, help="the farmer's own accounts")
    parser.add_argument("--games", type=int, default=3, help="rated duels against each")
    parser.add_argument(
        "--decisions", type=int, default=8, help="decisions before each resignation"
    )
    parser.add_argument(
        "--people", action="store_true", help="people's accounts, not bots' (unflagged)"
    )
    parser.add_argument(
        "--established",
        action="store_true",
        help="each account first plays (and resigns) a rated duel against each AI level",
    )
    parser.add_argument("--workers", type=int, default=1, help="claim serve --workers")
    args = parser.parse_args()
    with serving(args.workers, 100, rq_worker=True) as server:
        run = farm(Client(server.port), args)

    redis_at = Config.from_env().redis_url or "embedded"
    accounts = f"{args.accounts} accounts of its own ({'people' if args.people else 'bots'})"
    print(
        f"claim serve --workers {args.workers}, Redis {redis_at}, {os.cpu_count()} CPUs;"
        f" {accounts}{', each established first' if args.established else ''},"
        f" {args.games} rated duels against each, each resigned after"
        f" {args.decisions} decisions ({run['seconds']:.1f} s)"
    )
    before = MODEL.mu if run["before"] is None else run["before"]["rating"]
    after = MODEL.mu if run["after"] is None else run["after"]["rating"]
    place = run["place"]
    print(f"  rating before     {figure(run['before'])}")
    print(f"  rating after      {figure(run['after'])}")
    print(f"  change            {after - before:+.2f}")
    ranked = place is not None and place["rank"] is not None
    print(f"  ranked            {'yes' if ranked else 'no'}")
    if place is None:
        print("  bots=exclude      not on it (no rated game moved the rating)")
    else:
        rank = "no rank" if place["rank"] is None else f"rank {place['rank']}"
        print(f"  bots=exclude      {rank}, {place['opponents']} distinct opponent(s) counted")
    print(f"  weights           {' '.join(f'{w:g}' for w in run['weights'])}")
    print(f"  last game's note  {run['note']}")


if __name__ == "__main__":
    main()
