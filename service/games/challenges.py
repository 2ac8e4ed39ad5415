"""Challenges: a player asks a named player (or an AI level) for a game; the other
accepts (the game starts with both seated on their player accounts, no invite) or
declines; the challenger may cancel; an open challenge expires after
`Config.challenge_expires` seconds (a timer of the kind `challenges`).

A challenge to an AI level starts its game at once. With 3 or 4 players, the seats
beyond the two people are AI seats of the level `others`. The challenger takes seat
0, the challenged seat 1 (with 4 players, on the other team).

The game's id is derived from the challenge's with the server's secret, and the seats'
joins carry ids derived from it: an accept repeated (or raced) lands on one game.

Against floods, a challenge to a player holds a place while it is open and, once
accepted, while its game runs: a challenger has `Config.challenges_sent` places in all
(and one open challenge per challenged player), a player `Config.challenges_received`
places for the challenges sent to them; a challenge beyond is refused
(TooManyChallenges). So a bot that accepts every challenge plays at most that many
games of a flood at once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import timedelta

from service.events import (
    ACCEPTED,
    AI,
    AI_LEVELS,
    CANCELLED,
    DECLINED,
    DEFAULT_TIMEOUT_POLICY,
    EXPIRED,
    HUMAN,
    PAIR,
    SENT_FULL,
    TAKEOVER,
    TIMEOUT_LIMIT,
    Challenge,
    PlacesHeld,
    SeatJoined,
    SeatSpec,
    StaleVersion,
    UnknownPlayer,
    digest,
    new_secret,
)
from service.events import OPEN as CHALLENGE_OPEN

from . import ids, notifications
from .access import me
from .changes import Change, follow_up
from .claim import Claim
from .errors import (
    ChallengeNotOpen,
    InvalidRequest,
    NotYourChallenge,
    TooManyChallenges,
    UnknownChallenge,
    use_case,
)
from .errors import UnknownPlayer as NoSuchPlayer
from .play import RANDOM, check_bots_apart, check_timeout_policy, settings_of

AI_PREFIX = "ai:"
DEFAULT_OTHERS = "ai:greedy"  # the level of the seats beyond the two people
_LEVELS = f"ai:<level>, the levels being {', '.join(AI_LEVELS)}"
# The most open challenges an answer lists (`/me/challenges`' page, a player stream's
# `state`): 20 with the longest names are 40 KB even when each of their 64 characters is
# written as a 12-byte escape (tests/api/test_floods.py).
LISTED_CHALLENGES = 20


@dataclass(frozen=True, slots=True)
class ChallengeSettings:
    """What a challenge asks for: the settings `POST /games` takes, but the seats."""

    players: int = 2
    factions: str | Sequence[str] = RANDOM
    first_leader: int = 0
    move_time_limit: int | None = None
    timeout_policy: str = DEFAULT_TIMEOUT_POLICY
    rated: bool = False
    others: str = DEFAULT_OTHERS
    timeout_limit: int = TIMEOUT_LIMIT
    final_timeout_policy: str = TAKEOVER


@dataclass(frozen=True, slots=True)
class OpenChallenges:
    """A page of a player's open challenges, oldest first, and how many are open."""

    total: int
    challenges: tuple[Shown, ...]


@dataclass(frozen=True, slots=True)
class Shown:
    """A challenge as its players see it, with both players' names and bot flags."""

    challenge: Challenge
    names: dict[str, str]  # player id or `ai:<level>` -> name
    bots: frozenset[str]


def _level(to: str) -> str | None:
    """The AI level `to` names (`ai:greedy`), None for a player's id."""
    return to.removeprefix(AI_PREFIX) if to.startswith(AI_PREFIX) else None


def challenge_body(shown: Shown) -> dict:
    """A challenge as the API and the player streams show it: plain values."""
    c = shown.challenge
    return {
        "id": c.id,
        "from": c.from_player,
        "from_name": shown.names.get(c.from_player, ""),
        "from_bot": c.from_player in shown.bots,
        "to": c.to,
        "to_name": shown.names.get(c.to, ""),
        "to_bot": c.to in shown.bots,
        "status": c.status,
        "settings": c.settings,
        "created_at": c.created_at,
        "expires_at": c.expires_at,
        "updated_at": c.updated_at,
        "game_id": c.game_id,
    }


def shown(claim: Claim, challenge: Challenge) -> Shown:
    """The challenge with its players' names and which of them are bots."""
    players = list(challenge.players)
    names = claim.players.names(players)
    if _level(challenge.to):
        names[challenge.to] = _level(challenge.to)
    return Shown(challenge, names, claim.players.bots(players))


