"""Ratings as people see them: the leaderboard of each player count and a public
profile per registered player or AI level (the figures: `service/events/ratings.py`).

Uncertainty is shown as of now: the stored one grown by the days since the entity's
last rated game. A player is established (its games count for its opponents) and then
ranked once it has met enough distinct established opponents; before, it is listed
after the ranked, provisional. Nothing here is private: names, ratings and rated
results only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime

from service import events
from service.events import (
    AI_LEVELS,
    BOT_WEIGHT,
    ESTABLISHED_OPPONENTS,
    FULL_MEETINGS,
    LAST_MEETING,
    MIN_DECISIONS_PER_SEAT,
    PLAYER_COUNTS,
    Game,
    Played,
    Player,
    RatedResult,
    Rating,
    RatingChange,
    ai_entity,
    is_ai,
    is_established,
    is_ranked,
)

from .claim import Claim
from .errors import UnknownPlayer, use_case

PLAYER_ID = re.compile(r"[0-9a-f]{16}")  # as `PlayerStore.register` makes them
RECENT = 10  # rated results a profile shows
FIGURES = 2  # decimals shown


@dataclass(frozen=True, slots=True)
class Standing:
    """An entity's rating for one player count as of now."""

    entity: str  # a player id, or `ai:<level>`
    name: str
    rating: Rating
    sigma: float  # the uncertainty now
    provisional: bool  # uncertain now, or not ranked yet
    ranked: bool  # has met enough distinct established opponents (`is_ranked`)
    established: bool  # its games count for its opponents (`is_established`)
    bot: bool = False  # a bot's account (an AI level is none)

    @property
    def kind(self) -> str:
        return _kind(self.entity)


@dataclass(frozen=True, slots=True)
class Leaderboard:
    players: int
    total: int  # rated entities
    ranked: int  # of them ranked: the first on the board
    offset: int
    standings: list[Standing]  # the ranked first, then the unranked


@dataclass(frozen=True, slots=True)
class Profile:
    entity: str
    name: str
    created_at: datetime | None  # None for an AI level
    games: int  # rated games played
    standings: dict[int, Standing | None]  # per player count; None: not rated yet
    recent: list[Played]  # the last rated games, newest first
    bot: bool = False

    @property
    def kind(self) -> str:
        return _kind(self.entity)


def rating_change(change: RatingChange) -> dict:
    """What a game did to a seat's rating, as the API and the webhooks show it."""
    return {
        "seat": change.seat,
        "player_id": change.entity,
        "rating_before": round(change.mu_before, FIGURES),
        "rating_after": round(change.mu_after, FIGURES),
        "change": round(change.mu_after - change.mu_before, FIGURES),
        "uncertainty_after": round(change.sigma_after, FIGURES),
        "weight": change.weight,
        "note": _note(change),
    }


def _note(change: RatingChange) -> str | None:
    """Why a game counted less than fully for a seat, in words; None if it did."""
    if change.meetings == 0:
        return (
            "not rated: the game was resigned or forfeited before"
            f" {MIN_DECISIONS_PER_SEAT} decisions a seat"
        )
    if change.weight == 1:
        return None
    why = []
    if change.meetings > FULL_MEETINGS:
        why.append(
            f"game {change.meetings} within a day with the same other player or AI level"
            f" (the first {FULL_MEETINGS} count fully, the next"
            f" {LAST_MEETING - FULL_MEETINGS} each half the one before, the rest not at all)"
        )
    if change.newcomers:
        why.append(
            f"{_opponents(change.newcomers)} not established yet (an account is once it"
            f" has met {ESTABLISHED_OPPONENTS} established opponents, AI levels always"
            " are; until then its games count for it, not for its opponents)"
        )
    if change.bots:
        why.append(
            f"{_opponents(change.bots)} a bot's account (a person's game against a bot"
            f" counts {BOT_WEIGHT:g} of a game, and no bot counts towards a person's rank)"
        )
    counted = "not rated" if change.weight == 0 else f"counted at {change.weight:g}"
    return f"{counted}: {'; '.join(why)}"


