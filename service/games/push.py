"""Web Push: a notification to a browser whose page is closed (RFC 8030), its message
encrypted to the browser's key (RFC 8291, `aes128gcm`, by `http_ece`) and the request
signed with the server's VAPID key (RFC 8292, by `py_vapid`; its public half is
`GET /push/key`).

A push lives 12 hours at the push service (`TTL`): a turn told later is stale; one
game's your-turn and reminder share a `Topic`, so that a newer one replaces an older
one still waiting for the browser to come online. The message holds what the player's
inbox entry holds (public facts: RULES.md 8), with the page to open. Endpoints go
where the operator allows (`CLAIM_PUSH_ALLOW`: the public push services by default,
never to a private address), through the webhooks' pinned connection.
"""

from __future__ import annotations

import json
from datetime import timedelta

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec

from service.events import PushSubscription, b64url_decode

from . import webhooks
from .claim import Claim

TTL = 12 * 3600  # seconds a push service keeps a message for a browser offline
GONE = (404, 410)  # the push service's answer for a subscription that ended


class Gone(Exception):
    """Every subscription of the player answered that it ended (they were removed)."""


def message(kind: str, subject_id: str, url: str, title: str, body: str) -> bytes:
    """The JSON a service worker reads (`/sw.js`): what to show and what to open; the
    game's id (a challenge's, for a challenge)."""
    tag = topic(kind, subject_id)  # a newer notification of the game replaces the shown one
    about = "challenge_id" if kind == "challenge" else "game_id"
    fields = {"kind": kind, about: subject_id, "url": url, "title": title, "body": body}
    return json.dumps({**fields, "tag": tag}, sort_keys=True).encode()


def topic(kind: str, game_id: str) -> str:
    """The push `Topic` (at most 32 characters of base64url's alphabet): one per game
    for a turn, its reminder included, so that the newest replaces the rest."""
    return f"{'turn' if kind in ('your-turn', 'reminder') else kind}-{game_id}"[:32]


def send(
    claim: Claim, subscription: PushSubscription, data: bytes, topic: str, urgency: str
) -> int:
    """Encrypt `data` to the subscription's browser and POST it to its endpoint; the
    status of a 2xx answer. Raises as `webhooks.post` does (an HTTPError of 404 or 410:
    the subscription is gone)."""
    body = http_ece.encrypt(
        data,
        private_key=ec.generate_private_key(ec.SECP256R1()),  # one per message
        dh=b64url_decode(subscription.p256dh),
        auth_secret=b64url_decode(subscription.auth),
        version="aes128gcm",
    )
    expires = int((claim.clock() + timedelta(hours=12)).timestamp())
    headers = {
        "Content-Type": "application/octet-stream",
        "Content-Encoding": "aes128gcm",
        "TTL": str(TTL),
        "Topic": topic,
        "Urgency": urgency,
        "Authorization": claim.vapid_key.authorization(
            subscription.endpoint, subject(claim), expires
        ),
    }
    return webhooks.post(subscription.endpoint, body, headers, claim.push_allowlist)


def subject(claim: Claim) -> str:
    """Who the push services may contact about this server's pushes: its https
    address, else its mail sender."""
    url = claim.config.public_url
    return url if url.startswith("https://") else f"mailto:{claim.config.mail_from}"