@use_case
def challenge(claim: Claim, key: str | None, to: str, settings: ChallengeSettings) -> Shown:
    """A challenge from the player whose key this is to the player `to` (or the AI
    level `ai:<level>`: its game starts at once, and the challenge is accepted)."""
    holder = me(claim, key)
    level = _level(to)
    if level is not None and level not in AI_LEVELS:
        raise InvalidRequest(f"no AI level {level!r}", errors={"to": [_LEVELS]})
    if _level(settings.others) not in AI_LEVELS:
        raise InvalidRequest(f"not an AI level: {settings.others!r}", errors={"others": [_LEVELS]})
    if to == holder.id:
        raise InvalidRequest("challenge somebody else", errors={"to": ["that is you"]})
    if level is None:
        try:
            claim.players.get(to)
        except UnknownPlayer:
            hint = f" (an AI level is ai:{to})" if to in AI_LEVELS else ""
            raise NoSuchPlayer(f"no player {to!r}{hint}: a player id, or {_LEVELS}") from None
        if settings.rated and holder.bot:  # a person challenging a bot is the exception
            check_bots_apart(claim, holder.id, [to])
    settings_of(settings.players, settings.factions, settings.first_leader)  # fits?
    check_timeout_policy(settings.rated, settings.move_time_limit, settings.timeout_policy)
    now = claim.clock()
    expires_at = now + timedelta(seconds=claim.config.challenge_expires)
    if level is not None:
        made = claim.challenges.create(holder.id, to, asdict(settings), now, expires_at)
        return shown(claim, _accepted(claim, made))
    for player_id in (holder.id, to):
        _free_places(claim, player_id)
    most = (claim.config.challenges_sent, claim.config.challenges_received)
    try:
        made = claim.challenges.create(holder.id, to, asdict(settings), now, expires_at, most)
    except PlacesHeld as refused:
        raise _too_many(refused.reason, most) from None
    claim.challenge_timers.set(made.id, 1, expires_at)
    _announce(claim, made)
    notifications.notify_challenge(claim, made)
    return shown(claim, made)


@use_case
def look_at(claim: Claim, key: str | None, challenge_id: str) -> Shown:
    """The challenge, for its challenger or the challenged (UnknownChallenge to
    anybody else)."""
    return shown(claim, _mine(claim, me(claim, key).id, challenge_id))


@use_case
def open_challenges(
    claim: Claim, key: str | None, offset: int = 0, limit: int = LISTED_CHALLENGES
) -> OpenChallenges:
    """The player's open challenges, sent and received, oldest first: `limit` of them
    from `offset`, and how many there are."""
    player_id = me(claim, key).id
    found = [c for c in claim.challenges.of(player_id) if c.status == CHALLENGE_OPEN]
    page = found[offset : offset + limit]
    return OpenChallenges(len(found), tuple(shown(claim, c) for c in page))


@use_case
def accept(claim: Claim, key: str | None, challenge_id: str) -> Shown:
    """The challenged player accepts: the game starts with both seated. Again once
    accepted: the same game (made if an earlier accept was cut short)."""
    found = _answerable(claim, me(claim, key).id, challenge_id, by_challenged=True)
    return shown(claim, _accepted(claim, found))


@use_case
def decline(claim: Claim, key: str | None, challenge_id: str) -> Shown:
    """The challenged player declines."""
    _answerable(claim, me(claim, key).id, challenge_id, by_challenged=True)
    return shown(claim, _close(claim, challenge_id, DECLINED))


@use_case
def cancel(claim: Claim, key: str | None, challenge_id: str) -> Shown:
    """The challenger takes the challenge back."""
    _answerable(claim, me(claim, key).id, challenge_id, by_challenged=False)
    return shown(claim, _close(claim, challenge_id, CANCELLED))


def expire(claim: Claim, challenge_id: str, version: int) -> None:
    """The challenge's timer fired: expire it if it is still open and its time is up."""
    found = claim.challenges.get(challenge_id)
    if found is not None and found.status == CHALLENGE_OPEN:
        if claim.clock() < found.expires_at:
            claim.challenge_timers.set(challenge_id, version, found.expires_at)
            return
        with contextlib.suppress(ChallengeNotOpen):  # answered just in time
            _close(claim, challenge_id, EXPIRED)
    claim.challenge_timers.set(challenge_id, version, None)


def _mine(claim: Claim, player_id: str, challenge_id: str) -> Challenge:
    found = claim.challenges.get(challenge_id) if challenge_id.isalnum() else None
    if found is None or player_id not in found.players:
        raise UnknownChallenge(f"you have no challenge {challenge_id!r}")
    return found


