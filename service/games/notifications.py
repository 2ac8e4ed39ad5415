"""Notifications to players: "your-turn" when a change leaves it a person's turn,
"reminder" when a share of their move time is left, "game-over" to every player of a
game that ended, "rematch" (the rematch code calls `notify`) and "challenge" to a
player challenged (`notify_challenge`).

Each goes to the player's webhook URL (signed: `webhooks.py`), to the browsers they
subscribed to Web Push (`push.py`) and, with an SMTP server set, to their email address
once its owner confirmed it (`addresses.py`, `mail.py`), as far as the player chose
that channel for that kind (`Player.channels`; every channel by default), each channel
by an RQ job of its own on the queue `webhooks`, retried with
growing intervals (`jobs.py`). A job carries ids only; its delivery id is derived from
`(game id, version, kind, player id)` (`ids.py`), so a doubled job is the same delivery:
the receiver deduplicates by it, and a job whose delivery the player's log already
shows as delivered sends nothing. What is sent is the player's inbox entry: public
facts only, never a card the player may not see (RULES.md 8).
"""

from __future__ import annotations

import json
import logging
import smtplib
from datetime import datetime, timedelta
from urllib.error import HTTPError, URLError
from urllib.parse import urlsplit

from service.events import (
    BLOCKED,
    DELIVERED,
    FAILED,
    RUNNING,
    Challenge,
    Delivery,
    Game,
    Player,
    UnknownPlayer,
)
from service.events import OPEN as CHALLENGE_OPEN

from . import mail, push, webhooks
from .claim import Claim
from .inbox import inbox_entry
from .jobs import Notice
from .ratings import rating_change

log = logging.getLogger(__name__)

YOUR_TURN = "your-turn"
REMINDER = "reminder"
GAME_OVER = "game-over"
REMATCH = "rematch"
CHALLENGE = "challenge"  # to the challenged player; its notice's `game_id` is the challenge's
KINDS = (YOUR_TURN, REMINDER, GAME_OVER, REMATCH, CHALLENGE)
# Once the game moved on, the player acted or their time ran out: nothing left to say.
MOOT_WHEN_MOVED_ON = (YOUR_TURN, REMINDER)

WEBHOOK = "webhook"
EMAIL = "email"
PUSH = "push"
CHANNELS = (WEBHOOK, EMAIL, PUSH)
# What the player's delivery log says of a blocked destination: not why, which would
# tell them what the server's resolver answers for names they choose.
NOT_ALLOWED = {
    WEBHOOK: "the operator does not allow this destination (WEBHOOK_ALLOW)",
    PUSH: "the operator does not allow this push service (CLAIM_PUSH_ALLOW)",
}
URGENCY = {
    YOUR_TURN: "high",
    REMINDER: "high",
    GAME_OVER: "normal",
    REMATCH: "normal",
    CHALLENGE: "high",  # it expires in minutes
}


class Undelivered(Exception):
    """An attempt failed (an answer other than 2xx, or none): RQ tries again later."""


def follow(claim: Claim, game: Game, rebuilt: bool = False) -> list[str]:
    """After a change of `game`: game-over to every player once it ended, else
    your-turn and a reminder to the person to act (every change that leaves it their
    turn, so that a program playing by webhook hears of each); answer the job ids.
    `rebuilt`: the projections are written again: the reminder timer only."""
    if game.ending is not None:
        if rebuilt:
            return []
        return notify(claim, game, GAME_OVER, [seat.player for seat in game.seats if seat.player])
    player_id = player_to_act(game)
    if player_id is None:
        return []
    set_reminder(claim, game)
    return [] if rebuilt else notify(claim, game, YOUR_TURN, [player_id])


def notify(
    claim: Claim,
    game: Game,
    kind: str,
    player_ids: list[str],
    new_game_id: str | None = None,
) -> list[str]:
    """Enqueue `kind` about `game` at its version to each of `player_ids`, on their
    webhook and (with an SMTP server set) by email to a confirmed address; answer the
    job ids. `new_game_id`: the offered game of a rematch."""
    if kind not in KINDS:
        raise ValueError(f"no notification kind {kind!r}")
    return _enqueue(claim, kind, game.id, game.version, player_ids, new_game_id)


def notify_challenge(claim: Claim, challenge: Challenge) -> list[str]:
    """Enqueue "challenge" to the player `challenge` challenges; answer the job ids."""
    return _enqueue(claim, CHALLENGE, challenge.id, 1, [challenge.to])


