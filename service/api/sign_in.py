"""`/sign-in`, `/me/sign-in-code` and the email confirmations: a registered player
signs in on a new device by a one-time link, emailed to their confirmed address or
shown on a device signed in already (`service/games/sign_in.py`); an address is
confirmed by the link mailed to it (`service/games/addresses.py`)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service import games

from .auth import bearer_token
from .fields import Email, Text
from .games import BEARER, claim
from .problems import Blueprint

blp = Blueprint(
    "sign-in", __name__, description="Sign in on a new device; confirm an email address"
)


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


class DeviceCodeSchema(Schema):
    code = fields.String(
        metadata={
            "description": "for the link `<server>/sign-in#code=<code>` to open on the other"
            " device (`POST /sign-in/code`); works once; shown once"
        }
    )
    expires_at = fields.DateTime()


class ConfirmAgainSchema(Schema):
    sent = fields.Boolean(
        metadata={
            "description": "true: a link goes to your address, unless a confirmation went"
            " there in the last 5 minutes; false: it is confirmed already, or you have none"
        }
    )


class ConfirmedSchema(Schema):
    player_id = fields.String()
    name = fields.String()
    email = fields.String(metadata={"description": "the address confirmed"})


@blp.route("/sign-in/options", methods=["GET"])
@blp.response(200, OptionsSchema)
def options():
    """How players may sign in on a new device here, beside sending a key they have."""
    return {"by_email": games.by_email_here(claim())}


@blp.route("/sign-in", methods=["POST"])
@blp.arguments(AskSchema)
@blp.response(202, SentSchema)
def ask(args):
    """Email a sign-in link for every player whose confirmed address this is, in one
    mail (at most one every 5 minutes). The answer is the same whether or not anybody
    has it."""
    games.ask_sign_in(claim(), args["email"])
    return {"sent": True}


@blp.route("/sign-in/code", methods=["POST"])
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


@blp.route("/me/sign-in-code", methods=["POST"])
@blp.response(201, DeviceCodeSchema)
@blp.doc(security=BEARER)
def device_code():
    """A code that signs one other device in as you (`POST /sign-in/code`), within 5
    minutes; shown once."""
    made = games.device_code(claim(), bearer_token())
    return {"code": made.code, "expires_at": made.expires_at}


@blp.route("/me/email-confirmation", methods=["POST"])
@blp.response(202, ConfirmAgainSchema)
@blp.doc(security=BEARER)
def confirm_again():
    """Mail your address the link that confirms it again: no mail but that one goes to
    it until you open the link."""
    return {"sent": games.confirm_again(claim(), bearer_token())}


@blp.route("/email-confirmation", methods=["POST"])
@blp.arguments(CodeSchema)
@blp.response(200, ConfirmedSchema)
def confirm_email(args):
    """Use up a confirmation link's code: the address it was mailed to is confirmed for
    its player, who may be sent sign-in links and notifications there from now on."""
    player = games.confirm_email(claim(), args["code"])
    return {"player_id": player.id, "name": player.name, "email": player.email}
