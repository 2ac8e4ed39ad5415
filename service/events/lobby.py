"""The lobby: games listed by status (open, running, finished, aborted), newest first,
and filtered by the facets that never change in a game (`FACETS`: its players, whether
it is rated, whether it is public).

A projection of the streams, updated after each change that alters a listing
(`service.games.changes`) and written again from the streams by `claim rebuild`. A
game's entries are in one shard (`shards.py`), whose keys share the hash tag
`{lobby:<n>}`, so that one Lua script updates them together, and only with a version
newer than the one they show: updates arriving out of order cannot go back in time.
Having written, the script publishes `lobby` on the channel of changes (`store.py`).

Keys of a shard: `<prefix>:{lobby:<n>}:games` (game id -> its summary), `...:versions`
(game id -> the version shown), and per status a listing (a sorted set by creation
time), `...:<status>`, and one per combination of the game's facets,
`...:<status>:players=2`, `...:<status>:players=2,rated=1,public=0`...: a game is in 8
listings of its status (7 entries more than without filters), so that a filtered page
reads one sorted set per shard as an unfiltered one does, whatever the count of games
the filter leaves out (an intersection per page would cost the size of the listing;
the embedded Redis, 6.2, has no ZINTERCARD either). A page merges the shards: the
first `offset + limit` of each, newest first.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from dataclasses import asdict, dataclass, fields

import redis

from .connection import redis_errors
from .fold import STATUSES, Game
from .shards import shard_of, tags
from .store import LOBBY_CHANGED, changes_channel

# KEYS: summaries, versions, then the game's listings of every status.
# ARGV: game id, version, the first and the last index in KEYS of its status's
# listings, score, summary, "1" to write the version shown again (a rebuild), the
# channel of changes, its message.
PROJECT = """
local known = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local version = tonumber(ARGV[2])
if known > version or (known == version and ARGV[7] ~= '1') then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[6])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
for i = 3, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
for i = tonumber(ARGV[3]), tonumber(ARGV[4]) do redis.call('ZADD', KEYS[i], ARGV[5], ARGV[1]) end
redis.call('PUBLISH', ARGV[8], ARGV[9])
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
class LobbyFilter:
    """Which games of a listing a page keeps: of `players`, rated or not, public or not
    (None: any)."""

    players: int | None = None
    rated: bool | None = None
    public: bool | None = None

    def facets(self) -> dict[str, int]:
        """The value of each facet it keeps one value of, as a number."""
        return {name: int(value) for name, value in asdict(self).items() if value is not None}


FACETS = tuple(field.name for field in fields(LobbyFilter))  # in the order of their keys


@dataclass(frozen=True, slots=True)
class LobbyPage:
    total: int  # games with that status (and those facets)
    games: tuple[GameSummary, ...]


def _facets(players: int, rated: bool, public: bool) -> dict[str, int]:
    """A game's value of each of `FACETS`."""
    return {"players": players, "rated": int(rated), "public": int(public)}


class LobbyShard:
    """The keys of one shard of the lobby, `<prefix>:{lobby:<n>}:*`."""

    def __init__(self, prefix: str, tag: str):
        self.summaries = f"{prefix}:{tag}:games"
        self.versions = f"{prefix}:{tag}:versions"
        self._base = f"{prefix}:{tag}"

    def listing(self, status: str, facets: dict[str, int]) -> str:
        """The listing of the games with `status` and these values of some `FACETS`
        (none: every game with `status`)."""
        chosen = ",".join(f"{name}={facets[name]}" for name in FACETS if name in facets)
        return f"{self._base}:{status}:{chosen}" if chosen else f"{self._base}:{status}"

    def listings(self, status: str, facets: dict[str, int]) -> list[str]:
        """Every listing of `status` that would show a game of `facets`: one per
        combination of them, all of them, none and each in between."""
        return [
            self.listing(status, {name: facets[name] for name in chosen})
            for size in range(len(FACETS) + 1)
            for chosen in itertools.combinations(FACETS, size)
        ]


