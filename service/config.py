"""The service's settings: read once, at start, from the environment (and the command
line), then passed down. No other module reads `os.environ`.

    config = Config.from_env()                          # claim serve, claim worker
    config = Config(prefix="test-1", rate_limit="")     # tests: no environment at all

A setting that cannot be used is refused at start with `ConfigError`, naming the
variable, rather than misread later inside a job.
"""

from __future__ import annotations

import ipaddress
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

DEFAULT_PREFIX = "claim"
FSYNC_POLICIES = ("always", "everysec")
ARCHIVE_SCHEMES = ("sqlite:", "postgresql:", "postgres:")
ARCHIVE_FILE = "archive.sqlite3"
# The push services of the browsers people use (Chrome and Android, Firefox, Safari,
# Edge): a subscription's endpoint is on one of these; private addresses are refused.
DEFAULT_PUSH_ALLOW = (
    "fcm.googleapis.com, updates.push.services.mozilla.com, *.push.apple.com,"
    " *.notify.windows.com"
)  # the archive's file in data_dir, without CLAIM_ARCHIVE_URL


class ConfigError(ValueError):
    """A setting that cannot be used; the message names the variable."""


@dataclass(frozen=True, slots=True)
class Config:
    """Every setting of the service, with its default.

    The environment variable of each is in `ENVIRONMENT`; docs/operators.md lists them all.
    """

    redis_url: str | None = None  # REDIS_URL; None: an embedded Redis in data_dir
    queue_url: str | None = None  # CLAIM_QUEUE_URL: the job queues' Redis; None: the games'
    data_dir: Path = Path(".claim")  # CLAIM_DATA_DIR
    prefix: str = DEFAULT_PREFIX  # CLAIM_PREFIX: of every Redis key and RQ queue
    rate_limit: str = "1200 per minute"  # CLAIM_RATE_LIMIT; "": no limit
    webhook_allow: str = ""  # WEBHOOK_ALLOW: hosts and networks webhooks may go to
    # CLAIM_PUSH_ALLOW: hosts (`*.` for a domain's) and networks Web Push may go to
    push_allow: str = DEFAULT_PUSH_ALLOW
    # CLAIM_VAPID_PRIVATE_KEY: the P-256 key that signs Web Push (PEM, or base64url of the
    # raw 32 bytes); None: made once in data_dir (vapid-key.pem)
    vapid_private_key: str | None = field(default=None, repr=False)  # a secret
    smtp_url: str | None = None  # SMTP_URL; None: no email
    mail_from: str = "claim@localhost"  # CLAIM_MAIL_FROM
    public_url: str = "http://127.0.0.1:8000"  # CLAIM_PUBLIC_URL: the server in emails
    reminder_share: float | None = 0.25  # CLAIM_REMINDER_SHARE; None (0): no reminders
    watch_cap: int = 20  # CLAIM_WATCH_CAP: live streams and long-polls open per address
    header_timeout: int = 10  # CLAIM_HEADER_TIMEOUT: whole seconds a request's headers may take
    body_timeout: float = 30.0  # CLAIM_BODY_TIMEOUT: seconds a request's body may take
    # CLAIM_SENDING_CAP: connections of an address, per API process, still sending a request
    sending_cap: int = 32
    # CLAIM_TRUSTED_PROXIES: networks of the proxies whose X-Forwarded-For is believed
    trusted_proxies: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    fsync: str = "always"  # CLAIM_FSYNC: the embedded Redis's appendfsync (always, everysec)
    replicas: int = 0  # CLAIM_REPLICAS: replicas an append must reach before it is acknowledged
    # CLAIM_EXPERT_SECONDS: the expert's time per decision; None (0): a fixed work budget
    expert_seconds: float | None = 0.2
    # CLAIM_SIGNING_KEY: the Ed25519 key that seals ended games (PEM, or base64 of the
    # raw 32 bytes); None: made once in data_dir (signing-key.pem)
    signing_key: str | None = field(default=None, repr=False)  # a secret: never printed
    # CLAIM_ARCHIVE_URL: where ended games go (sqlite:///<file> or postgresql://...);
    # None: data_dir/archive.sqlite3
    archive_url: str | None = field(default=None, repr=False)  # may hold a password
    archive_after: float = 86_400.0  # CLAIM_ARCHIVE_AFTER: seconds from a game's end to its move
    challenge_expires: float = 600.0  # CLAIM_CHALLENGE_EXPIRES: seconds a challenge stays open
    player_streams: int = 3  # CLAIM_PLAYER_STREAMS: player streams (/me/stream) open per player
    device_cap: int = 20  # CLAIM_DEVICE_CAP: keys (one per device) a player may hold
    # CLAIM_ACCOUNTS_PER_EMAIL: players one email address may be confirmed for
    accounts_per_email: int = 3
    # CLAIM_CHALLENGES_SENT: a player's challenges open (or their games running) at once
    challenges_sent: int = 5
    # CLAIM_CHALLENGES_RECEIVED: the challenges to one player open (or their games running)
    challenges_received: int = 20
    analyses_queued: int = 3  # CLAIM_ANALYSES_QUEUED: analyses one player may have queued
    # CLAIM_BREAK_DAYS: days a year a player may stop their correspondence clocks; 0: none
    break_days: int = 30
    sweep_every: float = 10.0  # claim worker --sweep-every: seconds between sweeps
    stuck_after: float = 30.0  # claim worker --stuck-after: seconds before an AI turn is
    # enqueued again

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides) -> Config:
        """The settings of `environ` (this process's environment by default), with
        `overrides` (from the command line) on top."""
        environ = os.environ if environ is None else environ
        values = {}
        for name, variable in ENVIRONMENT.items():
            text = environ.get(variable, "").strip()
            if text or (name in EMPTY_MEANS_OFF and variable in environ):
                values[name] = _parse(name, variable, text)
        return replace(cls(**values), **overrides)

    @property
    def archive(self) -> str:
        """The archive's URL: `archive_url`, else a SQLite file in `data_dir`."""
        if self.archive_url:
            return self.archive_url
        return f"sqlite:///{(self.data_dir / ARCHIVE_FILE).resolve()}"

    def is_trusted_proxy(self, address: str) -> bool:
        """Whether `address` is in a network of `trusted_proxies`.

        >>> config = Config(trusted_proxies=trusted_networks("V", "10.0.0.0/8"))
        >>> config.is_trusted_proxy("10.1.2.3"), config.is_trusted_proxy("::ffff:10.1.2.3")
        (True, True)
        """
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:  # not an address: a unix socket's peer, or a forged header
            return False
        ip = getattr(ip, "ipv4_mapped", None) or ip  # ::ffff:10.0.0.5, bound to [::]
        return any(ip in network for network in self.trusted_proxies)

    def __post_init__(self):
        if not self.prefix or ":" in self.prefix or "{" in self.prefix:
            raise ConfigError(f"CLAIM_PREFIX: {self.prefix!r} is empty or holds ':' or '{{'")
        if self.reminder_share is not None and not 0 < self.reminder_share < 1:
            raise ConfigError(f"CLAIM_REMINDER_SHARE: {self.reminder_share} is not between 0 and 1")
        for name in ("sweep_every", "stuck_after"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"--{name.replace('_', '-')} must be above 0")
        if self.fsync not in FSYNC_POLICIES:
            policies = ", ".join(FSYNC_POLICIES)
            raise ConfigError(f"CLAIM_FSYNC: {self.fsync!r} is not one of {policies}")
        if self.watch_cap < 1:
            raise ConfigError(f"CLAIM_WATCH_CAP: {self.watch_cap} is not 1 or more")
        for name in ("header_timeout", "body_timeout"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"{ENVIRONMENT[name]}: {getattr(self, name)} is not above 0")
        if self.sending_cap < 1:
            raise ConfigError(f"CLAIM_SENDING_CAP: {self.sending_cap} is not 1 or more")
        if self.replicas < 0:
            raise ConfigError(f"CLAIM_REPLICAS: {self.replicas} is not 0 or more")
        if not 0 <= self.archive_after < math.inf:
            raise ConfigError(f"CLAIM_ARCHIVE_AFTER: {self.archive_after} is not 0 or more")
        if not 0 < self.challenge_expires < math.inf:
            raise ConfigError(f"CLAIM_CHALLENGE_EXPIRES: {self.challenge_expires} is not above 0")
        for name in (
            "player_streams",
            "device_cap",
            "accounts_per_email",
            "challenges_sent",
            "challenges_received",
            "analyses_queued",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"{ENVIRONMENT[name]}: {getattr(self, name)} is not 1 or more")
        if not 0 <= self.break_days <= 366:
            raise ConfigError(f"CLAIM_BREAK_DAYS: {self.break_days} is not between 0 and 366")
        if self.archive_url is not None and not self.archive_url.startswith(ARCHIVE_SCHEMES):
            raise ConfigError("CLAIM_ARCHIVE_URL: not a sqlite: or postgresql: URL")
        if self.expert_seconds is not None and not 0 < self.expert_seconds <= 60:
            raise ConfigError(f"CLAIM_EXPERT_SECONDS: {self.expert_seconds} is not in (0, 60]")


