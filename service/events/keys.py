"""The server's Ed25519 signing key, which seals ended games (`seals.py`).

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
import threading
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from service.config import Config, ConfigError

KEY_FILE = "signing-key.pem"
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
    """The key of `data_dir/signing-key.pem`, made there first if it is not: written to
    a file of its own, then linked to its name, so that processes starting together
    all end up with the first one's key."""
    path = data_dir / KEY_FILE
    if not path.exists():
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        pem = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        draft = data_dir / f".{KEY_FILE}.{os.getpid()}.{threading.get_ident()}"
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(pem)
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(draft, path)
        except FileExistsError:
            pass  # another process made it first: its key is the one
        finally:
            draft.unlink()
    try:
        return parse_key(path.read_text())
    except ConfigError:
        raise ConfigError(f"{path}: not an Ed25519 private key") from None
