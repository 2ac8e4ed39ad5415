"""Ratings: a rating per registered player and per AI level, for 2, 3 and 4 players
apart, moved by every finished rated game (docs/design.md, Ratings).

The model is openskill's Plackett-Luce (Weng and Lin's Bayesian approximation): it
rates free-for-alls and teams as they are, a ranking of sides of one or more seats,
where Elo or Glicko-2 rate pairs and a 3-player game would have to be cut into duels.
A rating is a skill `mu` (25 at first) and its uncertainty `sigma` (25/3 at first);
the leaderboard orders by `mu` and marks a rating provisional while `sigma` is above
`PROVISIONAL_SIGMA`. Uncertainty grows with inactivity, as Glicko's does:
sigma' = sqrt(sigma^2 + SIGMA_GROWTH^2 * days), never above the first sigma. It is
applied at the next rated game (from the game's time, so the figures are a pure
function of the streams) and shown at read time.

How a rated game ranks its sides: a game played to the end by the rules' own order
(factions won, then their cards, then their values: RULES.md 7), equal keys tying; a
resignation or a forfeit puts the winning sides first and the loser after, tied
among themselves. An aborted game changes nothing. A seat is its registered player or
its AI level (`ai:<level>`); an entity holding several seats of one game (two greedy
seats) is rated once per seat and keeps the mean of those ratings.

The projection is a fold over the rated results in a fixed order (the game's end
time, then its id), so that `claim rebuild` recomputes exactly the same figures: a
result is recorded, then every result after the last one applied is applied; one
that lands before it (two games ending at once, their follow-ups racing) makes the
fold start again from the first result of that player count.

Keys, all under the hash tag `{ratings}`, per player count n:
`<prefix>:{ratings}:<n>:results` (game id by end time), `...:<n>:applied` (how many
results, and the last), `...:<n>:state` (entity -> rating), `...:<n>:board` (entity by
mu); for all: `<prefix>:{ratings}:results` (game id -> its result),
`<prefix>:{ratings}:changes` (game id -> each seat's change) and
`<prefix>:{ratings}:history:<entity>` (the entity's rated games by end time).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import asdict, dataclass, replace

import redis
from openskill.models import PlackettLuce

from .connection import redis_errors
from .fold import COMPLETED, FINISHED, Game
from .model import AI

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
SIGMA_GROWTH = 0.4  # per square root of a day without a rated game
PROVISIONAL_SIGMA = 6.0  # about 15 games of 2 players from the start
PLAYER_COUNTS = (2, 3, 4)
DAY = 86_400.0


def ai_entity(level: str) -> str:
    """The rated entity of an AI level: `ai:greedy`."""
    return f"{AI}:{level}"


def is_ai(entity: str) -> bool:
    return entity.startswith(f"{AI}:")


@dataclass(frozen=True, slots=True)
class Rating:
    """An entity's rating for one player count, as its last rated game left it."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0
    played_at: float | None = None  # the end of its last rated game, Unix seconds

    def sigma_at(self, when: float) -> float:
        """The uncertainty at `when` (Unix seconds), grown by the days since the last
        rated game."""
        if self.played_at is None:
            return self.sigma
        days = max(0.0, when - self.played_at) / DAY
        return min(MODEL.sigma, math.sqrt(self.sigma**2 + SIGMA_GROWTH**2 * days))

    def provisional_at(self, when: float) -> bool:
        return self.sigma_at(when) > PROVISIONAL_SIGMA


