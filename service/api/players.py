"""`/players` and `/me`: registered players, their keys (one per device), the seats
they make their own, their inbox of games and the log of the notifications sent to
them."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service import games
from service.games import Player, notifications

from .auth import bearer_required, bearer_token
from .challenges import ChallengeSchema, challenge_json
from .fields import Email, Flag, Name, QueryInteger, Text
from .games import BEARER, claim
from .problems import Blueprint
from .view import EndingSchema

blp = Blueprint("players", __name__, description="Players, their keys and their inboxes")
URL = validate.URL(schemes={"http", "https"}, require_tld=False)


class RegisterSchema(Schema):
    name = Name(required=True)
    email = Email(load_default=None, allow_none=True)
    webhook_url = Text(
        load_default=None,
        allow_none=True,
        validate=[validate.Length(max=500), URL],
        metadata={
            "format": "uri",
            "description": "http(s): notifications are POSTed here (hosts the operator allows)",
        },
    )
    bot = Flag(
        load_default=False,
        metadata={
            "description": "a program's account, marked as such everywhere; it plays rated"
            " games with people only when a person challenges it"
        },
    )


NOTIFICATIONS = fields.Dict(
    keys=fields.String(validate=validate.OneOf(notifications.KINDS)),
    values=fields.List(
        fields.String(validate=validate.OneOf(notifications.CHANNELS)),
        validate=validate.Length(max=len(notifications.CHANNELS)),
    ),
    metadata={
        "description": "by kind of notification (your-turn, reminder, game-over, rematch,"
        " challenge),"
        " the channels it goes by (webhook, email, push); every channel you have, for a"
        " kind you never chose"
    },
)


class UpdateSchema(Schema):
    notifications = NOTIFICATIONS
    name = Name()
    email = Email(allow_none=True)
    webhook_url = Text(
        allow_none=True, validate=[validate.Length(max=500), URL], metadata={"format": "uri"}
    )


class PlayerSchema(Schema):
    player_id = fields.String()
    name = fields.String()
    email = fields.String(allow_none=True)
    email_confirmed = fields.Boolean(
        metadata={
            "description": "whether the address's owner opened the link mailed to confirm it:"
            " until then no sign-in link or notification goes to it"
        }
    )
    webhook_url = fields.String(allow_none=True)
    created_at = fields.DateTime()
    bot = fields.Boolean(metadata={"description": "a program's account"})
    notifications = NOTIFICATIONS


class RegisteredSchema(PlayerSchema):
    key = fields.String(metadata={"description": "send as `Authorization: Bearer <key>`; once"})
    webhook_secret = fields.String(
        metadata={"description": "signs the webhooks sent to you (HMAC-SHA256); shown once"}
    )


class KeySchema(Schema):
    key = fields.String(
        metadata={
            "description": "the new key of this device; its old one opens nothing now, the"
            " other devices' keys go on working"
        }
    )


class NewDeviceRequestSchema(Schema):
    name = Name(
        load_default=None,
        metadata={"description": "to tell your devices apart; default: another device"},
    )


class DeviceSchema(Schema):
    device_id = fields.String(metadata={"description": "`first`: the key made at registration"})
    name = fields.String()
    created_at = fields.DateTime()


class NewDeviceSchema(DeviceSchema):
    key = fields.String(
        metadata={"description": "the device's key: `Authorization: Bearer <key>`; shown once"}
    )


class ListedDeviceSchema(DeviceSchema):
    current = fields.Boolean(metadata={"description": "the device of the key of this request"})


class DevicesSchema(Schema):
    devices = fields.List(
        fields.Nested(ListedDeviceSchema), metadata={"description": "oldest first"}
    )


class SeatRegistrationSchema(Schema):
    game_id = Text(required=True, validate=validate.Length(1, 40))
    seat = fields.Integer(required=True, strict=True, validate=validate.Range(0, 3))
    token = Text(
        required=True,
        validate=validate.Length(1, 200),
        metadata={"description": "the seat's token, which you got taking it without a key"},
    )


class RegisteredSeatSchema(Schema):
    game_id = fields.String()
    seat = fields.Integer()


INBOX_CHALLENGES = 10  # the open challenges `/me/games` lists beside a page of games


class InboxQuerySchema(Schema):
    status = fields.String(validate=validate.OneOf(("open", "running", "finished", "aborted")))
    turn = fields.String(
        validate=validate.OneOf(("mine",)), metadata={"description": "mine: games you must act in"}
    )
    offset = QueryInteger(load_default=0, validate=validate.Range(0, 1_000_000))
    # 50 games of four seats named with 64 characters each: 48 KB (tests/api/test_floods.py)
    limit = QueryInteger(load_default=20, validate=validate.Range(1, 50))


class InboxSeatSchema(Schema):
    seat = fields.Integer()
    kind = fields.String(metadata={"enum": ["human", "ai"]})
    level = fields.String(allow_none=True)
    name = fields.String(allow_none=True)
    bot = fields.Boolean(metadata={"description": "the seat's player is a bot's account"})


class InboxEntrySchema(Schema):
    game_id = fields.String()
    seat = fields.Integer()
    status = fields.String()
    players = fields.Integer()
    to_act = fields.Integer(allow_none=True)
    your_turn = fields.Boolean()
    deadline_at = fields.DateTime(allow_none=True)
    seconds_left = fields.Float(allow_none=True)
    rated = fields.Boolean()
    on_timeout = fields.String(
        allow_none=True,
        metadata={
            "description": "what a timeout of the seat to act comes to now (`ai:<level>`,"
            " `takeover:<level>`, `forfeit`; the game view's `on_timeout`); null: no clock"
        },
    )
    last = fields.String(metadata={"description": "the last thing that happened, in words"})
    version = fields.Integer()
    updated_at = fields.DateTime()
    seats = fields.List(fields.Nested(InboxSeatSchema))
    ending = fields.Nested(EndingSchema, allow_none=True)
    rematch = fields.String(allow_none=True, metadata={"description": "the next game's id"})
    you_won = fields.Boolean(
        allow_none=True,
        metadata={
            "description": "whether your side won; null before the end, for a draw or an abort"
        },
    )


class InboxSchema(Schema):
    total = fields.Integer()
    offset = fields.Integer()
    games = fields.List(fields.Nested(InboxEntrySchema))
    challenges = fields.List(
        fields.Nested(ChallengeSchema),
        metadata={
            "description": "your open challenges, sent and received, the oldest"
            f" {INBOX_CHALLENGES} (all of them: /me/challenges)"
        },
    )
    challenges_total = fields.Integer(metadata={"description": "your open challenges"})


class DeliverySchema(Schema):
    delivery_id = fields.String(
        metadata={"description": "the `Claim-Delivery` header: the same for every attempt"}
    )
    channel = fields.String(metadata={"description": "webhook or email"})
    kind = fields.String(metadata={"description": "your-turn, reminder, game-over or rematch"})
    game_id = fields.String()
    version = fields.Integer()
    host = fields.String(
        allow_none=True, metadata={"description": "the webhook URL's host, or the email's domain"}
    )
    outcome = fields.String(
        metadata={"description": "delivered, failed (tried again later) or blocked (not allowed)"}
    )
    status_code = fields.Integer(allow_none=True, metadata={"description": "the HTTP answer"})
    error = fields.String(allow_none=True)
    attempt = fields.Integer(metadata={"description": "1 for the first attempt"})
    at = fields.DateTime()


class DeliveriesSchema(Schema):
    deliveries = fields.List(fields.Nested(DeliverySchema))


def _profile(holder: Player) -> dict:
    return {
        "player_id": holder.id,
        "name": holder.name,
        "email": holder.email,
        "email_confirmed": holder.email_confirmed,
        "webhook_url": holder.webhook_url,
        "created_at": holder.created_at,
        "bot": holder.bot,
        "notifications": {
            kind: list(holder.channels.get(kind, notifications.CHANNELS))
            for kind in notifications.KINDS
        },
    }


@blp.route("/players", methods=["POST"])
@blp.arguments(RegisterSchema)
@blp.response(201, RegisteredSchema)
def register(args):
    """Register a player: answers its key and webhook secret, once. An address given
    is mailed a link to confirm it; no other mail goes to it until it is."""
    holder, key = games.register(claim(), **args)
    return {**_profile(holder), "key": key, "webhook_secret": holder.webhook_secret}


@blp.route("/me", methods=["GET"])
@blp.response(200, PlayerSchema)
@blp.doc(security=BEARER)
def profile():
    """Your name, email and webhook URL."""
    return _profile(games.profile(claim(), bearer_token()))


@blp.route("/me", methods=["PATCH"])
@bearer_required
@blp.arguments(UpdateSchema)
@blp.response(200, PlayerSchema)
@blp.doc(security=BEARER)
def update(args):
    """Change your name, email or webhook URL (null clears email and URL). Another
    address is unconfirmed: a link to confirm it is mailed to it. `notifications`
    chooses the channels of the kinds it names."""
    chosen = args.pop("notifications", None)
    if chosen is not None:
        games.choose_channels(claim(), bearer_token(), chosen)
    return _profile(games.update(claim(), bearer_token(), **args))


@blp.route("/me/key", methods=["POST"])
@blp.response(201, KeySchema)
@blp.doc(security=BEARER)
def rotate_key():
    """A new key for the device whose key the request sends: that key stops working at
    once; the keys of your other devices go on working."""
    return {"key": games.rotate_key(claim(), bearer_token())}


def _device(device: games.Device) -> dict:
    return {"device_id": device.id, "name": device.name, "created_at": device.created_at}


@blp.route("/me/devices", methods=["POST"])
@bearer_required
@blp.arguments(NewDeviceRequestSchema, required=False)
@blp.response(201, NewDeviceSchema)
@blp.doc(security=BEARER)
def add_device(args):
    """A key for another device of yours, shown once; every key of yours opens what
    your player key opens. The body is optional. A player holds at most the server's
    `CLAIM_DEVICE_CAP` keys (20 by default), one per device."""
    device, key = games.add_device(claim(), bearer_token(), args["name"])
    return {**_device(device), "key": key}


@blp.route("/me/devices", methods=["GET"])
@blp.response(200, DevicesSchema)
@blp.doc(security=BEARER)
def devices():
    """Your devices, each with a key of its own, oldest first (`first`: the key made
    at registration); `current` marks the one asking."""
    found = games.devices(claim(), bearer_token())
    return {
        "devices": [
            {**_device(device), "current": device.id == found.current} for device in found.devices
        ]
    }


@blp.route("/me/devices/<device_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER)
def remove_device(device_id):
    """The device's key stops working at once (this request's own key too, if it is
    that device's)."""
    games.remove_device(claim(), bearer_token(), device_id)