def _enqueue(
    claim: Claim,
    kind: str,
    subject_id: str,
    version: int,
    player_ids: list[str],
    new_game_id: str | None = None,
) -> list[str]:
    if claim.jobs is None:
        return []
    job_ids = []
    for player_id in player_ids:
        try:
            player = claim.players.get(player_id)
        except UnknownPlayer:
            log.warning("%s %s: no player %s to notify", kind, subject_id, player_id)
            continue
        notice = Notice(kind, subject_id, version, player_id, new_game_id)
        for channel in channels(claim, player, kind):
            job_ids.append(claim.jobs.deliver(channel, notice))
    return job_ids


def player_to_act(game: Game) -> str | None:
    """The registered player whose seat is to act in `game`, if a person (not an AI
    taking the seat over) decides now."""
    if game.status != RUNNING or game.acting_ai is not None:
        return None
    return game.seats[game.state.to_act].player


def reminder_at(claim: Claim, game: Game) -> datetime | None:
    """When the person to act in `game` is reminded of their deadline, or None."""
    share, limit = claim.config.reminder_share, game.creation.move_time_limit
    deadline = game.deadline
    if share is None or not limit or deadline is None or game.status != RUNNING:
        return None
    return deadline - timedelta(seconds=share * limit)


def set_reminder(claim: Claim, game: Game) -> None:
    """Set the reminder timer of the person to act in `game`."""
    claim.reminders.set(game.id, game.version, reminder_at(claim, game))


def remind(claim: Claim, game_id: str, version: int) -> list[str]:
    """The reminder timer, set at `version`, fired: if `game_id` still waits at that
    version for a person and their reminder time has come, notify them; answer the
    delivery job ids. The timer is set again if its time has not come yet."""
    game = claim.store.load(game_id)
    at, player_id = reminder_at(claim, game), player_to_act(game)
    job_ids = []
    if game.version != version or player_id is None:
        at = None  # moot: what changed the game set the reminder it calls for
    elif at is not None and claim.clock() >= at:
        job_ids, at = notify(claim, game, REMINDER, [player_id]), None
    claim.reminders.set(game_id, version, at)
    return job_ids


def deliver(claim: Claim, channel: str, notice: Notice, attempt: int = 1) -> Delivery | None:
    """Send `notice` by `channel` and log the attempt in the player's delivery log.

    Answers None when there is nothing to send: the notice is moot, already delivered,
    or the player has no address for the channel any more. Raises Undelivered when the
    attempt failed, so that RQ tries again; a blocked destination is logged, not retried.
    """
    players = claim.players
    player = players.get(notice.player_id)
    if channel not in channels(claim, player, notice.kind):
        return None
    if _already_delivered(claim, notice, channel):
        return None
    told = _challenge(claim, notice) if notice.kind == CHALLENGE else _game(claim, notice)
    if told is None:
        return None
    entry, ratings = told
    if channel == WEBHOOK:
        host = urlsplit(player.webhook_url).hostname
        send = _send_webhook
    elif channel == PUSH:
        hosts = {urlsplit(push_.endpoint).hostname for push_ in player.push_subscriptions}
        host = ", ".join(sorted(hosts))
        send = _send_push
    else:
        host = player.email.rpartition("@")[2]
        send = _send_email

    def logged(outcome: str, status_code: int | None = None, error: str | None = None):
        delivery = Delivery(
            notice.delivery_id,
            channel,
            notice.kind,
            notice.game_id,
            notice.version,
            host,
            outcome,
            status_code,
            error,
            attempt,
            claim.clock(),
        )
        players.log_delivery(player.id, delivery)
        return delivery

    try:
        status_code = send(claim, player, notice, entry, ratings)
    except webhooks.Blocked as error:
        log.warning("delivery %s blocked: %s", notice.delivery_id, error)
        return logged(BLOCKED, error=NOT_ALLOWED[channel])
    except push.Gone:  # nothing to try again
        return logged(FAILED, error="every push subscription has ended (they were removed)")
    except HTTPError as error:
        error.close()
        logged(FAILED, status_code=error.code, error=f"HTTP {error.code}")
        raise Undelivered(f"{channel} to {host}: HTTP {error.code}") from None
    except (OSError, smtplib.SMTPException) as error:
        reason = _reason(error)
        logged(FAILED, error=reason)
        raise Undelivered(f"{channel} to {host}: {reason}") from None
    return logged(DELIVERED, status_code=status_code)


