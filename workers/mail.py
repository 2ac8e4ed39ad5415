"""Email: short plain-text messages through the SMTP server of `SMTP_URL`
(`smtp://host:port`, or `smtps://user:password@host` for TLS and a login), from
`CLAIM_MAIL_FROM`. Unset `SMTP_URL`: no email is sent."""

from __future__ import annotations

import os
import smtplib
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from urllib.parse import unquote, urlsplit

TIMEOUT = 10.0  # seconds
DEFAULT_FROM = "claim@localhost"


def configured() -> bool:
    """Whether the operator set an SMTP server."""
    return bool(os.environ.get("SMTP_URL"))


def send(to: str, subject: str, text: str, headers: dict[str, str]) -> None:
    """Send one plain-text email; raises smtplib's errors or OSError when it fails."""
    server = urlsplit(os.environ["SMTP_URL"])
    message = EmailMessage()
    message["From"] = os.environ.get("CLAIM_MAIL_FROM", DEFAULT_FROM)
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(domain="claim")
    for name, value in headers.items():
        message[name] = value
    message.set_content(text)
    secure = server.scheme == "smtps"
    smtp = smtplib.SMTP_SSL if secure else smtplib.SMTP
    with smtp(server.hostname, server.port or (465 if secure else 25), timeout=TIMEOUT) as client:
        if server.username:
            if not secure:
                client.starttls()  # never send a password in the clear
            client.login(unquote(server.username), unquote(server.password or ""))
        client.send_message(message)