class BreakRequestSchema(Schema):
    days = fields.Integer(
        strict=True,
        required=True,
        validate=validate.Range(1, 366),
        metadata={"description": "days from now, counted against the year's days of breaks"},
    )


class BreakSchema(Schema):
    running = fields.Boolean(metadata={"description": "whether a break of yours runs now"})
    until = fields.DateTime(
        allow_none=True, metadata={"description": "the end of your last break; null: none"}
    )
    days_used = fields.Integer(metadata={"description": "days of breaks taken this year"})
    days_allowed = fields.Integer(
        metadata={"description": "days of breaks a year on this server (`CLAIM_BREAK_DAYS`)"}
    )
    game_ids = fields.List(
        fields.String(),
        metadata={"description": "the games whose clock this request stopped or started again"},
    )


def _break(breaks: games.PlayerBreak, game_ids=()) -> dict:
    running = breaks.running(claim().clock())
    return {
        "running": running,
        "until": breaks.until,
        "days_used": breaks.days_used,
        "days_allowed": breaks.days_allowed,
        "game_ids": list(game_ids),
    }


@blp.route("/me/break", methods=["GET"])
@blp.response(200, BreakSchema)
@blp.doc(security=BEARER)
def breaks():
    """Your breaks this year: whether one runs, until when, and the days taken of those
    allowed."""
    return _break(games.breaks(claim(), bearer_token()))