def _game(claim: Claim, notice: Notice) -> tuple[dict, list[dict] | None] | None:
    """The player's inbox entry of the notice's game (and for the end of a rated game,
    the rating changes); None if the notice is moot."""
    if notice.kind in MOOT_WHEN_MOVED_ON and claim.store.version(notice.game_id) != notice.version:
        return None
    game = claim.store.load(notice.game_id, notice.version)
    seats = (n for n, seat in enumerate(game.seats) if seat.player == notice.player_id)
    seat = next(seats, None)
    if seat is None:
        return None
    ratings = None
    if notice.kind == GAME_OVER and game.creation.rated:
        changes = claim.ratings.changes(game.id)
        ratings = None if changes is None else [rating_change(change) for change in changes]
    return inbox_entry(claim, game, seat), ratings


def _challenge(claim: Claim, notice: Notice) -> tuple[dict, None] | None:
    """What the challenged player is told of the notice's challenge (what its inbox
    shows); None once it is no longer open."""
    challenge = claim.challenges.get(notice.game_id)
    if challenge is None or challenge.status != CHALLENGE_OPEN or challenge.to != notice.player_id:
        return None
    challenger = challenge.from_player
    entry = {
        "challenge_id": challenge.id,
        "from": challenger,
        "from_name": claim.players.names([challenger]).get(challenger, ""),
        "from_bot": bool(claim.players.bots([challenger])),
        "settings": challenge.settings,
        "expires_at": challenge.expires_at,
    }
    return entry, None


def inbox_page(public_url: str) -> str:
    return f"{public_url.rstrip('/')}/inbox"


def game_page(public_url: str, game_id: str) -> str:
    """The address of a game's page in the web client."""
    return f"{public_url.rstrip('/')}/play/{game_id}"


def payload(
    notice: Notice, entry: dict, public_url: str, ratings: list[dict] | None = None
) -> dict:
    """The webhook body: the notice, the player's inbox entry (public facts) and the
    game's page; for the end of a rated game, what it did to each seat's rating. A
    challenge's: the challenge (`entry`) and the inbox, where it is answered."""
    if notice.kind == CHALLENGE:
        return {
            "delivery_id": notice.delivery_id,
            "kind": CHALLENGE,
            "challenge_id": notice.game_id,
            "challenge": entry,
            "url": inbox_page(public_url),
        }
    body = {
        "delivery_id": notice.delivery_id,
        "kind": notice.kind,
        "game_id": notice.game_id,
        "version": notice.version,
        "entry": entry,
        "url": game_page(public_url, notice.game_id),
    }
    if notice.new_game_id is not None:
        body["new_game_id"] = notice.new_game_id
    if ratings is not None:
        body["ratings"] = ratings
    return body


def email_text(
    public_url: str, notice: Notice, entry: dict, ratings: list[dict] | None = None
) -> tuple[str, str]:
    """The subject and the plain text of the email for `notice`, with a link to the
    game's page on the server at `public_url` (and the player's rating change, for a
    rated game over)."""
    game = notice.game_id
    headline = _headline(notice, entry)
    if notice.kind == CHALLENGE:
        lines = [f"{headline}.", _challenge_line(entry), f"Answer it: {inbox_page(public_url)}"]
        return f"Claim: {headline}", "\n".join(lines) + "\n"
    lines = [f"{headline[0].upper()}{headline[1:]}.", f"Last: {entry['last']}."]
    if notice.kind in MOOT_WHEN_MOVED_ON and entry["deadline_at"] is not None:
        left = duration(entry["seconds_left"])
        lines.append(f"Move by {entry['deadline_at']:%Y-%m-%d %H:%M} UTC ({left} left).")
    for change in ratings or ():
        if change["seat"] == entry["seat"]:
            note = "" if change["note"] is None else f"; {change['note']}"
            lines.append(
                f"Your rating ({entry['players']} players): {change['rating_before']:.2f}"
                f" -> {change['rating_after']:.2f} ({change['change']:+.2f}){note}."
            )
    lines.append(f"The game: {game_page(public_url, game)}")
    if notice.new_game_id is not None:
        lines.append("Press Rematch there to take your seat in the next game.")
    return f"Claim: {headline}", "\n".join(lines) + "\n"


def _headline(notice: Notice, entry: dict) -> str:
    game = notice.game_id
    if notice.kind == CHALLENGE:
        return f"{entry['from_name']} challenges you"
    return {
        YOUR_TURN: f"your turn in game {game}",
        REMINDER: f"your move in game {game} is due soon",
        GAME_OVER: f"game {game} is over ({entry['status']})",
        REMATCH: f"a rematch of game {game} is offered",
    }[notice.kind]


