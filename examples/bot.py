"""A Claim bot: registers as a bot, accepts every challenge, plays all its games."""

import argparse

from claim_client import Client, ProblemError


def choose(view: dict) -> str:
    """The highest card for a prize worth 5 or more and in phase 2, else the lowest."""
    table, legal = view["table"], view["you"]["legal"]
    value = lambda move: int(move[-1]) if move[-1].isdigit() else -1  # noqa: E731 (take deck: -1)
    fight = table["phase"] == 2 or any(value(prize) >= 5 for prize in table["prizes"])
    return (max if fight or legal[0].startswith("take") else min)(legal, key=value)


def play(client: Client, game_id: str) -> None:
    view = client.game(game_id)
    if view["status"] == "running" and (view["you"] or {}).get("legal"):
        try:
            client.move(game_id, choose(view), view["version"])
        except ProblemError as refused:  # a turn told twice: the stream goes on
            print(f"{game_id}: {refused}")


if __name__ == "__main__":
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--url", default="http://127.0.0.1:8000")
    options.add_argument("--key", help="the bot's key (default: register a new bot)")
    options.add_argument("--name", default="Highcard", help="a new bot's name")
    options.add_argument("--challenge", help="a player's id, or an AI: ai:expert")
    options.add_argument("--games", type=int, help="stop after this many games")
    args = options.parse_args()
    client = Client(args.url, args.key)
    if not args.key:
        bot = client.register(args.name, bot=True)
        print(f"registered; my id: {bot['player_id']}; my key (--key): {bot['key']}")
    if args.challenge:
        client.challenge(args.challenge, rated=True)  # an AI: the game starts at once
    finished = set()
    for event in client.my_events():  # resumed by itself if the connection drops
        if event.type == "state":  # first, on every (re)connection: how things stand
            for game in event.data["games"]:
                print(f"watch it: {args.url}/play/{game['game_id']}")
                play(client, game["game_id"])
            for challenge in event.data["challenges"]:
                if challenge["to"] == client.me()["player_id"]:
                    client.accept(challenge["id"])
        elif event.type == "game-started":  # a challenge accepted, by the bot or to it
            print(f"watch it: {args.url}/play/{event.data['game_id']}")
        elif event.type == "challenge":
            client.accept(event.data["challenge"]["id"])
        elif event.type == "your-turn":
            play(client, event.data["game_id"])
        elif event.type == "game-finished" and event.data["game_id"] not in finished:
            finished.add(event.data["game_id"])
            change = (event.data["rating"] or {}).get("change")  # None: unrated
            print(f"game over; won: {event.data['you_won']}; rating change: {change}")
            if len(finished) == args.games:
                break
