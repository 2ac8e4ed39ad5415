"""Email: short plain-text messages through the SMTP server of `Config.smtp_url`
(`smtp://host:port`, or `smtps://user:password@host` for TLS and a login), from
`Config.mail_from`, dated in UTC and identified at the host of `Config.public_url`.
No SMTP URL: no email is sent."""

from __future__ import annotations

import re
import smtplib
from datetime import datetime
from email.message import EmailMessage
from email.utils import make_msgid
from urllib.parse import unquote, urlsplit

from service.config import Config

TIMEOUT = 10.0  # seconds


def send(
    config: Config, to: str, subject: str, text: str, headers: dict[str, str], at: datetime
) -> None:
    """Send one plain-text email, dated `at`; raises smtplib's errors or OSError when it
    fails."""
    server = urlsplit(config.smtp_url)
    message = EmailMessage()
    message["From"] = config.mail_from
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = at  # aware, as every clock here is: +0000, not -0000 (a zone unknown)
    message["Message-ID"] = make_msgid(domain=_message_domain(config.public_url))
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


def _message_domain(public_url: str) -> str:
    """The domain of the Message-IDs: the public host's name, or `claim` where it has
    none (an address, or no host).

    >>> _message_domain("https://claim.example.org:8443/"), _message_domain("http://[::1]:8000")
    ('claim.example.org', 'claim')
    """
    host = urlsplit(public_url).hostname or ""
    named = re.fullmatch(r"[a-z0-9-]+(\.[a-z0-9-]+)*", host) and not host[-1].isdigit()
    return host if named else "claim"
