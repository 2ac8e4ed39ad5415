"""Web Push: the server's VAPID key, and the browsers a player subscribed (`/sw.js`
shows what is pushed to them: your turn, a reminder, a game over, a rematch)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service import games

from .auth import bearer_required, bearer_token
from .fields import Text
from .games import BEARER, claim
from .problems import Blueprint

blp = Blueprint("push", __name__, description="Web Push to the browsers of players")


class PushKeySchema(Schema):
    public_key = fields.String(
        metadata={
            "description": "the VAPID public key (base64url of the P-256 point): a browser's"
            " `applicationServerKey` for `pushManager.subscribe`"
        }
    )


class PushKeysSchema(Schema):
    p256dh = Text(required=True, validate=validate.Length(max=200))
    auth = Text(required=True, validate=validate.Length(max=100))


class PushSubscriptionRequestSchema(Schema):
    """`PushSubscription.toJSON()` as a browser makes it."""

    endpoint = Text(required=True, validate=validate.Length(max=1000), metadata={"format": "uri"})
    expirationTime = fields.Integer(allow_none=True, load_default=None)
    keys = fields.Nested(PushKeysSchema, required=True)


class PushSubscriptionSchema(Schema):
    subscription_id = fields.String()
    endpoint = fields.String(metadata={"format": "uri"})
    device_id = fields.String(
        metadata={"description": "the device whose key made it: removing the device removes it"}
    )
    created_at = fields.DateTime()


class PushSubscriptionsSchema(Schema):
    subscriptions = fields.List(fields.Nested(PushSubscriptionSchema))


@blp.route("/push/key", methods=["GET"])
@blp.response(200, PushKeySchema)
def key():
    """The server's VAPID public key, to subscribe a browser to its pushes."""
    return {"public_key": claim().vapid_key.public}


@blp.route("/me/push-subscriptions", methods=["POST"])
@bearer_required
@blp.arguments(PushSubscriptionRequestSchema)
@blp.response(201, PushSubscriptionSchema)
@blp.alt_response(200, schema=PushSubscriptionSchema, description="the same endpoint again")
@blp.doc(security=BEARER)
def subscribe(args):
    """Push your turns (and reminders, games over, rematches) to this browser, even with
    its page closed: the body is `PushSubscription.toJSON()`. The endpoint must be a push
    service the server sends to (`CLAIM_PUSH_ALLOW`: the browsers' own by default); the
    same endpoint again replaces its keys (200). A push service that says the
    subscription ended has it removed. At most `CLAIM_DEVICE_CAP` (20) a player."""
    keys = args["keys"]
    made, new = games.subscribe_push(
        claim(), bearer_token(), args["endpoint"], keys["p256dh"], keys["auth"]
    )
    return made.listed(), 201 if new else 200


@blp.route("/me/push-subscriptions", methods=["GET"])
@blp.response(200, PushSubscriptionsSchema)
@blp.doc(security=BEARER)
def subscriptions():
    """The browsers you subscribed to pushes."""
    found = games.push_subscriptions(claim(), bearer_token())
    return {"subscriptions": [subscription.listed() for subscription in found]}


@blp.route("/me/push-subscriptions/<subscription_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER)
def unsubscribe(subscription_id):
    """No more pushes to that browser."""
    games.unsubscribe_push(claim(), bearer_token(), subscription_id)
