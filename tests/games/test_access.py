"""Secrets: random, stored as SHA-256, compared in constant time; what a credential
opens."""

import hashlib

import pytest

from service import games
from service.events import digest, new_secret
from service.games.access import matches, me, seat_of, seat_opened


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


def test_a_seat_token_opens_its_seat_and_a_player_key_the_players_seat(claim):
    ann, key = games.register(claim, "Ann")
    created = games.create(claim, players=2)
    game_id = created.game.id
    games.join(claim, game_id, 0, created.invites[0], None, key)
    bo = games.join(claim, game_id, 1, created.invites[1], "Bo")
    game = claim.store.load(game_id)
    assert seat_of(claim, game, bo.token) == 1
    assert seat_of(claim, game, key) == 0
    assert seat_of(claim, game, "not a token") is None
    assert seat_of(claim, game, None) is None
    with pytest.raises(games.Unauthorized):
        seat_opened(claim, game, "not a token")
    assert me(claim, key).id == ann.id
    with pytest.raises(games.Unauthorized):
        me(claim, bo.token)
