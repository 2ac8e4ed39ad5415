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

Against farming (a second account that loses on purpose), all from the results alone:
- a game ended by resignation or forfeit before `MIN_DECISIONS_PER_SEAT` decisions a
  seat is not counted: its result stands, no rating moves;
- a game counts for an entity by how often, within the day before it ended (its end
  time minus `DAY`, by the games' own end times), the entity met the one of the others
  it met most (two AI levels never count as a pair): the first `FULL_MEETINGS` fully,
  then half as much each, from game `LAST_MEETING` + 1 not at all; a game of weight w
  moves the rating w of the way the model would (`meetings`, `weight_of`);
- an opponent counts only once it is established (`is_established`): an AI level
  always, an account once it has met `ESTABLISHED_OPPONENTS` distinct established
  opponents; a game moves an entity by the mean worth of its distinct opponents (0 for
  one not established yet, `BOT_WEIGHT` for a bot's account when the entity is a
  person, else 1), times the weight of its meetings (`rate`);
- a rating keeps the first `MIN_OPPONENTS` distinct opponents of full worth met in
  games that moved it (for a person: established people and AI levels); an account is
  established from `ESTABLISHED_OPPONENTS` of them on, ranked (and out of provisional)
  from `MIN_OPPONENTS` (`is_ranked`).

The projection is a fold over the rated results in a fixed order (the game's end
time, then its id), so that `claim rebuild` recomputes exactly the same figures: a
result is recorded, then folded in its place (`Ratings.catch_up`), even one that lands
behind results applied already (two games ending at once, their follow-ups racing).

Keys, all under the hash tag `{ratings}`, per player count n:
`<prefix>:{ratings}:<n>:results` (game id by end time), `...:<n>:unapplied` (game ids
recorded, not folded yet), `...:<n>:generation` (bumped by every fold), `...:<n>:state`
(entity -> rating), `...:<n>:board` (ranked entity by mu), `...:<n>:unranked` (the
others by mu); for all:
`<prefix>:{ratings}:results` (game id -> its result), `<prefix>:{ratings}:changes` (game
id -> each seat's change), `<prefix>:{ratings}:priors` (game id -> its entities'
ratings just before it) and `<prefix>:{ratings}:history:<entity>` (the entity's rated
games by end time).
"""

from __future__ import annotations

import itertools
import json
import math
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
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
# Against farming (the module's docstring; docs/ratings.md):
MIN_DECISIONS_PER_SEAT = 4  # a game resigned or forfeited sooner is not rated: 8 in a duel
FULL_MEETINGS = 3  # games a day of the same two that count fully; then 1/2, 1/4, 1/8
LAST_MEETING = 6  # the last of them that counts at all
ESTABLISHED_OPPONENTS = 3  # as FIDE rates a newcomer: the AI levels suffice to start with
BOT_WEIGHT = 0.5  # a person's game against a bot's account counts half, as on Lichess
MIN_OPPONENTS = 5  # distinct opponents of full worth a player meets before being ranked


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
    games: int = 0  # rated games that moved it
    played_at: float | None = None  # the end of its last rated game, Unix seconds
    opponents: tuple[str, ...] = ()  # the first MIN_OPPONENTS distinct ones of full worth

    def sigma_at(self, when: float) -> float:
        """The uncertainty at `when` (Unix seconds), grown by the days since the last
        rated game."""
        if self.played_at is None:
            return self.sigma
        days = max(0.0, when - self.played_at) / DAY
        return min(MODEL.sigma, math.sqrt(self.sigma**2 + SIGMA_GROWTH**2 * days))

    def provisional_at(self, when: float) -> bool:
        """Uncertain still at `when` (whether ranked or not: `is_ranked`)."""
        return self.sigma_at(when) > PROVISIONAL_SIGMA


def is_ranked(entity: str, rating: Rating) -> bool:
    """Whether `entity` has a rank on the leaderboard: an AI level always, a player once
    it has met `MIN_OPPONENTS` distinct established opponents (a person: bots aside), so
    that wins over accounts of one's own do not put a new account at the top."""
    return is_ai(entity) or len(rating.opponents) >= MIN_OPPONENTS


def is_established(entity: str, rating: Rating | None) -> bool:
    """Whether `entity`'s results count for its opponents: an AI level always, a player
    once it has met `ESTABLISHED_OPPONENTS` distinct established opponents (an account
    nobody established has met tells nothing of their strength: it may be one's own)."""
    return is_ai(entity) or (rating is not None and len(rating.opponents) >= ESTABLISHED_OPPONENTS)


@dataclass(frozen=True, slots=True)
class RatedResult:
    """A finished rated game as the ratings need it."""

    game_id: str
    players: int
    finished_at: float  # Unix seconds: the time of the game's last event
    entities: tuple[str, ...]  # per seat
    sides: tuple[tuple[int, ...], ...]  # the seats of each side
    ranks: tuple[int, ...]  # per side, 1 first; equal ranks tie
    # How the game ended and after how many decisions (defaults: a result recorded
    # before they were kept, rated as it was then until `claim rebuild`).
    reason: str = COMPLETED
    decisions: int = 0
    # The entities that are bots' accounts (a player's flag, which never changes, named
    # by whoever records the result: `service.games.rated_result`).
    bots: tuple[str, ...] = ()

    @classmethod
    def of(cls, game: Game) -> RatedResult | None:
        """The result of `game` if it is rated and finished (not aborted), and every
        seat is a registered player or an AI level; else None. Its `bots` are not
        named (the game does not know them)."""
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
            game.id,
            game.settings.players,
            game.updated_at.timestamp(),
            entities,
            sides,
            ranks,
            game.ending.reason,
            game.decisions,
        )

    @property
    def counted(self) -> bool:
        """Whether it may move ratings: played to the end, or resigned or forfeited
        after `MIN_DECISIONS_PER_SEAT` decisions a seat (a game thrown at once, by a
        second account or an opponent who never came, rates nobody)."""
        return self.reason == COMPLETED or self.decisions >= MIN_DECISIONS_PER_SEAT * self.players

    def opponents_of(self, entity: str) -> set[str]:
        """The entities of the sides `entity` does not play on."""
        own = {side for side in self.sides if any(self.entities[s] == entity for s in side)}
        return {self.entities[s] for side in self.sides if side not in own for s in side}

    def is_person(self, entity: str) -> bool:
        """A registered player who is no bot's account."""
        return not is_ai(entity) and entity not in self.bots

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
    weight: float = 1.0  # how much the game counted: 1 fully, 0 not at all
    meetings: int = 1  # `meetings` of the entity in it; 0: the game is not counted
    newcomers: int = 0  # distinct opponents not established yet (worth 0)
    bots: int = 0  # distinct opponents that are established bots, for a person (worth 1/2)