def _opponents(count: int) -> str:
    return "the opponent is" if count == 1 else f"{count} opponents are"


def _kind(entity: str) -> str:
    return "ai" if is_ai(entity) else "player"


def _standing(claim: Claim, entity: str, name: str, rating: Rating, bot: bool = False) -> Standing:
    now = claim.clock().timestamp()
    ranked = is_ranked(entity, rating)
    provisional = rating.provisional_at(now) or not ranked
    established = is_established(entity, rating)
    return Standing(
        entity, name, rating, rating.sigma_at(now), provisional, ranked, established, bot
    )


def _names(claim: Claim, entities: list[str]) -> dict[str, str]:
    players = claim.players.names([e for e in entities if not is_ai(e)])
    return {e: players.get(e, "") if not is_ai(e) else e.partition(":")[2] for e in entities}


def _player(claim: Claim, player_id: str) -> Player:
    try:
        if PLAYER_ID.fullmatch(player_id):
            return claim.players.get(player_id)
    except events.UnknownPlayer:
        pass
    raise UnknownPlayer(f"no player {player_id!r}")


def rated_result(claim: Claim, game: Game) -> RatedResult | None:
    """`game`'s rated result (`RatedResult.of`) with its bots' accounts named, as the
    ratings fold it: a player's bot flag never changes, so a rebuild names the same."""
    result = RatedResult.of(game)
    if result is None:
        return None
    bots = claim.players.bots([entity for entity in result.entities if not is_ai(entity)])
    return replace(result, bots=tuple(sorted(bots)))


ONLY, EXCLUDE = "only", "exclude"  # the leaderboard's filters of bots
BOT_FILTERS = (ONLY, EXCLUDE)
WHOLE_BOARD = 10**9  # entries: more than any board holds


@use_case
def leaderboard(
    claim: Claim, players: int, offset: int = 0, limit: int = 20, bots: str | None = None
) -> Leaderboard:
    """The rated players and AI levels of `players`-player games: the ranked, best
    skill first, then the players not ranked yet, best skill first. `bots`: `only`
    the bots' accounts, or all but them (`exclude`); each entry says whether it is one.

    A filtered board reads the whole board (the figures of every rated entity) and
    keeps its page of those that pass: ranks and counts are of those."""
    if bots is None:
        board = claim.ratings.board(players, offset, limit)
        entries, total, ranked = board.entries, board.total, board.ranked
    else:
        whole = claim.ratings.board(players, 0, WHOLE_BOARD)
        flagged = claim.players.bots([e for e, _ in whole.entries if not is_ai(e)])
        kept = [(e, r) for e, r in whole.entries if (e in flagged) == (bots == ONLY)]
        total, ranked = len(kept), sum(is_ranked(e, r) for e, r in kept)
        entries = kept[offset : offset + limit]
    names = _names(claim, [entity for entity, _ in entries])
    flagged = claim.players.bots([e for e, _ in entries if not is_ai(e)])
    standings = [_standing(claim, e, names[e], r, e in flagged) for e, r in entries]
    return Leaderboard(players, total, ranked, offset, standings)


@use_case
def public_profile(claim: Claim, entity: str) -> Profile:
    """What anybody may see of a registered player (by id) or an AI level (`ai:greedy`):
    the name, the ratings, how many games, and the last rated results."""
    if is_ai(entity):
        if entity not in {ai_entity(level) for level in AI_LEVELS}:
            raise UnknownPlayer(f"no AI level {entity.partition(':')[2]!r}")
        name, created_at = entity.partition(":")[2], None
    else:
        player = _player(claim, entity)
        name, created_at = player.name, player.created_at
    bot = not is_ai(entity) and player.bot
    standings = {}
    for players in PLAYER_COUNTS:
        rating = claim.ratings.rating(players, entity)
        standings[players] = None if rating is None else _standing(claim, entity, name, rating, bot)
    games = sum(s.rating.games for s in standings.values() if s is not None)
    recent = claim.ratings.history(entity, RECENT)
    return Profile(entity, name, created_at, games, standings, recent, bot)
