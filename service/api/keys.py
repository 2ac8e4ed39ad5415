"""`/.well-known/claim-keys`: the public keys that ended games' seals are checked with."""

from __future__ import annotations

from marshmallow import Schema, fields

from service import games

from .games import claim
from .problems import Blueprint

blp = Blueprint("keys", __name__, description="The keys of the seals")


class SigningKeySchema(Schema):
    key_id = fields.String(metadata={"description": "the seals made with it name it"})
    algorithm = fields.String(metadata={"enum": ["Ed25519"]})
    public_key = fields.String(metadata={"description": "the 32 raw bytes, base64"})


class SigningKeysSchema(Schema):
    keys = fields.List(fields.Nested(SigningKeySchema))


@blp.route("/.well-known/claim-keys", methods=["GET"])
@blp.response(200, SigningKeysSchema)
def keys():
    """The server's public signing keys, for `claim verify-export --key`."""
    return {"keys": [key.listed() for key in games.public_keys(claim())]}