def meetings(results: Sequence[RatedResult], start: int = 0) -> list[dict[str, int]]:
    """Per result of `results[start:]`, per entity: how many counted results, this one
    included, it shared within the day up to this one with the other entity it shared
    most with (1 with none: only AI levels beside an AI level); 0 throughout a result
    not counted. `results` in fold order; those before `start` are only counted (they
    must hold the day before `results[start]`). A function of the results alone, so a
    rebuild and the fold of a late result count alike."""
    times: dict[tuple[str, str], deque[float]] = defaultdict(deque)  # per pair, in the day
    answers = []
    for n, result in enumerate(results):
        mine = dict.fromkeys(result.entities, 1 if result.counted else 0)
        pairs = itertools.combinations(sorted(set(result.entities)), 2) if result.counted else ()
        for pair in pairs:
            if all(is_ai(entity) for entity in pair):
                continue  # the ladder's games: no person to gain from them
            met = times[pair]
            while met and met[0] <= result.finished_at - DAY:
                met.popleft()
            met.append(result.finished_at)
            for entity in pair:
                mine[entity] = max(mine[entity], len(met))
        if n >= start:
            answers.append(mine)
    return answers


def weight_of(meetings: int) -> float:
    """How much a game counts for an entity of `meetings` (see `meetings`): fully up
    to `FULL_MEETINGS`, then half as much each, not at all past `LAST_MEETING`."""
    if not 0 < meetings <= LAST_MEETING:
        return 0.0
    return 0.5 ** max(0, meetings - FULL_MEETINGS)


def worth(result: RatedResult, entity: str, opponent: str, rating: Rating | None) -> float:
    """How much `opponent`, of the rating `rating` before `result`, counts for `entity`
    in it: not at all while not established (`is_established`), `BOT_WEIGHT` if it is a
    bot's account and `entity` a person, else fully."""
    if not is_established(opponent, rating):
        return 0.0
    if opponent in result.bots and result.is_person(entity):
        return BOT_WEIGHT
    return 1.0