class Lobby:
    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._shards = [LobbyShard(prefix, tag) for tag in tags("lobby")]
        self._project = client.register_script(PROJECT)
        self._channel = changes_channel(prefix)

    def project(self, game: Game, again: bool = False) -> None:
        """Show `game` as of its version, unless the lobby shows a newer one already
        (or, without `again`, that one)."""
        shard = self._shards[shard_of(game.id)]
        summary = json.dumps(asdict(GameSummary.of(game)), separators=(",", ":"))
        facets = _facets(game.settings.players, game.creation.rated, game.public)
        listings = [shard.listings(status, facets) for status in STATUSES]
        keys = [shard.summaries, shard.versions, *itertools.chain(*listings)]
        first = 3 + STATUSES.index(game.status) * len(listings[0])
        last = first + len(listings[0]) - 1
        score = game.created_at.timestamp()
        args = [game.id, game.version, first, last, score, summary, int(again)]
        with redis_errors():
            self._project(keys=keys, args=[*args, self._channel, LOBBY_CHANGED])

    def forget(self, ended: dict[str, dict]) -> None:
        """Take the `ended` games (id: the facts of its archive row, `row_facts`) off
        the lobby: they are listed from the archive now. (An ended game is in the
        listings of its status only: `project` moved it there from the others, and
        nothing changes an ended game's status.)"""
        hashes, listings = defaultdict(list), defaultdict(list)  # key: its game ids
        for game_id, facts in ended.items():
            shard = self._shards[shard_of(game_id)]
            hashes[shard.summaries].append(game_id)
            hashes[shard.versions].append(game_id)
            facets = _facets(facts["players"], facts["rated"], facts["public"])
            for listing in shard.listings(facts["status"], facets):
                listings[listing].append(game_id)
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for key, ids in hashes.items():  # one key a command: on a cluster too
                pipe.hdel(key, *ids)
            for key, ids in listings.items():
                pipe.zrem(key, *ids)
            pipe.execute()
            self._redis.publish(self._channel, LOBBY_CHANGED)

    def page(
        self, status: str, offset: int = 0, limit: int = 20, only: LobbyFilter = LobbyFilter()
    ) -> LobbyPage:
        """Games with `status` (those `only` keeps), newest first (the same moment: by
        id, last first), `limit` of them from `offset`."""
        total, listed = self.listing(status, offset + limit, only)
        ids = [game_id for _, game_id in listed[offset : offset + limit]]
        summaries = self.summaries(ids)
        return LobbyPage(total, tuple(summaries[i] for i in ids if i in summaries))

    def listing(
        self, status: str, count: int, only: LobbyFilter = LobbyFilter()
    ) -> tuple[int, list[tuple[float, str]]]:
        """How many games have `status` (those `only` keeps), and the first `count` of
        them, newest first (the same moment: by id, last first), each with its
        creation time (Unix time)."""
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for shard in self._shards:
                listing = shard.listing(status, only.facets())
                pipe.zcard(listing)
                pipe.zrevrange(listing, 0, count - 1, withscores=True)
            answers = pipe.execute()
        total = sum(answers[::2])
        entries = [(score, game_id.decode()) for shard in answers[1::2] for game_id, score in shard]
        return total, sorted(entries, reverse=True)[:count]

    def summaries(self, game_ids: list[str]) -> dict[str, GameSummary]:
        """The summaries of the games of `game_ids` that the lobby lists."""
        with redis_errors(), self._redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.hget(self._shards[shard_of(game_id)].summaries, game_id)
            texts = pipe.execute()
        found = {}
        for game_id, text in zip(game_ids, texts, strict=True):
            if text is not None:  # removed by a rebuild, or archived, in between
                fields = json.loads(text)
                tuples = {k: tuple(fields[k]) for k in ("factions", "seats", "open_seats")}
                found[game_id] = GameSummary(**{**fields, **tuples})
        return found
