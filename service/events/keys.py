"""The server's keys: the Ed25519 signing key, which seals ended games (`seals.py`),
and the VAPID key that signs its Web Push requests (`VapidKey`).

`CLAIM_SIGNING_KEY` gives it (a PEM private key, or the base64 of the 32 raw bytes);
otherwise it is made once, at first use, in `CLAIM_DATA_DIR/signing-key.pem` (0600),
and read from there afterwards. Every API host and worker of one deployment must sign
with the same key: they share the setting (docs/deployment.md). A key's id is the
first 16 hex digits of the sha256 of its raw public key, so that a verifier can keep
the public halves of older keys beside the current one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from py_vapid import Vapid02

from service.config import Config, ConfigError

KEY_FILE = "signing-key.pem"
VAPID_FILE = "vapid-key.pem"
ALGORITHM = "Ed25519"
_RAW = serialization.Encoding.Raw, serialization.PublicFormat.Raw


@dataclass(frozen=True, slots=True)
class PublicKey:
    """The public half of a signing key, as `/.well-known/claim-keys` lists it."""

    key_id: str
    key: Ed25519PublicKey

    @classmethod
    def of(cls, key: Ed25519PublicKey) -> PublicKey:
        raw = key.public_bytes(*_RAW)
        return cls(hashlib.sha256(raw).hexdigest()[:16], key)

    @classmethod
    def parse(cls, listed: dict) -> PublicKey:
        """One entry of `/.well-known/claim-keys` (ValueError if it is none)."""
        if not isinstance(listed, dict) or listed.get("algorithm") != ALGORITHM:
            raise ValueError(f"not an {ALGORITHM} key: {listed!r}")
        try:
            raw = base64.b64decode(listed["public_key"], validate=True)
            key = cls.of(Ed25519PublicKey.from_public_bytes(raw))
        except (KeyError, TypeError, ValueError, binascii.Error):
            raise ValueError(f"not an {ALGORITHM} key: {listed!r}") from None
        if key.key_id != listed.get("key_id"):
            raise ValueError(f"key {listed.get('key_id')!r} is not the id of its public key")
        return key

    def listed(self) -> dict:
        raw = base64.b64encode(self.key.public_bytes(*_RAW)).decode()
        return {"key_id": self.key_id, "algorithm": ALGORITHM, "public_key": raw}

    def verifies(self, signature: bytes, message: bytes) -> bool:
        try:
            self.key.verify(signature, message)
        except InvalidSignature:
            return False
        return True


class SigningKey:
    """The server's signing key, read (or made) at its first use: a process that never
    seals anything never touches the data directory for it."""

    def __init__(self, config: Config):
        self._config = config
        self._key: Ed25519PrivateKey | None = None
        self._lock = threading.Lock()

    def _private(self) -> Ed25519PrivateKey:
        with self._lock:
            if self._key is None:
                given = self._config.signing_key
                self._key = parse_key(given) if given else _kept(self._config.data_dir)
            return self._key

    @property
    def public(self) -> PublicKey:
        return PublicKey.of(self._private().public_key())

    def sign(self, message: bytes) -> bytes:
        return self._private().sign(message)


def parse_key(text: str) -> Ed25519PrivateKey:
    """A private key from `CLAIM_SIGNING_KEY`'s text: PEM, or base64 of 32 raw bytes."""
    text = text.strip()
    try:
        if text.startswith("-----BEGIN"):
            key = serialization.load_pem_private_key(text.encode(), password=None)
        else:
            key = Ed25519PrivateKey.from_private_bytes(base64.b64decode(text, validate=True))
    except (ValueError, TypeError, binascii.Error):
        key = None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError("CLAIM_SIGNING_KEY: not an Ed25519 private key (PEM or base64 raw)")
    return key


def _kept(data_dir: Path) -> Ed25519PrivateKey:
    """The key of `data_dir/signing-key.pem`, made there first if it is not."""
    path = data_dir / KEY_FILE
    pem = kept_pem(path, lambda: _pem(Ed25519PrivateKey.generate()))
    try:
        return parse_key(pem)
    except ConfigError:
        raise ConfigError(f"{path}: not an Ed25519 private key") from None


def kept_pem(path: Path, make: Callable[[], bytes]) -> str:
    """The text of the key file `path`, made first (0600, in a directory of 0700) from
    `make()` if it is not: written to a file of its own, then linked to its name, so
    that processes starting together all end up with the first one's key."""
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        draft = path.parent / f".{path.name}.{os.getpid()}.{threading.get_ident()}"
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(make())
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(draft, path)
        except FileExistsError:
            pass  # another process made it first: its key is the one
        finally:
            draft.unlink()
    return path.read_text()


def _pem(key) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


class VapidKey:
    """The server's VAPID key (RFC 8292): the P-256 key that signs its Web Push
    requests, so that a push service takes only this server's messages for the
    subscriptions made with its public half (`GET /push/key`). `CLAIM_VAPID_PRIVATE_KEY`
    gives it (PEM, or base64url of the raw 32 bytes, as web-push tools print it); else
    it is made once, at first use, in `CLAIM_DATA_DIR/vapid-key.pem` (0600). Every host
    of a deployment shares it: a new key leaves every subscription unusable."""

    def __init__(self, config: Config):
        self._config = config
        self._vapid: Vapid02 | None = None
        self._lock = threading.Lock()

    def _key(self) -> Vapid02:
        with self._lock:
            if self._vapid is None:
                given = self._config.vapid_private_key
                path = self._config.data_dir / VAPID_FILE
                text = given or kept_pem(
                    path, lambda: _pem(ec.generate_private_key(ec.SECP256R1()))
                )
                self._vapid = _vapid(text, "CLAIM_VAPID_PRIVATE_KEY" if given else str(path))
            return self._vapid

    @property
    def public(self) -> str:
        """The public key, base64url of its uncompressed point: a browser's
        `applicationServerKey`."""
        point = self._key().public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return base64.urlsafe_b64encode(point).rstrip(b"=").decode()

    def authorization(self, endpoint: str, subject: str, expires: int) -> str:
        """The `Authorization` header of a push to `endpoint`: a JWT for its origin,
        naming `subject` (a mailto: or https: URL) and expiring at unix time `expires`."""
        parts = urlsplit(endpoint)
        claims = {"aud": f"{parts.scheme}://{parts.netloc}", "sub": subject, "exp": expires}
        return self._key().sign(claims)["Authorization"]


def b64url_decode(text: str) -> bytes:
    """The bytes of base64url text, padded or not (as Web Push writes keys); ValueError
    for any other character (`+` and `/` too: they are base64's, not base64url's)."""
    if not re.fullmatch(r"[A-Za-z0-9_-]*=*", text):
        raise ValueError("not base64url")
    return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)


def _vapid(text: str, where: str) -> Vapid02:
    text = text.strip()
    try:
        if text.startswith("-----BEGIN"):
            key = serialization.load_pem_private_key(text.encode(), password=None)
        else:
            raw = b64url_decode(text)
            if len(raw) != 32:
                raise ValueError("not 32 bytes")
            key = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
    except (ValueError, TypeError, binascii.Error):
        key = None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        raise ConfigError(f"{where}: not a P-256 private key (PEM or base64url raw)")
    return Vapid02(key)