def rate(
    ratings: dict[str, Rating], result: RatedResult, met: Mapping[str, int] | None = None
) -> tuple[dict[str, Rating], tuple[RatingChange, ...]]:
    """The ratings of `result`'s entities that it moves, after it (from `ratings`, new
    ones where an entity has none), and each seat's change. `met`: each entity's
    `meetings` (None: a first meeting of all). An entity's rating moves its weight of
    the way the model says, and not at all (not even its games) at weight 0: `weight_of`
    its meetings times the mean `worth` of its distinct opponents (1 with none)."""
    met = met or dict.fromkeys(result.entities, 1 if result.counted else 0)
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
    worths, weights = {}, {}
    for entity in copies:
        opponents = sorted(result.opponents_of(entity))
        worths[entity] = {o: worth(result, entity, o, ratings.get(o)) for o in opponents}
        mean = sum(worths[entity].values()) / len(opponents) if opponents else 1.0
        weights[entity] = weight_of(met[entity]) * mean
    after = {}
    for entity, rated in copies.items():
        weight, prior = weights[entity], before[entity]
        if weight == 0:
            continue
        mu = sum(r.mu for r in rated) / len(rated)
        sigma = sum(r.sigma for r in rated) / len(rated)
        full = [o for o, w in worths[entity].items() if w == 1 and o not in prior.opponents]
        after[entity] = Rating(
            prior.mu + weight * (mu - prior.mu),
            prior.sigma + weight * (sigma - prior.sigma),
            prior.games + 1,
            result.finished_at,
            (*prior.opponents, *full)[:MIN_OPPONENTS],
        )
    changes = tuple(
        RatingChange(
            seat,
            entity,
            before[entity].mu,
            before[entity].sigma,
            after.get(entity, before[entity]).mu,
            after.get(entity, before[entity]).sigma,
            weights[entity],
            met[entity],
            sum(w == 0 for w in worths[entity].values()),
            sum(w == BOT_WEIGHT for w in worths[entity].values()),
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
            "bots": tuple(fields.get("bots", ())),
        }
    )


def _rating(text: bytes) -> Rating:
    return _rating_of(json.loads(text))


def _rating_of(fields: dict) -> Rating:
    return Rating(**{**fields, "opponents": tuple(fields.get("opponents", ()))})


def _changes(text: bytes) -> tuple[RatingChange, ...]:
    return tuple(RatingChange(**fields) for fields in json.loads(text))


# KEYS: the results' data, the player count's results by end time, its unapplied set.
# ARGV: game id, end time, the result as JSON. A result recorded before is not applied
# again; its data is written again (the same, but for a result recorded by a version
# that kept less of it: `claim rebuild` then folds it as it is now).
RECORD = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
if redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1]) == 0 then return 0 end
redis.call('SADD', KEYS[3], ARGV[1])
return 1
"""
# KEYS: the board (ranked entities by skill), the unranked ones by skill, the state
# (entity -> rating). ARGV: offset, limit. A page of the ranked, then the unranked; one
# script, so that a page's order and figures are of one moment.
BOARD = """
local ranked, unranked = redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2])
local first = tonumber(ARGV[1])
local last = first + tonumber(ARGV[2]) - 1
local entities = {}
if first < ranked then
    entities = redis.call('ZREVRANGE', KEYS[1], first, math.min(last, ranked - 1))
end
if last >= ranked then
    local rest = redis.call('ZREVRANGE', KEYS[2], math.max(first - ranked, 0), last - ranked)
    for _, entity in ipairs(rest) do table.insert(entities, entity) end