def _answerable(claim: Claim, player_id: str, challenge_id: str, by_challenged: bool) -> Challenge:
    """The open challenge the player may answer (or cancel); an open one whose time is
    up expires now."""
    found = _mine(claim, player_id, challenge_id)
    if player_id != (found.to if by_challenged else found.from_player):
        whose = "the challenged player's to answer" if by_challenged else "the challenger's"
        raise NotYourChallenge(f"the challenge is {whose}")
    if found.status == CHALLENGE_OPEN and claim.clock() >= found.expires_at:
        found = _close(claim, challenge_id, EXPIRED)
    if found.status == ACCEPTED and by_challenged:
        return found  # answered again: the same game
    if found.status != CHALLENGE_OPEN:
        raise ChallengeNotOpen(f"the challenge is {found.status}")
    return found


def _too_many(reason: str, most: tuple[int, int]) -> TooManyChallenges:
    """The refusal of a challenge for which no place is left, saying which."""
    if reason == PAIR:
        return TooManyChallenges("you have a challenge to this player open already: one at a time")
    if reason == SENT_FULL:
        return TooManyChallenges(
            f"you have {most[0]} challenges open or their games running, the most"
            " (CLAIM_CHALLENGES_SENT): wait for an answer, or cancel one"
        )
    return TooManyChallenges(
        "this player has as many challenges open or their games running as they may"
        " (CLAIM_CHALLENGES_RECEIVED): try again later"
    )


def _free_places(claim: Claim, player_id: str) -> None:
    """Free the player's places held by challenges no longer open whose games have
    ended (or that are gone): an accepted one's place is held while its game runs.
    (Answered otherwise, a challenge frees its places itself; this catches those whose
    answer was cut short.)"""
    held = claim.challenges.held(player_id)
    found = {c.id: c for c in claim.challenges.get_many(held)}
    accepted = {c.game_id for c in found.values() if c.status == ACCEPTED and c.game_id}
    made = [
        game_id for game_id, version in claim.store.versions(sorted(accepted)).items() if version
    ]
    ended = {game.id for game in claim.store.load_many(made) if game.ending is not None}
    free = [
        challenge_id
        for challenge_id in held
        if (c := found.get(challenge_id)) is None
        or c.status not in (CHALLENGE_OPEN, ACCEPTED)
        or c.game_id in ended
    ]
    claim.challenges.release(player_id, free)


def _close(claim: Claim, challenge_id: str, status: str, game_id: str | None = None) -> Challenge:
    closed = claim.challenges.close(challenge_id, status, claim.clock(), game_id)
    if closed is None:
        raise UnknownChallenge(f"no challenge {challenge_id!r}")
    if closed.status != status:
        raise ChallengeNotOpen(f"the challenge is {closed.status}")
    if status != ACCEPTED:  # an accepted one's places are held while its game runs
        for player_id in closed.players:
            claim.challenges.release(player_id, [challenge_id])
    _announce(claim, closed)
    return closed


def _announce(claim: Claim, challenge: Challenge) -> None:
    for player_id in challenge.players:
        claim.store.announce_player(player_id)


def _accepted(claim: Claim, challenge: Challenge) -> Challenge:
    """Accept the challenge (if it is open) and make its game (if it is not made):
    the challenger in seat 0, the challenged (a person) in seat 1, AI seats beyond."""
    game_id = ids.derive(claim.rematches.secret(), f"challenge/{challenge.id}").hex()[:16]
    if challenge.status == CHALLENGE_OPEN:
        challenge = _close(claim, challenge.id, ACCEPTED, game_id)
        claim.challenge_timers.set(challenge.id, 1, None)
        claim.challenges.playing(challenge)
    wanted = ChallengeSettings(**challenge.settings)
    people = challenge.players
    level = _level(challenge.to) or _level(wanted.others)
    specs = [SeatSpec(HUMAN, invite_hash=digest(new_secret())) for _ in people]
    specs += [SeatSpec(AI, level)] * (wanted.players - len(people))
    try:
        game = claim.store.create(
            settings_of(wanted.players, wanted.factions, wanted.first_leader),
            specs,
            move_time_limit=wanted.move_time_limit,
            timeout_policy=wanted.timeout_policy,
            join_time_limit=None,
            rated=wanted.rated,
            timeout_limit=wanted.timeout_limit,
            final_timeout_policy=wanted.final_timeout_policy,
            game_id=game_id,
        )
    except StaleVersion:  # made by an earlier accept
        game = claim.store.load(game_id)
    names = claim.players.names(list(people))
    joins = [
        SeatJoined(seat, names.get(player_id, "player"), digest(new_secret()), player_id)
        for seat, player_id in enumerate(people)
    ]
    event_ids = [ids.derived_id(game_id, ids.CHALLENGE, f"seat/{n}") for n in range(len(joins))]
    _, written = claim.store.append_once(game_id, joins, 1, event_ids)
    game = claim.store.load(game_id)
    follow_up(claim, Change(game, (game.creation, *joins) if written else None))
    return challenge