@dataclass(frozen=True, slots=True)
class RatedResult:
    """A finished rated game as the ratings need it."""

    game_id: str
    players: int
    finished_at: float  # Unix seconds: the time of the game's last event
    entities: tuple[str, ...]  # per seat
    sides: tuple[tuple[int, ...], ...]  # the seats of each side
    ranks: tuple[int, ...]  # per side, 1 first; equal ranks tie

    @classmethod
    def of(cls, game: Game) -> RatedResult | None:
        """The result of `game` if it is rated and finished (not aborted), and every
        seat is a registered player or an AI level; else None."""
        if not game.creation.rated or game.ending is None or game.status != FINISHED:
            return None
        entities = tuple(
            seat.player if seat.kind != AI else ai_entity(seat.level) for seat in game.seats
        )
        if None in entities:
            return None
        sides = game.settings.sides
        if game.ending.reason == COMPLETED:
            keys = game.result.side_keys
            ranks = tuple(1 + sum(other > key for other in keys) for key in keys)
        else:
            ranks = tuple(1 if side in game.ending.winners else 2 for side in range(len(sides)))
        return cls(
            game.id, game.settings.players, game.updated_at.timestamp(), entities, sides, ranks
        )

    def place_of(self, seat: int) -> int:
        """1 for a seat of a side ranked first (alone or tied), and so on."""
        return self.ranks[next(n for n, side in enumerate(self.sides) if seat in side)]

    def outcome_of(self, seat: int) -> str:
        """`won`, `drew` (every side tied) or `lost`."""
        if len(set(self.ranks)) == 1:
            return "drew"
        return "won" if self.place_of(seat) == 1 else "lost"


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What a rated game did to the rating of one seat's entity."""

    seat: int
    entity: str
    mu_before: float
    sigma_before: float  # grown by inactivity up to the game
    mu_after: float
    sigma_after: float


def rate(
    ratings: dict[str, Rating], result: RatedResult
) -> tuple[dict[str, Rating], tuple[RatingChange, ...]]:
    """The ratings of `result`'s entities after it (from `ratings`, new ones where an
    entity has none), and each seat's change."""
    before = {}
    for entity in result.entities:
        rating = ratings.get(entity, Rating())
        before[entity] = replace(rating, sigma=rating.sigma_at(result.finished_at))
    teams = [
        [MODEL.rating(mu=before[e].mu, sigma=before[e].sigma) for e in _side(result, side)]
        for side in result.sides
    ]
    copies = defaultdict(list)
    for side, team in zip(result.sides, MODEL.rate(teams, ranks=list(result.ranks)), strict=True):
        for seat, rated in zip(side, team, strict=True):
            copies[result.entities[seat]].append(rated)
    after = {
        entity: Rating(
            sum(r.mu for r in rated) / len(rated),
            sum(r.sigma for r in rated) / len(rated),
            before[entity].games + 1,
            result.finished_at,
        )
        for entity, rated in copies.items()
    }
    changes = tuple(
        RatingChange(
            seat,
            entity,
            before[entity].mu,
            before[entity].sigma,
            after[entity].mu,
            after[entity].sigma,
        )
        for seat, entity in enumerate(result.entities)
    )
    return after, changes


def _side(result: RatedResult, side: tuple[int, ...]) -> list[str]:
    return [result.entities[seat] for seat in side]


@dataclass(frozen=True, slots=True)
class Played:
    """A rated game as an entity's history shows it."""

    result: RatedResult
    change: RatingChange  # of the entity's first seat in it


def _json(value) -> str:
    return json.dumps(asdict(value), separators=(",", ":"))


def _result(text: bytes) -> RatedResult:
    fields = json.loads(text)
    return RatedResult(
        **{
            **fields,
            "entities": tuple(fields["entities"]),
            "sides": tuple(tuple(side) for side in fields["sides"]),
            "ranks": tuple(fields["ranks"]),
        }
    )


def _changes(text: bytes) -> tuple[RatingChange, ...]:
    return tuple(RatingChange(**fields) for fields in json.loads(text))