end
local ratings = {}
if #entities > 0 then ratings = redis.call('HMGET', KEYS[3], unpack(entities)) end
return {ranked, unranked, entities, ratings}
"""


@dataclass(frozen=True, slots=True)
class Board:
    """A page of the leaderboard of one player count: the ranked entities by skill,
    best first, then the unranked (`is_ranked`) by skill."""

    total: int  # rated entities
    ranked: int  # of them ranked: the first `ranked` of the whole board
    entries: list[tuple[str, Rating]]


class Ratings:
    """The ratings' keys, `<prefix>:{ratings}:*`.

    Each applied result keeps `priors`: its entities' ratings just before it. A result
    recorded behind applied ones (its game ended earlier, its follow-up came later)
    is folded in its place: the applied results after it are undone with their
    priors, newest first, and everything from it on is folded again, in order. A
    `generation` counter, watched, makes two processes' folds one after the other."""

    def __init__(self, client: redis.Redis, prefix: str):
        self._redis = client
        self._base = f"{prefix}:{{ratings}}"
        self._results = f"{self._base}:results"
        self._changes = f"{self._base}:changes"
        self._priors = f"{self._base}:priors"
        self._record = client.register_script(RECORD)
        self._board = client.register_script(BOARD)

    def _key(self, players: int, name: str) -> str:
        return f"{self._base}:{players}:{name}"

    def _history(self, entity: str) -> str:
        return f"{self._base}:history:{entity}"

    def record(self, result: RatedResult) -> None:
        """Note `result` among those to apply (recorded before: no change)."""
        keys = [self._results, self._key(result.players, "results")]
        keys.append(self._key(result.players, "unapplied"))
        with redis_errors():
            self._record(keys=keys, args=[result.game_id, result.finished_at, _json(result)])

    def catch_up(self, players: int, again: bool = False) -> list[str]:
        """Apply the results of `players` not applied yet, each in its place (with
        `again`: every result, from the first); answer the games whose results were
        folded (their rating changes written), in order."""
        results, unapplied = self._key(players, "results"), self._key(players, "unapplied")
        generation = self._key(players, "generation")
        while True:
            with redis_errors(), self._redis.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(generation)
                    waiting = pipe.smembers(unapplied)
                    if not waiting and not again:
                        return []
                    ranks = [pipe.zrank(results, game_id) for game_id in waiting]
                    start = 0 if again else min((r for r in ranks if r is not None), default=0)
                    pending = [g.decode() for g in pipe.zrange(results, start, -1)]
                    self._fold(pipe, players, pending, again)
                    pipe.incr(generation)
                    pipe.execute()
                    return pending
                except redis.WatchError:
                    continue  # another process folded meanwhile: look again

    def _fold(self, pipe, players: int, pending: list[str], again: bool) -> None:
        """Undo the applied results of `pending` (those with priors), fold them all
        again with the others, in order, and queue the writes (the transaction opens
        here)."""
        state, board, unranked = (self._key(players, k) for k in ("state", "board", "unranked"))
        texts = pipe.hmget(self._results, pending) if pending else []
        results = [_result(text) for text in texts]
        ratings = {}
        entities = sorted({e for r in results for e in r.entities})
        earlier = []
        if not again and results:
            stored = pipe.hmget(state, entities)
            ratings = {e: _rating(t) for e, t in zip(entities, stored, strict=True) if t}
            applied = [text for text in pipe.hmget(self._priors, pending) if text is not None]
            for text in reversed(applied):  # newest first: back to before the first pending
                for entity, prior in json.loads(text).items():
                    if prior is None:
                        ratings.pop(entity, None)
                    else:
                        ratings[entity] = _rating_of(prior)
            earlier = self._day_before(pipe, players, results[0], set(pending))
        changes, priors, moved = {}, {}, {}
        for result, met in zip(results, meetings([*earlier, *results], len(earlier)), strict=True):
            priors[result.game_id] = {
                e: None if e not in ratings else asdict(ratings[e]) for e in set(result.entities)
            }
            after, changes[result.game_id] = rate(ratings, result, met)
            ratings.update(after)
            moved[result.game_id] = set(after)
        pipe.multi()
        if again:
            pipe.delete(state, board, unranked)
        for result in results:
            changed = [asdict(change) for change in changes[result.game_id]]
            pipe.hset(self._changes, result.game_id, json.dumps(changed))
            pipe.hset(self._priors, result.game_id, json.dumps(priors[result.game_id]))
            for entity in set(result.entities):  # its history: the games that moved it
                if entity in moved[result.game_id]:
                    pipe.zadd(self._history(entity), {result.game_id: result.finished_at})
                else:
                    pipe.zrem(self._history(entity), result.game_id)
        for entity in entities:  # as the fold left it: moved, undone, or unrated after all
            rating = ratings.get(entity)
            if rating is None:
                pipe.hdel(state, entity)
                pipe.zrem(board, entity)
                pipe.zrem(unranked, entity)
                continue
            listed, other = (board, unranked) if is_ranked(entity, rating) else (unranked, board)
            pipe.hset(state, entity, _json(rating))
            pipe.zadd(listed, {entity: rating.mu})
            pipe.zrem(other, entity)
        if pending:
            pipe.srem(self._key(players, "unapplied"), *pending)

    def _day_before(self, pipe, players: int, first: RatedResult, pending: set[str]):
        """The results folded before `first` that ended within a day before it (for
        `meetings`), in order."""
        since = f"({first.finished_at - DAY!r}"  # exclusive: a day before is out
        window = pipe.zrangebyscore(self._key(players, "results"), since, first.finished_at)
        game_ids = [g for g in window if g.decode() not in pending]
        return [_result(text) for text in pipe.hmget(self._results, game_ids)] if game_ids else []

    def rating(self, players: int, entity: str) -> Rating | None:
        with redis_errors():
            text = self._redis.hget(self._key(players, "state"), entity)
        return None if text is None else _rating(text)

    def board(self, players: int, offset: int, limit: int) -> Board:
        """`limit` of the entities rated for `players` from `offset`: the ranked by
        skill, best first, then the others by skill."""
        keys = [self._key(players, name) for name in ("board", "unranked", "state")]
        with redis_errors():
            ranked, others, entities, stored = self._board(keys=keys, args=[offset, limit])
        entries = [(e.decode(), _rating(text)) for e, text in zip(entities, stored, strict=True)]
        return Board(ranked + others, ranked, entries)

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
