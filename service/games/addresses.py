"""Confirmed email addresses: no mail goes to an address but the one that asks its owner
to confirm it, until they do; then its player's sign-in links (`sign_in.py`) and
notifications (`notifications.py`) may.

Registering with an address, or changing to one, asks for its confirmation
(`ask_confirmation`; again: `confirm_again`). An address gets at most one mail of each
kind (confirmations, sign-in links) every `EVERY` seconds, whoever asks and for however
many players: the mail names each player it is for, with a link of their own. So 30
players registered with somebody's address send them one mail, naming the newest
`LISTED`. The link `<CLAIM_PUBLIC_URL>/confirm-email#code=<code>` confirms the address
for its player (`confirm_email`), unless it is confirmed for `Config.accounts_per_email`
other players already: that refusal is told to the holder of a code only, the owner of
the address, so that no answer tells anybody else whether an address is registered.

A job carries the id of the player asking and of the request only; the worker draws the
codes (256 random bits each), keeps their digests only (`SignIns`), and mails them after
the `#` of their links: no request carries one in a URL, no log shows one.
"""

from __future__ import annotations

import logging
import secrets

from service.events import CONFIRMATION, Held, Player, address_digest

from . import mail
from .access import me
from .claim import Claim
from .errors import EmailNotConfigured, TooManyAccounts, WrongCode, use_case

log = logging.getLogger(__name__)
EVERY = 5 * 60  # seconds between two mails of one kind to one address, at least
CONFIRMATION_LIFETIME = 24 * 3600  # seconds a confirmation link works
LISTED = 10  # the players a confirmation mail names at most: who asked, then the newest
PAGE = "confirm-email"  # the web client's page that takes a confirmation link


def by_email_here(claim: Claim) -> bool:
    """Whether this server sends email (to confirmed addresses, and to confirm them)."""
    return bool(claim.config.smtp_url)


def ask_confirmation(claim: Claim, player: Player) -> bool:
    """Have a link to confirm the player's address mailed to it (`mail_once`); False if
    there is nothing to confirm (no address, confirmed already, no email here)."""
    if not (player.email and by_email_here(claim)) or player.email_confirmed:
        return False
    mail_once(claim, CONFIRMATION, player)
    return True


def mail_once(claim: Claim, kind: str, player: Player) -> None:
    """Have a worker send a mail of `kind` to the player's address, unless one went
    there in the last `EVERY` seconds. A failure is logged, not raised: an error would
    tell that the address is known (asking for sign-in links), or lose a key shown once
    (registering); the player can ask again."""
    try:
        if claim.sign_ins.ask(kind, player.email, claim.clock(), EVERY) and claim.jobs is not None:
            claim.jobs.mail(kind, player.id, secrets.token_hex(8))
    except Exception:
        log.exception("player %s: asking for a mail of %s failed", player.id, kind)


@use_case
def confirm_again(claim: Claim, key: str | None) -> bool:
    """Mail the address of the player whose key this is a link to confirm it, as
    `ask_confirmation` (at most one every `EVERY` seconds per address); False if it is
    confirmed or there is none. EmailNotConfigured if this server sends no email."""
    player = me(claim, key)
    if not by_email_here(claim):
        raise EmailNotConfigured("this server sends no email: there is nothing to confirm")
    return ask_confirmation(claim, player)


@use_case
def send_confirmation(claim: Claim, player_id: str, request: str) -> bool:
    """The worker's half of `ask_confirmation` (`request` names the asking only): one
    mail to the player's address as it is now, with a link for them and for the other
    players awaiting the confirmation of that address, newest first, `LISTED` in all;
    False if there is nothing to confirm any more."""
    player = claim.players.get(player_id)
    if not (player.email and by_email_here(claim)) or player.email_confirmed:
        return False
    waiting = [
        other
        for other in claim.players.by_email(player.email)
        if not other.email_confirmed and other.id != player.id
    ]
    waiting.sort(key=lambda other: other.created_at, reverse=True)
    confirmed = address_digest(player.email)
    lines = links(
        claim, CONFIRMATION, [player, *waiting][:LISTED], confirmed, CONFIRMATION_LIFETIME, PAGE
    )
    subject, text = confirmation_text(lines)
    mail.send(claim.config, player.email, subject, text, {}, claim.clock())
    return True


def confirmation_text(lines: list[str]) -> tuple[str, str]:
    """The subject and the plain text of a confirmation mail, a line per player."""
    hours = CONFIRMATION_LIFETIME // 3600
    text = [
        "This address was given to Claim for the players below. To have a player's",
        "sign-in links and game notifications sent here, open its link within",
        f"{hours} hours (each works once):",
        "",
        *lines,
        "",
        "Confirm only the players that are yours. If none is, ignore this email:",
        "nothing more is sent here for them.",
    ]
    return "Claim: confirm your email address", "\n".join(text) + "\n"


def links(
    claim: Claim,
    kind: str,
    players: list[Player],
    about: str,
    lifetime: float,
    page: str,
) -> list[str]:
    """A line per player, their name and the link to the web client's `page` with a
    new code of `kind` for them (`about`: what it is for), kept for `lifetime` seconds."""
    lines = []
    for player in players:
        code = secrets.token_urlsafe(32)
        claim.sign_ins.keep(kind, code, Held(player.id, about), claim.clock(), lifetime)
        lines.append(f"{player.name}: {link(claim.config.public_url, page, code)}")
    return lines


def link(public_url: str, page: str, code: str) -> str:
    """The address of the web client's `page` with `code` after the `#`."""
    return f"{public_url.rstrip('/')}/{page}#code={code}"


@use_case
def confirm_email(claim: Claim, code: str) -> Player:
    """Confirm the address a confirmation code was mailed to, for its player; the code
    is used up. WrongCode if it is wrong, used or expired, or the player's address is
    another now; TooManyAccounts if the address is confirmed for as many other players
    as one may be (the code is not used: it works once one of them lets it go)."""
    now = claim.clock()
    held = claim.sign_ins.peek(CONFIRMATION, code, now)
    player = held and claim.players.get(held.player_id)
    if not (player and player.email and address_digest(player.email) == held.about):
        raise _wrong_code()
    if not player.email_confirmed:
        _check_room(claim, player)
    if claim.sign_ins.use(CONFIRMATION, code, now) is None:
        raise _wrong_code()  # used meanwhile
    return claim.players.confirm_email(player.id, held.about)


def _check_room(claim: Claim, player: Player) -> None:
    """TooManyAccounts if the player's address is confirmed for as many other players
    as one may be. (Two confirmations racing may both pass: one player more.)"""
    cap = claim.config.accounts_per_email
    confirmed = [
        other
        for other in claim.players.by_email(player.email)
        if other.email_confirmed and other.id != player.id
    ]
    if len(confirmed) >= cap:
        raise TooManyAccounts(
            f"{player.email} is confirmed for {len(confirmed)} other players, as many as one"
            f" address may be ({cap}): remove it from one of them, then open this link again"
        )


def _wrong_code() -> WrongCode:
    return WrongCode(
        "that confirmation link is wrong, used or expired, or the player's address changed"
        " since: ask for a new one"
    )
