"""Signing in on a new device, with a one-time code that `sign_in_with_code` uses up
for a key of that device.

The code comes by email (`ask_sign_in`): the players whose address is confirmed
(`addresses.py`) get one mail, at most one every `addresses.EVERY` seconds, naming each
of them with the link `<CLAIM_PUBLIC_URL>/sign-in#code=<code>` of their own, for
`CODE_LIFETIME`; the answer is the same whether anybody has the address, so nobody
learns who is registered. The job carries a player's id and the request's id, no
secret: the worker (`send_sign_in`) draws the codes. Or it is shown on a device signed
in already (`device_code`), as a link and a QR code for the other device, for
`DEVICE_CODE_LIFETIME`. Either way the code is 256 random bits, kept as its digest
only, and travels after `#`: no request carries it in a URL, no log shows it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from service.events import SIGN_IN, Device, Held, Player

from . import addresses, mail
from .access import me
from .addresses import by_email_here
from .claim import Claim
from .errors import EmailNotConfigured, WrongCode, use_case
from .players import check_room, new_device

CODE_LIFETIME = 15 * 60  # seconds an emailed sign-in link works
DEVICE_CODE_LIFETIME = 5 * 60  # a link shown to open on another device: used at once
BY_EMAIL = ""  # what a sign-in code is for: a link emailed
BY_LINK = "link"  # a link shown on a device signed in
DEVICE_NAMES = {BY_EMAIL: "signed in by email", BY_LINK: "signed in with a link"}
PAGE = "sign-in"  # the web client's page that takes a sign-in link


@use_case
def ask_sign_in(claim: Claim, email: str) -> None:
    """Email one mail of sign-in links to `email` (in any case), naming each player it
    is confirmed for, unless one went there in the last `addresses.EVERY` seconds;
    EmailNotConfigured if this server sends no email."""
    if not by_email_here(claim):
        raise EmailNotConfigured("this server sends no email: sign in with your key")
    confirmed = [player for player in claim.players.by_email(email) if player.email_confirmed]
    if confirmed:
        addresses.mail_once(claim, SIGN_IN, confirmed[0])


@use_case
def send_sign_in(claim: Claim, player_id: str, request: str) -> bool:
    """The worker's half of `ask_sign_in` (`request` names the asking only): one mail
    to the player's address as it is now, with a new code for each player it is
    confirmed for; False if it is not confirmed (any more). The codes exist nowhere
    else: not in the job, not derived from anything Redis holds. A job run again sends
    other codes; each works once, until it expires."""
    player = claim.players.get(player_id)
    if not (player.email_confirmed and by_email_here(claim)):
        return False
    confirmed = [other for other in claim.players.by_email(player.email) if other.email_confirmed]
    lines = addresses.links(claim, SIGN_IN, confirmed, BY_EMAIL, CODE_LIFETIME, PAGE)
    subject, text = email_text(lines)
    mail.send(claim.config, player.email, subject, text, {}, claim.clock())
    return True


def email_text(lines: list[str]) -> tuple[str, str]:
    """The subject and the plain text of the email of sign-in links, a line per player."""
    minutes = CODE_LIFETIME // 60
    text = [
        "To sign in to Claim on a new device, open the link of your player on it",
        f"within {minutes} minutes (each works once):",
        "",
        *lines,
        "",
        "If you did not ask for it, ignore this email: nothing changes.",
    ]
    return "Claim: your sign-in link", "\n".join(text) + "\n"


@dataclass(frozen=True, slots=True)
class DeviceCode:
    code: str  # shown once, in the link `<server>/sign-in#code=<code>`
    expires_at: datetime


@use_case
def device_code(claim: Claim, key: str | None) -> DeviceCode:
    """A code that signs one other device in as the player whose key this is, once,
    within `DEVICE_CODE_LIFETIME`; TooManyDevices if they hold as many keys as they may."""
    player = me(claim, key)
    check_room(claim, player.id)
    code, now = secrets.token_urlsafe(32), claim.clock()
    claim.sign_ins.keep(SIGN_IN, code, Held(player.id, BY_LINK), now, DEVICE_CODE_LIFETIME)
    return DeviceCode(code, now + timedelta(seconds=DEVICE_CODE_LIFETIME))


@dataclass(frozen=True, slots=True)
class SignedIn:
    player: Player
    device: Device
    key: str  # the new device's key, shown once


@use_case
def sign_in_with_code(claim: Claim, code: str) -> SignedIn:
    """A new device of the player whose sign-in code this is, and its key; the code is
    used up. WrongCode if it is wrong, used or expired; TooManyDevices if the player
    holds as many keys as they may (the code is not used: it works once one is removed)."""
    now = claim.clock()
    held = claim.sign_ins.peek(SIGN_IN, code, now)
    if held is not None:
        check_room(claim, held.player_id)
        held = claim.sign_ins.use(SIGN_IN, code, now)  # None if used meanwhile
    if held is None:
        raise WrongCode("that sign-in code is wrong, used or expired: ask for a new link")
    name = DEVICE_NAMES.get(held.about, DEVICE_NAMES[BY_EMAIL])
    device, key = new_device(claim, held.player_id, name)
    return SignedIn(claim.players.get(held.player_id), device, key)