# The environment variable of each setting read from the environment.
ENVIRONMENT = {
    "redis_url": "REDIS_URL",
    "queue_url": "CLAIM_QUEUE_URL",
    "data_dir": "CLAIM_DATA_DIR",
    "prefix": "CLAIM_PREFIX",
    "rate_limit": "CLAIM_RATE_LIMIT",
    "webhook_allow": "WEBHOOK_ALLOW",
    "push_allow": "CLAIM_PUSH_ALLOW",
    "vapid_private_key": "CLAIM_VAPID_PRIVATE_KEY",
    "smtp_url": "SMTP_URL",
    "mail_from": "CLAIM_MAIL_FROM",
    "public_url": "CLAIM_PUBLIC_URL",
    "reminder_share": "CLAIM_REMINDER_SHARE",
    "watch_cap": "CLAIM_WATCH_CAP",
    "header_timeout": "CLAIM_HEADER_TIMEOUT",
    "body_timeout": "CLAIM_BODY_TIMEOUT",
    "sending_cap": "CLAIM_SENDING_CAP",
    "trusted_proxies": "CLAIM_TRUSTED_PROXIES",
    "fsync": "CLAIM_FSYNC",
    "replicas": "CLAIM_REPLICAS",
    "expert_seconds": "CLAIM_EXPERT_SECONDS",
    "signing_key": "CLAIM_SIGNING_KEY",
    "archive_url": "CLAIM_ARCHIVE_URL",
    "archive_after": "CLAIM_ARCHIVE_AFTER",
    "challenge_expires": "CLAIM_CHALLENGE_EXPIRES",
    "player_streams": "CLAIM_PLAYER_STREAMS",
    "device_cap": "CLAIM_DEVICE_CAP",
    "accounts_per_email": "CLAIM_ACCOUNTS_PER_EMAIL",
    "challenges_sent": "CLAIM_CHALLENGES_SENT",
    "challenges_received": "CLAIM_CHALLENGES_RECEIVED",
    "analyses_queued": "CLAIM_ANALYSES_QUEUED",
    "break_days": "CLAIM_BREAK_DAYS",
}
assert set(ENVIRONMENT) <= {field.name for field in fields(Config)}


