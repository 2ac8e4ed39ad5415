"""What registered players do: register, read and change their profile, keep a key
per device (`Config.device_cap` at most), make a seat they took without a key their
own, read their inbox of games and the log of the notifications sent to them. Every use
case but `register` takes the player's key (of any of their devices) as it came, and
refuses without it. An address given is mailed a link to confirm it (`addresses.py`)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from service.events import (
    Delivery,
    Device,
    Game,
    Player,
    PushSubscription,
    SeatRegistered,
    StaleVersion,
    b64url_decode,
)

from .access import matches, me, my_device
from .addresses import ask_confirmation
from .changes import Change, follow_up
from .claim import Claim
from .errors import (
    GameOver,
    InvalidRequest,
    SeatUnavailable,
    TooManyDevices,
    TooManySubscriptions,
    UnknownSubscription,
    WrongToken,
    use_case,
)
from .inbox import inbox_entry
from .play import Moved

NEW_DEVICE_NAME = "another device"


@use_case
def register(
    claim: Claim,
    name: str,
    email: str | None = None,
    webhook_url: str | None = None,
    bot: bool = False,
) -> tuple[Player, str]:
    """A new player (a program's account with `bot`) and its key (shown once); an
    address is mailed a link to confirm it."""
    player, key = claim.players.register(name, email, webhook_url, bot)
    ask_confirmation(claim, player)
    return player, key


@use_case
def bots_of(claim: Claim, game: Game) -> frozenset[str]:
    """The players of `game`'s seats who are bots."""
    return claim.players.bots([seat.player for seat in game.seats if seat.player])


@use_case
def profile(claim: Claim, key: str | None) -> Player:
    """The player whose key this is."""
    return me(claim, key)


@use_case
def update(claim: Claim, key: str | None, **changes: str | None) -> Player:
    """Change the name, email or webhook URL (None clears email and URL); another
    address is unconfirmed, and mailed a link to confirm it."""
    player = me(claim, key)
    updated = claim.players.update(player.id, **changes)
    if (player.email or "").lower() != (updated.email or "").lower():
        ask_confirmation(claim, updated)
    return updated


@use_case
def rotate_key(claim: Claim, key: str | None) -> str:
    """A new key for the device whose key `key` is; `key` opens nothing any more, the
    keys of the player's other devices go on working."""
    holder = my_device(claim, key)
    return claim.players.rotate_key(holder.player.id, holder.device_id, key)


@dataclass(frozen=True, slots=True)
class Devices:
    devices: list[Device]  # oldest first
    current: str  # the id of the device whose key asked


@use_case
def devices(claim: Claim, key: str | None) -> Devices:
    """The player's devices, each with a key of its own (the key made at registration
    is the device `first`)."""
    holder = my_device(claim, key)
    return Devices(claim.players.devices(holder.player.id), holder.device_id)


@use_case
def add_device(claim: Claim, key: str | None, name: str | None = None) -> tuple[Device, str]:
    """A new device of the player and its key (shown once); TooManyDevices if they
    hold as many keys as they may."""
    return new_device(claim, me(claim, key).id, name or NEW_DEVICE_NAME)


def new_device(claim: Claim, player_id: str, name: str) -> tuple[Device, str]:
    """A new device of the player and its key; TooManyDevices if they hold
    `Config.device_cap` keys already."""
    added = claim.players.add_device(player_id, name, claim.config.device_cap)
    if added is None:
        raise _too_many_devices(claim)
    return added


def check_room(claim: Claim, player_id: str) -> None:
    """TooManyDevices if the player holds as many keys as they may (for what makes a
    device later: a code of a sign-in link)."""
    if claim.players.key_count(player_id) >= claim.config.device_cap:
        raise _too_many_devices(claim)


def _too_many_devices(claim: Claim) -> TooManyDevices:
    return TooManyDevices(
        f"you hold {claim.config.device_cap} keys, one per device, as many as a player may:"
        " sign a device out (DELETE /me/devices/{device_id}) first"
    )


@use_case
def subscribe_push(claim: Claim, key: str | None, endpoint: str, p256dh: str, auth: str):
    """Store a browser's Web Push subscription (`PushSubscription.toJSON()`'s endpoint
    and keys) for the device whose key this is; answer it and whether it is new. The
    endpoint must be a push service the operator allows (`CLAIM_PUSH_ALLOW`), the keys
    a P-256 point and a 16-byte secret; a player holds `Config.device_cap` at most."""
    holder = my_device(claim, key)
    errors = {}
    parts = urlsplit(endpoint)
    # A push service at an address the operator allows: plain http may do.
    local = claim.push_allowlist.in_networks(parts.hostname or "")
    if parts.scheme not in ("https", "http" if local else "https") or not parts.hostname:
        errors["endpoint"] = ["not an https URL"]
    elif not (local or claim.push_allowlist.by_name(parts.hostname)):
        errors["endpoint"] = ["not a push service this server sends to (CLAIM_PUSH_ALLOW)"]
    if _decoded_length(p256dh) != 65 or not p256dh.startswith("B"):  # 0x04: a whole point
        errors["keys.p256dh"] = ["not a P-256 public key (base64url of 65 bytes)"]
    if _decoded_length(auth) != 16:
        errors["keys.auth"] = ["not a 16-byte secret in base64url"]
    if errors:
        raise InvalidRequest("the subscription cannot be used", errors=errors)
    cap = claim.config.device_cap
    made = claim.players.add_push(holder.player.id, holder.device_id, endpoint, p256dh, auth, cap)
    if made is None:
        raise TooManySubscriptions(f"you hold {cap} push subscriptions: remove one first")
    return made


@use_case
def push_subscriptions(claim: Claim, key: str | None) -> tuple[PushSubscription, ...]:
    """The browsers the player subscribed to Web Push, by subscription id."""
    return me(claim, key).push_subscriptions


@use_case
def unsubscribe_push(claim: Claim, key: str | None, subscription_id: str) -> None:
    """Remove a subscription of the player's; UnknownSubscription if none has the id."""
    if not claim.players.remove_push(me(claim, key).id, subscription_id):
        raise UnknownSubscription(f"you have no push subscription {subscription_id!r}")


@use_case
def choose_channels(claim: Claim, key: str | None, chosen: dict[str, list[str]]) -> Player:
    """The channels (`webhook`, `email`, `push`) each kind of notification named in
    `chosen` goes by from now on (an empty list: none)."""
    return claim.players.set_channels(me(claim, key).id, chosen)


def _decoded_length(text: str) -> int | None:
    try:
        return len(b64url_decode(text))
    except (TypeError, ValueError):  # binascii.Error is a ValueError
        return None


@use_case
def remove_device(claim: Claim, key: str | None, device_id: str) -> None:
    """The device's key opens nothing any more (the key asking may be its own)."""
    claim.players.remove_device(me(claim, key).id, device_id)


REGISTER_ATTEMPTS = 10  # appends refused by moves made meanwhile, before giving up


@use_case
def register_seat(claim: Claim, key: str | None, game_id: str, seat: int, token: str) -> Moved:
    """Make `seat` of `game_id`, taken without a player key and opened by `token`, the
    player's own: their keys open it from now on, the game is in their inbox, and the
    token goes on working. Again for the same player: nothing changes."""
    holder = me(claim, key)
    for _ in range(REGISTER_ATTEMPTS):
        game = claim.store.load(game_id)
        spec = game.seats[seat] if seat in range(len(game.seats)) else None
        if spec is None or not matches(token, spec.token_hash):
            raise WrongToken(f"that is not the token of seat {seat}")
        if spec.player == holder.id:
            return Moved(game, seat)
        if game.ending is not None:
            raise GameOver("the game is over")
        if spec.player is not None:
            raise SeatUnavailable(f"seat {seat} is another player's")
        if any(other.player == holder.id for other in game.seats):
            raise SeatUnavailable("a player takes one seat of a game")
        event = SeatRegistered(seat, holder.id, secrets.token_hex(32))  # chain.py: why
        try:
            version = claim.store.append(game_id, [event], game.version)
        except StaleVersion as error:
            stale = error
            continue  # the game moved on meanwhile: look again
        registered = claim.store.load(game_id, version)
        follow_up(claim, Change(registered, (event,)))
        return Moved(registered, seat)
    raise stale  # a game moving on faster than it can be caught


@use_case
def index_emails(claim: Claim) -> int:
    """Index every player's email address again, for sign-in by email (`claim
    rebuild`: players registered before the index was kept); answer how many."""
    return claim.players.index_emails()


@dataclass(frozen=True, slots=True)
class Inbox:
    total: int  # games that fit the filters
    games: list[dict]  # the page asked for, as `inbox_entry` tells each


@use_case
def inbox(
    claim: Claim,
    key: str | None,
    status: str | None = None,
    mine: bool = False,
    offset: int = 0,
    limit: int = 20,
) -> Inbox:
    """The player's games, newest joined first: whose turn, the deadline, the last
    thing that happened; with `status`, those of that status; with `mine`, those
    waiting for the player."""
    holder = me(claim, key)
    listed = claim.player_games.joined(holder.id)
    entries = {}
    for game in claim.store.load_many([game_id for game_id, _ in listed]):  # one round trip
        entry = _entry(claim, game, holder.id)
        if status in (None, entry["status"]) and (not mine or entry["your_turn"]):
            entries[game.id] = entry
    kept = [(joined_at, game_id) for game_id, joined_at in listed if game_id in entries]
    if not mine:  # an archived game has ended: nobody's turn
        in_redis = {game_id for game_id, _ in listed}
        kept += [
            (joined_at, game_id)
            for game_id, joined_at, ended in claim.archive.games_of(holder.id)
            if status in (None, ended) and game_id not in in_redis
        ]
    page = [game_id for _, game_id in sorted(kept, reverse=True)[offset : offset + limit]]
    archived = [game_id for game_id in page if game_id not in entries]
    for game in claim.store.load_many(archived):
        entries[game.id] = _entry(claim, game, holder.id)
    return Inbox(len(kept), [entries[game_id] for game_id in page])


def _entry(claim: Claim, game: Game, player_id: str) -> dict:
    seat = next(n for n, seat in enumerate(game.seats) if seat.player == player_id)
    return inbox_entry(claim, game, seat)


@use_case
def deliveries(claim: Claim, key: str | None) -> list[Delivery]:
    """The player's last notifications, newest first: where, what came back."""
    return claim.players.deliveries(me(claim, key).id)