@blp.route("/me/break", methods=["POST"])
@bearer_required
@blp.arguments(BreakRequestSchema)
@blp.response(201, BreakSchema)
@blp.doc(security=BEARER)
def take_break(args):
    """Take a break of `days` from now: your clock stops in each of your running games
    of a day or more a move (your opponents see until when, and your days used); games
    you join meanwhile run as usual. 409 `break-refused` while a break runs, or past
    the year's days of breaks (`CLAIM_BREAK_DAYS`, 30 by default)."""
    taken = games.take_break(claim(), bearer_token(), args["days"])
    return _break(taken.breaks, taken.game_ids)


@blp.route("/me/break", methods=["DELETE"])
@blp.response(200, BreakSchema)
@blp.doc(security=BEARER)
def end_break():
    """End your break now: your clocks run again, and the whole days not begun are
    yours again. 409 `break-refused` if none runs."""
    ended = games.end_break(claim(), bearer_token())
    return _break(ended.breaks, ended.game_ids)


@blp.route("/me/seats", methods=["POST"])
@bearer_required
@blp.arguments(SeatRegistrationSchema)
@blp.response(200, RegisteredSeatSchema)
@blp.doc(security=BEARER)
def register_seat(args):
    """Make a seat you took without a player key yours, with its token: your keys
    open it from now on and the game is in your inbox; the token goes on working.
    Again for a seat already yours: nothing changes."""
    registered = games.register_seat(
        claim(), bearer_token(), args["game_id"], args["seat"], args["token"]
    )
    return {"game_id": registered.game.id, "seat": registered.seat}


@blp.route("/me/games", methods=["GET"])
@blp.arguments(InboxQuerySchema, location="query")
@blp.response(200, InboxSchema)
@blp.doc(security=BEARER)
def inbox(args):
    """Your games, newest first: whose turn, the deadline, the last thing that happened.
    `turn=mine` keeps the games waiting for you. And your oldest open challenges (all of
    them: `/me/challenges`)."""
    offset, limit = args["offset"], args["limit"]
    mine = args.get("turn") == "mine"
    key = bearer_token()
    found = games.inbox(claim(), key, args.get("status"), mine, offset, limit)
    challenges = games.open_challenges(claim(), key, limit=INBOX_CHALLENGES)
    return {
        "total": found.total,
        "offset": offset,
        "games": found.games,
        "challenges": [challenge_json(shown) for shown in challenges.challenges],
        "challenges_total": challenges.total,
    }


@blp.route("/me/deliveries", methods=["GET"])
@blp.response(200, DeliveriesSchema)
@blp.doc(security=BEARER)
def deliveries():
    """The last 100 attempts to notify you, newest first: where, what came back."""
    return {"deliveries": games.deliveries(claim(), bearer_token())}