EMPTY_MEANS_OFF = ("rate_limit", "push_allow")  # an empty value of another: its default
WHOLE_NUMBERS = (
    "watch_cap",
    "replicas",
    "sending_cap",
    "header_timeout",
    "player_streams",
    "challenges_sent",
    "challenges_received",
    "analyses_queued",
    "device_cap",
    "accounts_per_email",
    "break_days",
)


def _parse(name: str, variable: str, text: str):
    if name == "data_dir":
        return Path(text)
    if name == "trusted_proxies":
        return trusted_networks(variable, text)
    if name in ("body_timeout", "archive_after", "challenge_expires"):
        try:
            return float(text)
        except ValueError:
            raise ConfigError(f"{variable}: {text!r} is not a number") from None
    if name in ("reminder_share", "expert_seconds"):
        try:
            number = float(text)
        except ValueError:
            raise ConfigError(f"{variable}: {text!r} is not a number") from None
        return number or None  # 0: no reminders; the expert's fixed work budget
    if name in WHOLE_NUMBERS:
        try:
            return int(text)
        except ValueError:
            raise ConfigError(f"{variable}: {text!r} is not a whole number") from None
    return text


def trusted_networks(variable: str, text: str):
    """The networks of a comma- or space-separated list of addresses and CIDRs.

    >>> [str(n) for n in trusted_networks("V", "10.0.0.0/8, 127.0.0.1 ::1")]
    ['10.0.0.0/8', '127.0.0.1/32', '::1/128']
    """
    try:
        return tuple(ipaddress.ip_network(part) for part in re.split(r"[\s,]+", text) if part)
    except ValueError as error:
        raise ConfigError(f"{variable}: {error}") from None


def child_environment(**settings: str) -> dict[str, str]:
    """This process's environment with `settings` changed: for a process it starts
    (`claim serve` hands the embedded Redis's URL to gunicorn and the worker)."""
    return {**os.environ, **settings}