def _move_time(seconds: int) -> str:
    """A move time in words.

    >>> _move_time(86400), _move_time(3 * 86400), _move_time(3600), _move_time(90)
    ('1 day', '3 days', '1 hour', '90 s')
    """
    for unit, word in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds % unit == 0:
            count = seconds // unit
            return f"{count} {word}{'' if count == 1 else 's'}"
    return f"{seconds} s"


def _challenge_line(entry: dict) -> str:
    """The game a challenge asks for, in a few words."""
    settings = entry["settings"]
    limit = settings.get("move_time_limit")
    words = [
        f"{settings['players']} players",
        "rated" if settings.get("rated") else "not rated",
        f"{_move_time(limit)} a move" if limit else "no time limit",
    ]
    return f"A game of {', '.join(words)}; answer by {entry['expires_at']:%H:%M} UTC."


def _send_push(
    claim: Claim, player: Player, notice: Notice, entry: dict, ratings: list[dict] | None
) -> int:
    """To every browser the player subscribed; a subscription whose push service says it
    ended is removed. Raises the first failure if no browser was reached (Gone if every
    subscription ended)."""
    headline = _headline(notice, entry)
    if notice.kind == CHALLENGE:
        lines = [_challenge_line(entry)]
        url = inbox_page(claim.config.public_url)
    else:
        lines = [f"Last: {entry['last']}."]
        if notice.kind in MOOT_WHEN_MOVED_ON and entry["seconds_left"] is not None:
            lines.append(f"{duration(entry['seconds_left'])} left.")
        url = game_page(claim.config.public_url, notice.new_game_id or notice.game_id)
    data = push.message(notice.kind, notice.game_id, url, f"Claim: {headline}", " ".join(lines))
    topic = push.topic(notice.kind, notice.game_id)
    reached, failure = None, None
    for subscription in player.push_subscriptions:
        try:
            reached = push.send(claim, subscription, data, topic, URGENCY[notice.kind])
        except HTTPError as error:
            error.close()
            if error.code in push.GONE:
                claim.players.remove_push(player.id, subscription.id)
            else:
                failure = failure or error
        except (OSError, webhooks.Blocked) as error:
            failure = failure or error
    if reached is not None:
        return reached
    raise failure or push.Gone()


def _send_webhook(
    claim: Claim, player: Player, notice: Notice, entry: dict, ratings: list[dict] | None
) -> int:
    body = payload(notice, entry, claim.config.public_url, ratings)
    body = json.dumps(body, default=_json_value, sort_keys=True).encode()
    headers = {
        webhooks.SIGNATURE: webhooks.signature(
            player.webhook_secret, body, int(claim.clock().timestamp())
        ),
        webhooks.DELIVERY: notice.delivery_id,
    }
    return webhooks.post(player.webhook_url, body, headers, claim.allowlist)


def _send_email(
    claim: Claim, player: Player, notice: Notice, entry: dict, ratings: list[dict] | None
) -> None:
    subject, text = email_text(claim.config.public_url, notice, entry, ratings)
    headers = {webhooks.DELIVERY: notice.delivery_id}
    mail.send(claim.config, player.email, subject, text, headers, claim.clock())


def channels(claim: Claim, player: Player, kind: str) -> list[str]:
    """The channels by which `player` is told of `kind`: of those they have (a webhook
    URL, a browser subscribed to Web Push, an email address confirmed if the operator
    set an SMTP server), those they chose for it (all, if they chose none)."""
    has = {
        WEBHOOK: player.webhook_url,
        EMAIL: player.email_confirmed and claim.config.smtp_url,
        PUSH: player.push_subscriptions,
    }
    chosen = player.channels.get(kind, CHANNELS)
    return [channel for channel in CHANNELS if has[channel] and channel in chosen]


def _already_delivered(claim: Claim, notice: Notice, channel: str) -> bool:
    return any(
        (logged.delivery_id, logged.channel, logged.outcome)
        == (notice.delivery_id, channel, DELIVERED)
        for logged in claim.players.deliveries(notice.player_id)
    )


def _reason(error: Exception) -> str:
    """Why an attempt failed, in a few words for the player's log."""
    if isinstance(error, URLError):
        return str(error.reason)
    if isinstance(error, smtplib.SMTPResponseException):
        return f"SMTP {error.smtp_code}"
    return str(error) or type(error).__name__


def _json_value(value):
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"not JSON: {value!r}")


def duration(seconds: float) -> str:
    """Time left, as an email says it: in seconds under a minute, else in minutes.

    >>> duration(22.4), duration(60), duration(89), duration(3 * 3600 + 125)
    ('22 s', '1 min', '1 min', '3 h 2 min')
    """
    if seconds < 59.5:
        return f"{max(0, round(seconds))} s"
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"
