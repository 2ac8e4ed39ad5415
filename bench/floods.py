"""A flood of challenges to a bot that accepts every one at once (issue 47): how many
it is given, from one sender and from as many senders as challenges, and how large the
bot's `/me/challenges` and `/me/games` answers grow meanwhile.

    .venv/bin/python bench/floods.py [--challenges 1000]

The application in this process, on REDIS_URL or an embedded Redis (a key prefix of its
own, deleted at the end); progress on standard error. (`tests/api/test_floods.py` holds
the same to these figures: 5 games from one sender, 20 from many.)
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid

import redis
from common import redis_url

from service.api import create_app
from service.config import Config
from service.games import Claim


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--challenges", type=int, default=1000)
    args = parser.parse_args()
    with redis_url() as url:
        config = Config(redis_url=url, prefix=f"bench-{uuid.uuid4().hex[:8]}", rate_limit="")
        claim = Claim.connect(config, jobs=False)
        try:
            client = create_app(claim=claim).test_client()
            for senders in (1, args.challenges):
                flood(client, args.challenges, senders)
        finally:
            claim.close()
            keys = redis.Redis.from_url(url)
            for key in keys.scan_iter(f"{config.prefix}:*"):
                keys.delete(key)


def flood(client, challenges: int, senders: int) -> None:
    keys = [player(client, f"Sender {n}") for n in range(senders)]
    bot_id, bot_key = player(client, "Acceptor", bot=True)
    started, games, refused = time.monotonic(), 0, 0
    for n in range(challenges):
        body = {"to": bot_id, "players": 2}
        made = client.post("/challenges", json=body, headers=keys[n % senders][1])
        if made.status_code == 201:
            accepted = client.post(f"/challenges/{made.json['id']}/accept", headers=bot_key)
            games += accepted.status_code == 200
        else:
            refused += made.status_code == 429
        if n % 100 == 99:
            print(f"  {n + 1} challenges sent", file=sys.stderr)
    paths = ("/me/challenges", "/me/games")
    sizes = [len(client.get(path, headers=bot_key).data) for path in paths]
    print(
        f"{challenges} challenges from {senders} sender(s): {games} games accepted,"
        f" {refused} refused 429, in {time.monotonic() - started:.1f} s;"
        f" the bot's /me/challenges {sizes[0]} bytes, /me/games {sizes[1]} bytes"
    )


def player(client, name: str, bot: bool = False) -> tuple[str, dict]:
    made = client.post("/players", json={"name": name, "bot": bot}).json
    return made["player_id"], {"Authorization": f"Bearer {made['key']}"}


if __name__ == "__main__":
    main()
