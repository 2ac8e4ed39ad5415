"""The lobby: games listed by status (open, running, finished, aborted), newest first.

A projection of the streams, updated after each change that alters a listing
(`service.games.changes`) and written again from the streams by `claim rebuild`. A
game's entries are in one shard (`shards.py`), whose keys share the hash tag
`{lobby:<n>}`, so that one Lua script updates them together, and only with a version
newer than the one they show: updates arriving out of order cannot go back in time. A
page merges the shards: the first `offset + limit` of each, newest first.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import redis

from .connection import redis_errors
from .fold import STATUSES, Game
from .shards import shard_of, tags

# KEYS: summaries, versions, then one sorted set per status.
# ARGV: game id, version, index of its status in KEYS, score, summary.
PROJECT = """
local known = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if known >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[5])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
for i = 3, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('ZADD', KEYS[tonumber(ARGV[3])], ARGV[4], ARGV[1])
return 1
"""


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A game as the lobby lists it: public facts only."""

    game_id: str
    status: str
    version: int
    players: int
    factions: tuple[str, ...]
    seats: tuple[dict, ...]  # {"kind", "level", "name"} per seat; name None while open
    open_seats: tuple[int, ...]
    created_at: str
    ending: str | None  # how it ended: completed, resigned, forfeited, aborted
    rated: bool = False
    public: bool = False  # its open seats are for anybody, without an invite

    @classmethod
    def of(cls, game: Game) -> GameSummary:
        return cls(
            game_id=game.id,
            status=game.status,
            version=game.version,
            players=game.settings.players,
            factions=tuple(faction.code for faction in game.settings.factions),
            seats=tuple(
                {"kind": seat.kind, "level": seat.level, "name": seat.name} for seat in game.seats
            ),
            open_seats=game.open_seats,
            created_at=game.created_at.isoformat(),
            ending=None if game.ending is None else game.ending.reason,
            rated=game.creation.rated,
            public=game.public,
        )


@dataclass(frozen=True, slots=True)
class LobbyPage:
    total: int  # games with that status
    games: tuple[GameSummary, ...]


class LobbyShard:
    """The keys of one shard of the lobby, `<prefix>:{lobby:<n>}:*`."""

    def __init__(self, prefix: str, tag: str):
        self.summaries = f"{prefix}:{tag}:games"
        self.versions = f"{prefix}:{tag}:versions"
        self.listings = {status: f"{prefix}:{tag}:{status}" for status in STATUSES}


class Lobby:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._shards = [LobbyShard(prefix, tag) for tag in tags("lobby")]
        self._project = client.register_script(PROJECT)

    def project(self, game: Game) -> None:
        """Show `game` as of its version, unless the lobby shows a newer one already."""
        shard = self._shards[shard_of(game.id)]
        summary = json.dumps(asdict(GameSummary.of(game)), separators=(",", ":"))
        keys = [shard.summaries, shard.versions, *shard.listings.values()]
        status_key = 3 + STATUSES.index(game.status)
        score = game.created_at.timestamp()
        with redis_errors():
            self._project(keys=keys, args=[game.id, game.version, status_key, score, summary])

    def page(self, status: str, offset: int = 0, limit: int = 20) -> LobbyPage:
        """Games with `status`, newest first (the same moment: by id, last first),
        `limit` of them from `offset`."""
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for shard in self._shards:
                pipe.zcard(shard.listings[status])
                pipe.zrevrange(shard.listings[status], 0, offset + limit - 1, withscores=True)
            answers = pipe.execute()
        total = sum(answers[::2])
        entries = [(score, game_id) for shard in answers[1::2] for game_id, score in shard]
        ids = [game_id for _, game_id in sorted(entries, reverse=True)[offset : offset + limit]]
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for game_id in ids:
                pipe.hget(self._shards[shard_of(game_id.decode())].summaries, game_id)
            summaries = pipe.execute()
        games = []
        for summary in summaries:
            if summary is not None:  # removed by a rebuild in between
                fields = json.loads(summary)
                games.append(
                    GameSummary(
                        **{
                            **fields,
                            **{k: tuple(fields[k]) for k in ("factions", "seats", "open_seats")},
                        }
                    )
                )
        return LobbyPage(total, tuple(games))
