"""Email as sent: dated by the clock, identified at the server's public host."""

from __future__ import annotations

from datetime import UTC, datetime

from service.config import Config
from service.games import mail


def test_an_email_is_dated_in_utc_and_identified_at_the_public_host(mailbox):
    config = Config(smtp_url=mailbox.url, public_url="https://claim.example.org/")
    at = datetime(2026, 3, 1, 14, 30, 5, tzinfo=UTC)
    mail.send(config, "ann@example.org", "Claim: your turn", "Your turn.\n", {}, at)
    [(_, message)] = mailbox.messages
    assert message["Date"] == "Sun, 01 Mar 2026 14:30:05 +0000"  # not -0000: a zone unknown
    assert message["Message-ID"].endswith("@claim.example.org>")
