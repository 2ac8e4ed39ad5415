"""`/sign-in`: a registered player signs in on a new device by a link emailed to them
(`service/games/sign_in.py`)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service import games

from .fields import Email, Text
from .games import claim
from .problems import Blueprint

blp = Blueprint("sign-in", __name__, url_prefix="/sign-in", description="Sign in by email")


class OptionsSchema(Schema):
    by_email = fields.Boolean(metadata={"description": "whether this server emails sign-in links"})


class AskSchema(Schema):
    email = Email(required=True, validate=validate.Length(max=320))


class SentSchema(Schema):
    sent = fields.Boolean(metadata={"description": "always true: nobody learns who is registered"})


class CodeSchema(Schema):
    code = Text(
        required=True,
        validate=validate.Length(1, 200),
        metadata={"description": "from the link's `#code=`: never in a URL"},
    )


class SignedInSchema(Schema):
    player_id = fields.String()
    name = fields.String()
    key = fields.String(
        metadata={"description": "this device's key: `Authorization: Bearer <key>`; shown once"}
    )
    device_id = fields.String()


@blp.route("/options", methods=["GET"])
@blp.response(200, OptionsSchema)
def options():
    """How players may sign in on a new device here, beside sending a key they have."""
    return {"by_email": games.by_email_here(claim())}


@blp.route("", methods=["POST"])
@blp.arguments(AskSchema)
@blp.response(202, SentSchema)
def ask(args):
    """Email a sign-in link to every player with this address (at most one a minute
    each). The answer is the same whether or not anybody has it."""
    games.ask_sign_in(claim(), args["email"])
    return {"sent": True}


@blp.route("/code", methods=["POST"])
@blp.arguments(CodeSchema)
@blp.response(201, SignedInSchema)
def sign_in(args):
    """Use up a sign-in link's code: answers a key for this device, once."""
    signed_in = games.sign_in_with_code(claim(), args["code"])
    return {
        "player_id": signed_in.player.id,
        "name": signed_in.player.name,
        "key": signed_in.key,
        "device_id": signed_in.device.id,
    }
