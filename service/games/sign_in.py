"""Sign-in by email: a registered player with an address, on a device that has none of
their keys, asks for a link; the link's one-time code makes that device a key.

`ask_sign_in` (the request) enqueues one email per player with that address, at most
one a minute each, and answers the same whether any player has it: nobody learns who
is registered. The job carries the player's id and the request's id, no secret; the
worker (`send_sign_in`) draws the code (256 random bits), keeps only its digest, for
`CODE_LIFETIME`, and emails the link `<CLAIM_PUBLIC_URL>/sign-in#code=<code>` (the code
after `#`: no request carries it in a URL, no log shows it). `sign_in_with_code` uses
the code up and answers a new device's key.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass

from service.events import Device, Player

from . import mail
from .claim import Claim
from .errors import EmailNotConfigured, WrongCode, use_case

log = logging.getLogger(__name__)
CODE_LIFETIME = 15 * 60  # seconds
EVERY = 60  # seconds between two sign-in emails to one player, at least
DEVICE_NAME = "signed in by email"


def by_email_here(claim: Claim) -> bool:
    """Whether this server signs players in by email: it sends email."""
    return bool(claim.config.smtp_url)


@use_case
def ask_sign_in(claim: Claim, email: str) -> None:
    """Email a sign-in link to each player whose address is `email` (in any case) and
    who has not asked in the last `EVERY` seconds; EmailNotConfigured if this server
    sends no email."""
    if not by_email_here(claim):
        raise EmailNotConfigured("this server sends no email: sign in with your key")
    for player in claim.players.by_email(email):
        if claim.sign_ins.ask(player.id, claim.clock(), EVERY) and claim.jobs is not None:
            try:  # answered the same whatever: an error would tell the address is known
                claim.jobs.sign_in(player.id, secrets.token_hex(8))
            except Exception:
                log.exception("player %s: enqueuing a sign-in email failed", player.id)


@use_case
def send_sign_in(claim: Claim, player_id: str, request: str) -> bool:
    """The worker's half of `ask_sign_in` (`request` names the asking only): draw a
    code, keep its digest and email the link to the player's address as it is now;
    False if there is none (any more). The code exists nowhere else: not in the job,
    not derived from anything Redis holds. A job run again sends another code; each
    works once, until it expires."""
    player = claim.players.get(player_id)
    if not (player.email and by_email_here(claim)):
        return False
    code = secrets.token_urlsafe(32)
    claim.sign_ins.keep(code, player_id, claim.clock(), CODE_LIFETIME)
    subject, text = email_text(claim.config.public_url, player, code)
    mail.send(claim.config, player.email, subject, text, {}, claim.clock())
    return True


def _link(public_url: str, code: str) -> str:
    """The address of the sign-in page with `code` after the `#`."""
    return f"{public_url.rstrip('/')}/sign-in#code={code}"


def email_text(public_url: str, player: Player, code: str) -> tuple[str, str]:
    """The subject and the plain text of the email of a sign-in link."""
    minutes = CODE_LIFETIME // 60
    lines = [
        f"To sign in to Claim as {player.name} on a new device,",
        f"open this link on it within {minutes} minutes (it works once):",
        _link(public_url, code),
        "If you did not ask for it, ignore this email: nothing changes.",
    ]
    return "Claim: your sign-in link", "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class SignedIn:
    player: Player
    device: Device
    key: str  # the new device's key, shown once


@use_case
def sign_in_with_code(claim: Claim, code: str) -> SignedIn:
    """A new device of the player whose sign-in code this is, and its key; the code is
    used up. WrongCode if it is wrong, used or expired."""
    player_id = claim.sign_ins.use(code, claim.clock())
    if player_id is None:
        raise WrongCode("that sign-in code is wrong, used or expired: ask for a new link")
    device, key = claim.players.add_device(player_id, DEVICE_NAME)
    return SignedIn(claim.players.get(player_id), device, key)
