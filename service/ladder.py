"""`claim ladder`: AI levels play rated games against each other on a running server,
over its HTTP API like any client, filling the leaderboard of that player count.

Every pairing of the levels takes its turn, seats rotated from game to game: with 2
players each pair of levels; with 3, each three (a level may sit twice when fewer
than three are named); with 4, each pair as two teams. The server's workers play the
seats; this only creates the games, waits for their ends, and prints the leaderboard.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

from tqdm import tqdm

LONG_POLL = 20  # seconds each wait for a game's next version holds


class LadderError(Exception):
    """The server answered something unexpected (or nothing)."""


def _call(url: str, method: str = "GET", body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data, method=method)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=LONG_POLL + 10) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        raise LadderError(f"{method} {url}: {error.code} {error.read()[:300]!r}") from None
    except OSError as error:
        raise LadderError(f"{method} {url}: {error}") from None


def lineups(players: int, levels: list[str]) -> Iterator[list[str]]:
    """The level of each seat, game after game: every pairing in turn, rotated.

    >>> list(itertools.islice(lineups(2, ["random", "greedy"]), 3))
    [['greedy', 'random'], ['random', 'greedy'], ['greedy', 'random']]
    >>> list(itertools.islice(lineups(3, ["random", "greedy"]), 2))  # fewer levels than seats
    [['greedy', 'greedy', 'random'], ['greedy', 'random', 'random']]
    >>> next(lineups(4, ["random", "greedy"]))  # teams: seats 0+2 against 1+3
    ['random', 'greedy', 'random', 'greedy']
    """
    if players == 4:
        pairings = [[a, b, a, b] for a, b in itertools.combinations(levels, 2)]
    else:
        pool = levels if len(levels) >= players else levels * players
        pairings = sorted({tuple(sorted(c)) for c in itertools.combinations(pool, players)})
        pairings = [list(p) for p in pairings if len(set(p)) > 1]
    if not pairings:
        raise LadderError("name at least two different levels")
    for turn in itertools.count():
        pairing = pairings[turn % len(pairings)]
        shift = (turn // len(pairings)) % players
        yield pairing[shift:] + pairing[:shift]


def _rated(url: str, game_id: str, patience: float = 30) -> None:
    """Wait until the ratings have taken in the game `game_id`, which has ended (its
    end is published before the ratings are applied: moments before)."""
    give_up = time.monotonic() + patience
    while _call(f"{url}/games/{game_id}")["ratings"] is None:
        if time.monotonic() > give_up:
            raise LadderError(f"game {game_id} ended but its ratings did not come")
        time.sleep(0.1)


def run(url: str, players: int, games: int, levels: list[str], parallel: int) -> int:
    """Play `games` rated games of `players` among `levels`, `parallel` at a time, on
    the server at `url`; print its leaderboard; 0, or 1 if the server failed us."""
    url = url.rstrip("/")
    seats = lineups(players, levels)
    running: dict[str, int] = {}  # game id -> the version seen last
    ended: list[str] = []
    created = 0
    try:
        with tqdm(total=games, desc=f"ladder, {players} players", unit="game") as bar:
            while created < games or running:
                while created < games and len(running) < parallel:
                    body = {
                        "players": players,
                        "rated": True,
                        "seats": [{"kind": "ai", "level": level} for level in next(seats)],
                    }
                    game = _call(f"{url}/games", "POST", body)
                    running[game["game_id"]] = game["version"]
                    created += 1
                for game_id, version in list(running.items()):
                    view = _call(f"{url}/games/{game_id}?after={version}&wait={LONG_POLL}")
                    running[game_id] = view["version"]
                    if view["status"] != "running":
                        del running[game_id]
                        ended.append(game_id)
                        bar.update()
        for game_id in ended:
            _rated(url, game_id)
        board = _call(f"{url}/ratings?players={players}&limit=100")
    except LadderError as error:
        print(f"claim ladder: {error}", file=sys.stderr)
        return 1
    print(f"{'rank':>4} {'who':<24} {'rating':>7} {'±':>6} {'games':>6}")
    for standing in board["standings"]:
        mark = " ?" if standing["provisional"] else ""
        who = standing["name"] if standing["kind"] == "player" else standing["player_id"]
        print(
            f"{standing['rank'] or '-':>4} {who:<24} {standing['rating']:>7.2f}"
            f" {standing['uncertainty']:>6.2f} {standing['games']:>6}{mark}"
        )
    print("? provisional: uncertainty still above 6, or not ranked yet (-)")
    return 0
