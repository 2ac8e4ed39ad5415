"""A local SMTP server for the tests (aiosmtpd) that keeps every message it is sent."""

from __future__ import annotations

import email
import email.policy
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage

from aiosmtpd.controller import Controller

from service.runtime.local_cluster import free_port


class Mailbox:
    """The messages sent, as (recipients, message); `url` is the server's SMTP_URL."""

    def __init__(self, url: str):
        self.url = url
        self.messages: list[tuple[list[str], EmailMessage]] = []

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        self.messages.append((envelope.rcpt_tos, message))
        return "250 OK"

    def wait_for(self, to: str, containing: str, patience: float = 60.0) -> EmailMessage:
        """The first message to `to` whose text holds `containing`, waiting for a server
        in another process (its worker) to send it."""
        give_up = time.monotonic() + patience
        while time.monotonic() < give_up:
            for recipients, message in self.messages:
                if to in recipients and containing in message.get_content():
                    return message
            time.sleep(0.1)
        raise AssertionError(f"no email to {to}; sent to: {[to for to, _ in self.messages]}")


@contextmanager
def smtp_server() -> Iterator[Mailbox]:
    """An SMTP server on a free loopback port, for the block."""
    port = free_port()
    box = Mailbox(f"smtp://127.0.0.1:{port}")
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield box
    finally:
        controller.stop()