class Ratings:
    """The ratings' keys, `<prefix>:{ratings}:*`."""

    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._base = f"{prefix}:{{ratings}}"
        self._results = f"{self._base}:results"
        self._changes = f"{self._base}:changes"

    def _key(self, players: int, name: str) -> str:
        return f"{self._base}:{players}:{name}"

    def _history(self, entity: str) -> str:
        return f"{self._base}:history:{entity}"

    def record(self, result: RatedResult) -> None:
        """Note `result` among those to apply (again: no change)."""
        with redis_errors(), self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(self._results, result.game_id, _json(result))
            pipe.zadd(self._key(result.players, "results"), {result.game_id: result.finished_at})
            pipe.execute()

    def catch_up(self, players: int, again: bool = False) -> int:
        """Apply the results of `players` not applied yet, in order (all of them, from
        the start, with `again` or when one landed before the last applied); answer
        how many were applied."""
        results, applied = self._key(players, "results"), self._key(players, "applied")
        while True:
            with redis_errors(), self._redis.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(results, applied)
                    count, _, last = (pipe.get(applied) or b"0 ").decode().partition(" ")
                    count = int(count)
                    in_order = not again and (count == 0 or pipe.zrank(results, last) == count - 1)
                    start = count if in_order else 0
                    pending = pipe.zrange(results, start, -1)
                    if not pending and in_order:
                        return 0
                    ratings = self._state(pipe, players, pending) if in_order else {}
                    self._write(pipe, players, ratings, pending, start, in_order)
                    pipe.execute()
                    return len(pending)
                except redis.WatchError:
                    continue  # another process applied or recorded meanwhile: look again

    def _state(self, pipe, players: int, pending: list[bytes]) -> dict[str, Rating]:
        """The ratings now of the entities of the results `pending`."""
        entities = {
            entity
            for text in pipe.hmget(self._results, pending)
            for entity in _result(text).entities
        }
        names = sorted(entities)
        stored = pipe.hmget(self._key(players, "state"), names) if names else []
        return {
            name: Rating(**json.loads(text))
            for name, text in zip(names, stored, strict=True)
            if text is not None
        }

    def _write(
        self,
        pipe,
        players: int,
        ratings: dict[str, Rating],
        pending: list[bytes],
        start: int,
        in_order: bool,
    ) -> None:
        """Fold `pending` over `ratings` and write what it makes (from nothing unless
        `in_order`), in one transaction."""
        state, board = self._key(players, "state"), self._key(players, "board")
        results = [_result(text) for text in pipe.hmget(self._results, pending)] if pending else []
        stale = [] if in_order or not pending else [e.decode() for e in pipe.hkeys(state)]
        written = {}
        changes = {}
        for result in results:
            after, changes[result.game_id] = rate(ratings, result)
            ratings.update(after)
            written.update(after)
        pipe.multi()
        if not in_order:
            pipe.delete(state, board)
            for entity in stale:
                pipe.zrem(self._history(entity), *pending)
        for result in results:
            text = json.dumps([asdict(change) for change in changes[result.game_id]])
            pipe.hset(self._changes, result.game_id, text)
            for entity in set(result.entities):
                pipe.zadd(self._history(entity), {result.game_id: result.finished_at})
        if written:
            pipe.hset(state, mapping={entity: _json(rating) for entity, rating in written.items()})
            pipe.zadd(board, {entity: rating.mu for entity, rating in written.items()})
        last = pending[-1].decode() if pending else ""
        pipe.set(self._key(players, "applied"), f"{start + len(pending)} {last}")

    def rating(self, players: int, entity: str) -> Rating | None:
        with redis_errors():
            text = self._redis.hget(self._key(players, "state"), entity)
        return None if text is None else Rating(**json.loads(text))

    def board(self, players: int, offset: int, limit: int) -> tuple[int, list[tuple[str, Rating]]]:
        """How many entities are rated for `players`, and `limit` of them from
        `offset`, by skill, best first (equal skills by entity)."""
        board = self._key(players, "board")
        with redis_errors(), self._redis.pipeline(transaction=True) as pipe:
            pipe.zcard(board)
            pipe.zrevrange(board, offset, offset + limit - 1)
            total, entities = pipe.execute()
        with redis_errors():
            stored = self._redis.hmget(self._key(players, "state"), entities) if entities else []
        return total, [
            (entity.decode(), Rating(**json.loads(text)))
            for entity, text in zip(entities, stored, strict=True)
            if text is not None  # written again meanwhile
        ]

    def changes(self, game_id: str) -> tuple[RatingChange, ...] | None:
        """What the rated game `game_id` did to each seat's rating; None until applied."""
        with redis_errors():
            text = self._redis.hget(self._changes, game_id)
        return None if text is None else _changes(text)

    def history(self, entity: str, limit: int) -> list[Played]:
        """The entity's last `limit` rated games, newest first."""
        with redis_errors():
            game_ids = self._redis.zrevrange(self._history(entity), 0, limit - 1)
            if not game_ids:
                return []
            with self._redis.pipeline(transaction=False) as pipe:
                pipe.hmget(self._results, game_ids)
                pipe.hmget(self._changes, game_ids)
                results, changes = pipe.execute()
        played = []
        for result, change in zip(results, changes, strict=True):
            if result is not None and change is not None:
                mine = next(c for c in _changes(change) if c.entity == entity)
                played.append(Played(_result(result), mine))
        return played
