"""A player's stream (`GET /me/stream`): everything that concerns one player, for a
program that plays. First the situation (`state`: the open and running games of the
player with whose turn it is, those waiting for the player first, and the oldest open
challenges sent or received, `STATE_GAMES` and `LISTED_CHALLENGES` of them at most,
with how many there are: `/me/games` and `/me/challenges` page the rest); with the id of
the last event seen (`Last-Event-ID`), what it missed meanwhile (games ended,
challenges answered, rematches offered); then each thing as it happens.

It waits as a game's stream does, on the process's watchers: one waiter for the
player's news (`announce_player`: a challenge, a game joined, a rematch) and for each
of the player's games. An event's id is the time (ms) as of which the stream had told
everything before it; a stream resumed from an id tells again what ended within
`MARGIN` seconds before it (at least once: a client may hear a thing twice). It tells
public facts only: no card, ever.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from service.events import ACCEPTED, FINISHED, OPEN, RUNNING, Challenge, Game, StoreError
from service.events import OPEN as CHALLENGE_OPEN

from .access import me
from .challenges import LISTED_CHALLENGES, challenge_body, shown
from .claim import Claim
from .errors import TooManyStreams, use_case
from .inbox import ending_body, rematch_of
from .live import STAYING, Connection, _give_back, _take_lease, revocable
from .ratings import rating_change

log = logging.getLogger(__name__)
STATE, KEEPALIVE = "state", "keepalive"
YOUR_TURN, GAME_STARTED, GAME_FINISHED = "your-turn", "game-started", "game-finished"
CHALLENGE, REMATCH_OFFERED = "challenge", "rematch-offered"
MARGIN = 5.0  # seconds before a resumed id whose endings are told again
RATINGS_WAIT = 10.0  # seconds a rated game's end waits for its ratings before it is told
RECENT_ENDINGS = timedelta(hours=1)  # ended games whose rematch offers a new stream tells
STATE_GAMES = 100  # the most games a `state` lists: 20 KB (tests/api/test_floods.py)


@dataclass(frozen=True, slots=True)
class PlayerEvent:
    """What a player's stream sends next: `type` and its data; `id` to resume from
    (None for a keep-alive)."""

    type: str
    data: dict = field(default_factory=dict)
    id: str | None = None


def resume_time(last_event_id: str | None) -> datetime | None:
    """The time a `Last-Event-ID` of this stream stands for; None for anything else."""
    if not last_event_id or not last_event_id.isdigit() or len(last_event_id) > 15:
        return None
    return datetime.fromtimestamp(int(last_event_id) / 1000, UTC)


@use_case
def player_stream(
    claim: Claim,
    key: str | None,
    address: str,
    resume: datetime | None,
    seconds: float,
    keepalive: float,
    connection: Connection = STAYING,
) -> Iterator[PlayerEvent]:
    """The stream of the player whose key this is (see the module), until `seconds`
    pass, the client of `connection` left or the key is revoked (its place freed at
    once); a `keepalive` event after each `keepalive` seconds without one. The player
    holds at most `Config.player_streams` at once (TooManyStreams), and the address a
    lease as for any stream; both are taken before the first event is asked for."""
    player_id = me(claim, key).id
    slot = claim.watch_leases.take(f"player:{player_id}", claim.config.player_streams)
    if slot is None:
        raise TooManyStreams(f"more than {claim.config.player_streams} streams of one player")
    try:
        lease = _take_lease(claim, address)
    except Exception:
        _give_back(claim, slot)
        raise
    stream = _Stream(claim, player_id)
    connection = revocable(claim, connection, key)
    return stream.events(resume, seconds, keepalive, connection, (slot, lease))


class _Stream:
    """What one player's stream has told, to tell what changed since."""

    def __init__(self, claim: Claim, player_id: str):
        self.claim = claim
        self.player_id = player_id
        self.games: dict[str, tuple[int, str, bool]] = {}  # id -> version, status, your turn
        self.listed: set[str] = set()  # the player's games looked at (and watched)
        self.ended: dict[str, Game] = {}  # ended games told (or to tell) of
        self.rematches_told: set[str] = set()
        self.challenges: dict[str, str] = {}  # id -> status told
        self.waiting_ratings: dict[str, float] = {}  # game id -> when to tell it anyway
        self.started = datetime.now(UTC)  # as of the state (`_state` sets it)

    def events(self, resume, seconds, keepalive, connection, leases) -> Iterator[PlayerEvent]:
        claim = self.claim
        try:
            with (
                claim.watchers.watching_player(self.player_id) as waiter,
                connection.on_leaving(waiter.wake),
            ):
                self.waiter = waiter
                as_of = claim.clock()
                yield from self._state(as_of, resume)
                until = time.monotonic() + seconds
                quiet_since = time.monotonic()
                while True:
                    left = until - time.monotonic()
                    if left <= 0 or connection.left:
                        return
                    timeout = min(quiet_since + keepalive - time.monotonic(), left)
                    if self.waiting_ratings:
                        timeout = min(timeout, min(self.waiting_ratings.values()) - time.time())
                    waiter.wait(max(timeout, 0))
                    as_of = claim.clock()
                    announced = waiter.games()
                    news = self._challenge_news(as_of) if waiter.take_player() else []
                    if news or announced or self.waiting_ratings:
                        news += self._game_news(as_of, announced)
                    if news:
                        yield from news
                        quiet_since = time.monotonic()
                    elif time.monotonic() >= quiet_since + keepalive:
                        yield PlayerEvent(KEEPALIVE)
                        quiet_since = time.monotonic()
        except StoreError as error:  # the stream ends; its client comes back and is told all
            log.warning("player %s: a stream ended: %s", self.player_id, error)
        finally:
            for lease in leases:
                _give_back(claim, lease)

    def _state(self, as_of: datetime, resume: datetime | None) -> Iterator[PlayerEvent]:
        """The situation, then (resumed) what ended since `resume`."""
        event_id = _id(as_of)
        self.started = as_of
        games = self._games_of_player()
        since = as_of - RECENT_ENDINGS if resume is None else resume - timedelta(seconds=MARGIN)
        running = []
        for game in games:
            if game.ending is None:
                running.append(game)
                self.games[game.id] = self._seen(game)
            elif game.updated_at > since:
                self.ended[game.id] = game
        challenges = self.claim.challenges.of(self.player_id)
        open_ones = [c for c in challenges if c.status == CHALLENGE_OPEN]
        for c in open_ones:
            self.challenges[c.id] = c.status
        listed = sorted(running, key=lambda game: not self._seen(game)[2])[:STATE_GAMES]
        yield PlayerEvent(
            STATE,
            {
                "games": [self._game_entry(game) for game in listed],
                "games_total": len(running),
                "challenges": [
                    challenge_body(shown(self.claim, c)) for c in open_ones[:LISTED_CHALLENGES]
                ],
                "challenges_total": len(open_ones),
            },
            event_id,
        )
        if resume is not None:
            for c in challenges:
                if c.status != CHALLENGE_OPEN and c.updated_at > since:
                    if self._game_unmade(c):
                        self.challenges[c.id] = CHALLENGE_OPEN  # told once it is made
                        continue
                    self.challenges[c.id] = c.status
                    yield _challenge_event(self.claim, c, event_id)
            for game in list(self.ended.values()):
                yield from self._finished(game, event_id, wait=False)
        yield from self._rematches(event_id)

    def _games_of_player(self) -> list[Game]:
        """The player's games in Redis (an archived one ended long ago) not looked at
        yet by this stream, watched first: nothing that happens to them from now on is
        missed."""
        new = [g for g in self.claim.player_games.of(self.player_id) if g not in self.listed]
        self.claim.watchers.watch_games(self.waiter, new)
        self.listed.update(new)
        return self.claim.store.load_many(new) if new else []

    def _challenge_news(self, as_of: datetime) -> list[PlayerEvent]:
        """What became of the player's challenges since told; new games joined."""
        event_id = _id(as_of)
        joined = self._games_of_player()  # since: first, for `_game_unmade`
        news = []
        for c in self.claim.challenges.of(self.player_id):
            told = self.challenges.get(c.id)
            if told == c.status or (told is None and c.updated_at < self.started):
                continue  # closed before this stream began: not news
            if self._game_unmade(c):
                continue  # told with its game, announced once the player has a seat in it
            self.challenges[c.id] = c.status
            if c.status != CHALLENGE_OPEN or c.to == self.player_id:
                news.append(_challenge_event(self.claim, c, event_id))
        for game in joined:
            news += self._changed(game, event_id)
        news += list(self._rematches(event_id))
        return news

    def _game_unmade(self, challenge: Challenge) -> bool:
        """Whether `challenge` is accepted but its game not yet made with the player
        seated (accepting closes the challenge first, then makes the game): a client
        told of it opens the game at once and must find its seat there."""
        return challenge.status == ACCEPTED and challenge.game_id not in self.listed

    def _game_news(self, as_of: datetime, announced: dict) -> list[PlayerEvent]:
        """What became of the games announced (and of those waiting for ratings)."""
        event_id = _id(as_of)
        game_ids = [g for g in announced if g in self.games or g in self.waiting_ratings]
        news = []
        for game in self.claim.store.load_many(game_ids) if game_ids else []:
            news += self._changed(game, event_id)
        now = time.time()
        for game_id, at in list(self.waiting_ratings.items()):
            if at <= now and game_id not in game_ids:
                news += self._finished(self.ended[game_id], event_id, wait=False)
        return news

    def _changed(self, game: Game, event_id: str) -> list[PlayerEvent]:
        """The events of a game's change: started, the player's turn, ended."""
        if game.id in self.waiting_ratings:
            return list(self._finished(game, event_id, wait=True))
        if game.id in self.ended:
            return []
        before = self.games.get(game.id)
        seen = self._seen(game)
        self.games[game.id] = seen
        version, status, your_turn = seen
        news = []
        seat = self._seat(game)
        if status == RUNNING and (before is None or before[1] == OPEN):
            news.append(PlayerEvent(GAME_STARTED, {"game_id": game.id, "seat": seat}, event_id))
        if your_turn and (before is None or before[0] != version or not before[2]):
            news.append(PlayerEvent(YOUR_TURN, self._turn(game), event_id))
        if game.ending is not None:
            del self.games[game.id]
            self.ended[game.id] = game
            news += self._finished(game, event_id, wait=True)
        return news

    def _finished(self, game: Game, event_id: str, wait: bool) -> Iterator[PlayerEvent]:
        """A game's end; a rated one's with the player's rating change, once in (or
        after `RATINGS_WAIT` seconds, without: `wait` False)."""
        rating = None
        if game.creation.rated and game.status == FINISHED:
            changes = self.claim.ratings.changes(game.id)
            mine = [c for c in changes or () if c.entity == self.player_id]
            if mine:
                rating = rating_change(mine[0])
            elif wait and self.waiting_ratings.setdefault(game.id, time.time() + RATINGS_WAIT) > (
                time.time()
            ):
                return
        self.waiting_ratings.pop(game.id, None)
        seat = self._seat(game)
        ending = ending_body(game)
        won = None if not ending["winners"] else game.settings.side_of(seat) in ending["winners"]
        body = {
            "game_id": game.id,
            "seat": seat,
            "version": game.version,
            "result": ending,
            "you_won": won,
            "rating": rating,
        }
        yield PlayerEvent(GAME_FINISHED, body, event_id)

    def _rematches(self, event_id: str) -> Iterator[PlayerEvent]:
        """The rematches of the ended games known whose seat of the player's is not
        taken yet: offered to the player."""
        for game_id, game in list(self.ended.items()):
            if game_id in self.rematches_told or game.status != FINISHED:
                continue
            rematch = rematch_of(self.claim, game)
            if rematch is None:
                continue
            self.rematches_told.add(game_id)
            seat = (self._seat(game) + 1) % game.settings.players
            if not self.claim.store.load(rematch).seats[seat].taken:
                yield PlayerEvent(
                    REMATCH_OFFERED, {"game_id": game_id, "rematch_id": rematch}, event_id
                )

    def _seat(self, game: Game) -> int:
        return next(n for n, seat in enumerate(game.seats) if seat.player == self.player_id)

    def _seen(self, game: Game) -> tuple[int, str, bool]:
        seat = game.seats[self._seat(game)]
        to_act = game.state.to_act if game.status == RUNNING else None
        mine = to_act == self._seat(game) and seat.takeover is None
        return game.version, game.status, mine

    def _turn(self, game: Game) -> dict:
        deadline = game.deadline
        return {
            "game_id": game.id,
            "seat": self._seat(game),
            "version": game.version,
            "deadline": deadline,
        }

    def _game_entry(self, game: Game) -> dict:
        version, status, your_turn = self._seen(game)
        return {
            "game_id": game.id,
            "seat": self._seat(game),
            "status": status,
            "version": version,
            "to_act": game.state.to_act if status == RUNNING else None,
            "your_turn": your_turn,
            "deadline": game.deadline,
        }


def _challenge_event(claim: Claim, challenge, event_id: str) -> PlayerEvent:
    kind = CHALLENGE if challenge.status == CHALLENGE_OPEN else f"challenge-{challenge.status}"
    return PlayerEvent(kind, {"challenge": challenge_body(shown(claim, challenge))}, event_id)


def _id(as_of: datetime) -> str:
    return str(int(as_of.timestamp() * 1000))
