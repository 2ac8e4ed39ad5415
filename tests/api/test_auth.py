"""Secrets: random, stored as SHA-256, compared in constant time, sent as Bearer."""

import hashlib

from service.api.auth import bearer_token, digest, matches, new_secret


def test_a_secret_has_256_random_bits():
    secrets = {new_secret() for _ in range(100)}
    assert len(secrets) == 100
    assert all(len(secret) == 43 for secret in secrets)  # 32 bytes, base64url


def test_only_the_sha256_of_a_secret_is_kept():
    assert digest("abc") == hashlib.sha256(b"abc").hexdigest()


def test_a_secret_matches_its_digest_only():
    secret = new_secret()
    assert matches(secret, digest(secret))
    assert not matches(secret + "x", digest(secret))
    assert not matches(secret, None)


def test_the_bearer_token_is_read_from_the_authorization_header(app):
    with app.test_request_context(headers={"Authorization": "Bearer abc"}):
        assert bearer_token() == "abc"
    with app.test_request_context(headers={"Authorization": "Basic abc"}):
        assert bearer_token() is None
    with app.test_request_context():
        assert bearer_token() is None
