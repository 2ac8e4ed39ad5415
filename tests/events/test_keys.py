"""The server's VAPID key: given by setting (PEM or base64url raw) or made once in the
data directory, private to its owner, the same for every process that shares it."""

import base64
import os
import stat

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

from service.config import Config, ConfigError
from service.events import VapidKey


def test_a_key_is_made_once_in_the_data_directory_readable_by_its_owner_only(tmp_path):
    first = VapidKey(Config(data_dir=tmp_path / "data"))
    public = first.public
    made = tmp_path / "data" / "vapid-key.pem"
    assert stat.S_IMODE(os.stat(made).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(made.parent).st_mode) == 0o700
    assert VapidKey(Config(data_dir=tmp_path / "data")).public == public
    assert len(base64.urlsafe_b64decode(public + "=")) == 65  # an uncompressed P-256 point


@pytest.mark.parametrize("form", ["pem", "raw"])
def test_a_key_given_by_setting_signs_and_nothing_is_written(tmp_path, form):
    key = ec.generate_private_key(ec.SECP256R1())
    if form == "pem":
        text = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
    else:
        raw = key.private_numbers().private_value.to_bytes(32, "big")
        text = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    vapid = VapidKey(Config(data_dir=tmp_path, vapid_private_key=text))
    header = vapid.authorization("https://fcm.googleapis.com/fcm/send/x", "mailto:a@b.org", 2**31)
    assert Vapid02.verify(header) and header.endswith(f",k={vapid.public}")
    assert not (tmp_path / "vapid-key.pem").exists()
    assert text not in repr(Config(vapid_private_key=text))


@pytest.mark.parametrize("text", ["not a key", base64.b64encode(b"\0" * 40).decode()])
def test_a_key_that_is_no_p256_key_is_refused_naming_its_setting(tmp_path, text):
    with pytest.raises(ConfigError, match="CLAIM_VAPID_PRIVATE_KEY"):
        VapidKey(Config(data_dir=tmp_path, vapid_private_key=text)).authorization(
            "https://fcm.googleapis.com/x", "mailto:a@b.org", 2**31
        )
