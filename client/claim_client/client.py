"""`Client`: every call of the Claim API, with the credentials it holds.

A call answers the JSON body as the TypedDict of `claim_client.schemas` that
openapi.yaml names, or raises `ProblemError`. What every program would otherwise write
again is done here: the player key and each seat's token sent where they open
something, `expected_version` from the last view seen, a fresh `Idempotency-Key` per
move that its retries reuse, 429 and 503 retried after their `Retry-After`, and live
streams that resume after the last event (`Last-Event-ID`) when they end or stall.
"""

from __future__ import annotations

import contextlib
import email.utils
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from .errors import ProblemError, Unreachable
from .schemas import (
    Analysis,
    Audit,
    Board,
    Break,
    Challenge,
    Challenges,
    ConfirmAgain,
    Confirmed,
    Created,
    Decks,
    Deliveries,
    DeviceCode,
    Devices,
    EventLog,
    GameView,
    Health,
    Inbox,
    Joined,
    Key,
    Legal,
    LobbyPage,
    Moved,
    NewDevice,
    Options,
    Player,
    PublicProfile,
    PushKey,
    PushSubscription,
    PushSubscriptions,
    Ready,
    Registered,
    RegisteredSeat,
    Rematch,
    Replay,
    Sent,
    SignedIn,
    SigningKeys,
)
from .streams import StreamEvent, server_sent

OVER = ("finished", "aborted")
RETRIED = (429, 503)  # refused before anything changed, or unavailable for a while
# 429s that no retry within seconds lifts (a player's places stay held until a
# challenge is answered or its game ends, an analysis done): raised at once.
HELD = ("too-many-challenges", "too-many-analyses")
NOT_CONNECTED = (httpx.ConnectError, httpx.ConnectTimeout)  # nothing was sent

Call = TypeVar("Call", bound=Callable[..., Any])


def operation(method: str, path: str) -> Callable[[Call], Call]:
    """Mark a method as the call of one operation of openapi.yaml (a test holds the two
    lists equal)."""

    def mark(function: Call) -> Call:
        function.operation = (method, path)  # type: ignore[attr-defined]
        return function

    return mark


@dataclass(frozen=True, slots=True)
class SeatToken:
    """A seat taken without a player key (or with one: its token opens it too)."""

    seat: int
    token: str


class Client:
    """A client of one Claim server. `key` is a player key (from `register`, `sign_in`
    or a device); seats joined are held in `seats` and opened with their token.

    Requests that change nothing (GET) and moves (their `Idempotency-Key` makes a repeat
    harmless) are sent again when the server is unavailable (503) or the connection
    fails; every request is sent again after a 429 (but one of `HELD`). Each waits the answer's
    `Retry-After` (at most `max_wait` seconds), else 0.5 s doubling, `retries` times.
    A live stream that gets no byte for `stall_after` seconds (the server sends a
    keep-alive every 15) is taken for dead and opened again where it stopped; a live
    stream is opened again however long the server is away. But a server that never
    answered this client is not waited for (a wrong URL, or none started there): a
    connection that cannot be made raises `Unreachable`, at once to such a server,
    else when the request would not be sent again.
    """

    def __init__(
        self,
        url: str = "http://127.0.0.1:8000",
        key: str | None = None,
        *,
        timeout: float = 30.0,
        retries: int = 8,
        max_wait: float = 60.0,
        stall_after: float = 20.0,
        transport: httpx.BaseTransport | None = None,
    ):
        self.url = url.rstrip("/")
        self.key = key
        self.seats: dict[str, SeatToken] = {}
        self.versions: dict[str, int] = {}  # per game, the newest version seen
        # Games the player key opened no seat of: the newest version seen when it was
        # refused while the game was open to join, None once it had started.
        self.not_seated: dict[str, int | None] = {}
        self.timeout, self.retries, self.max_wait = timeout, retries, max_wait
        self.stall_after = stall_after
        self.answered = False  # whether the server has answered this client yet
        self._http = httpx.Client(base_url=self.url, timeout=timeout, transport=transport)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- credentials and versions --------------------------------------------------

    def hold_seat(self, game_id: str, seat: int, token: str) -> None:
        """Open `game_id` with this seat's token from now on."""
        self.seats[game_id] = SeatToken(seat, token)

    def credential(self, game_id: str) -> str | None:
        """What opens `game_id`: its seat's token if held, else the player key."""
        held = self.seats.get(game_id)
        return held.token if held else self.key

    def _read(self, game_id: str, path: str, **options) -> Any:
        """A GET of one game as its seat sees it, or as the public does when the player
        key opens no seat of it (the server refuses a key there: 401). The key is sent
        again once a game that was open to join has changed: a seat may have been taken
        with it elsewhere (in a browser, say)."""
        public = None
        if game_id in self.not_seated:
            public = self._send("GET", path, None, **options)
            refused_at = self.not_seated[game_id]
            if refused_at is None or self.versions.get(game_id, 0) <= refused_at:
                return public
        credential = self.credential(game_id)
        try:
            body = self._send("GET", path, credential, **options)
        except ProblemError as error:
            if error.status != 401 or not credential or game_id in self.seats:  # not the key
                raise
            if public is None:  # else read just now
                public = self._send("GET", path, None, **options)
            still_open = isinstance(public, dict) and public.get("status") == "open"
            self.not_seated[game_id] = self.versions.get(game_id, 0) if still_open else None
            return public
        self.not_seated.pop(game_id, None)
        return body

    def _saw(self, body: Any, game_id: str | None = None) -> Any:
        """Remember the version of a game's view (or of a move's answer, or of the
        legal decisions of `game_id`)."""
        view = body.get("view", body) if isinstance(body, dict) else None
        if isinstance(view, dict) and "version" in view:
            game_id = view.get("game_id", game_id)
            if game_id is not None:
                self.versions[game_id] = max(self.versions.get(game_id, 0), view["version"])
        return body

    # -- the transport -------------------------------------------------------------

    def _wait(self, response: httpx.Response | None, attempt: int) -> None:
        """Sleep before a retry: `Retry-After` (seconds or a date), else backing off."""
        wait = 0.5 * 2**attempt
        sent = response.headers.get("Retry-After") if response is not None else None
        if sent and sent.strip().isdigit():
            wait = float(sent)
        elif sent:
            with contextlib.suppress(TypeError, ValueError):  # a date, or nothing usable
                wait = email.utils.parsedate_to_datetime(sent).timestamp() - time.time()
        time.sleep(max(0.0, min(wait, self.max_wait)))

    def _send(self, method: str, path: str, credential: str | None = None, **options) -> Any:
        """One call: its JSON answer (None for 204, text for other bodies)."""
        headers = dict(options.pop("headers", None) or {})
        if credential:
            headers["Authorization"] = f"Bearer {credential}"
        repeatable = method == "GET" or "Idempotency-Key" in headers
        for attempt in range(self.retries + 1):
            response = None
            try:
                response = self._http.request(method, path, headers=headers, **options)
            except NOT_CONNECTED as error:
                if not (repeatable and self.answered) or attempt == self.retries:
                    raise Unreachable(self.url, error) from None
            except httpx.TransportError:
                if not repeatable or attempt == self.retries:
                    raise
            else:
                self.answered = True
                busy = (response.status_code == 503 and repeatable) or (
                    response.status_code == 429 and ProblemError.of(response).kind not in HELD
                )
                if attempt == self.retries or not busy:
                    break
            self._wait(response, attempt)
        if response.is_error:
            raise ProblemError.of(response)
        if response.status_code == 204:
            return None
        if response.headers.get("Content-Type", "").split(";")[0] == "application/json":
            return self._saw(response.json())
        return response.text

    def _stream(
        self,
        path: str,
        credential: str | None,
        params: dict | None = None,
        last_event_id: str | None = None,
        quiet_end: Callable[[], bool] = lambda: False,
    ) -> Iterator[StreamEvent]:
        """The events of a live stream, for ever: when it ends, is cut or stalls, or the
        server is away or busy (429, 503), it is opened again (after 0.5 s doubling up
        to 8 s, or `Retry-After`) with the last id seen, as a browser's EventSource
        does; but a server that never answered raises `Unreachable`. A connection that
        ends having told nothing asks `quiet_end` whether to stop. Other refusals raise
        `ProblemError`."""
        timeout = httpx.Timeout(self.timeout, read=self.stall_after)
        attempt = 0
        while True:
            headers = {"Accept": "text/event-stream"}
            if credential:
                headers["Authorization"] = f"Bearer {credential}"
            if last_event_id is not None:
                headers["Last-Event-ID"] = last_event_id
            told = False
            try:
                with self._http.stream(
                    "GET", path, params=params, headers=headers, timeout=timeout
                ) as response:
                    self.answered = True
                    if response.status_code in RETRIED:
                        self._wait(response, min(attempt, 4))
                        attempt += 1
                        continue
                    if response.is_error:
                        response.read()
                        raise ProblemError.of(response)
                    attempt = 0
                    for event in server_sent(response.iter_lines()):
                        told = True
                        if event.id is not None:
                            last_event_id = event.id
                        yield event
            except (httpx.TransportError, httpx.StreamError) as error:  # stalled, cut, refused
                if isinstance(error, NOT_CONNECTED) and not self.answered:
                    raise Unreachable(self.url, error) from None
                self._wait(None, min(attempt, 4))
                attempt += 1
                continue
            if not told:  # ended at once: over, or not to be asked again at once
                if quiet_end():
                    return
                self._wait(None, min(attempt, 4))
                attempt += 1

    # -- health, the contract, decks, keys -----------------------------------------

    @operation("GET", "/healthz")
    def health(self) -> Health:
        return self._send("GET", "/healthz")

    @operation("GET", "/readyz")
    def ready(self) -> Ready:
        return self._send("GET", "/readyz")

    @operation("GET", "/openapi.yaml")
    def openapi(self) -> str:
        """The server's contract, as YAML text."""
        return self._send("GET", "/openapi.yaml")

    @operation("GET", "/decks")
    def decks(self) -> Decks:
        return self._send("GET", "/decks")

    @operation("GET", "/.well-known/claim-keys")
    def signing_keys(self) -> SigningKeys:
        return self._send("GET", "/.well-known/claim-keys")

    # -- games -----------------------------------------------------------------------

    @operation("GET", "/games")
    def lobby(self, status: str = "open", **filters: Any) -> LobbyPage:
        """Games by status; filters `players`, `rated`, `public`, `offset`, `limit`."""
        params = {"status": status, **{name: _query(value) for name, value in filters.items()}}
        return self._send("GET", "/games", params=params)

    @operation("POST", "/games")
    def create_game(self, players: int, **settings: Any) -> Created:
        """A new game (`seats`, `factions`, `rated`, `public`, `move_time_limit`...)."""
        created = self._send("POST", "/games", self.key, json={"players": players, **settings})
        self.versions[created["game_id"]] = created["version"]
        return created

    @operation("GET", "/games/{game_id}")
    def game(
        self, game_id: str, *, after: int | None = None, wait: float | None = None
    ) -> GameView:
        """The game as this client may see it; with `after` and `wait`, once its version
        is above `after` (a long-poll of `wait` seconds at most)."""
        if after is None:
            return self._read(game_id, f"/games/{game_id}")
        params = {"after": after, "wait": wait or 0}
        timeout = self.timeout + (wait or 0)
        return self._read(game_id, f"/games/{game_id}", params=params, timeout=timeout)

    @operation("POST", "/games/{game_id}/seats/{seat}")
    def join(
        self, game_id: str, seat: int, invite: str | None = None, name: str | None = None
    ) -> Joined:
        """Take a seat (with its invite; none for a public game's). With a player key the
        seat is the player's; its token is held in any case."""
        body = {"invite": invite} | ({"name": name} if name else {})
        joined = self._send("POST", f"/games/{game_id}/seats/{seat}", self.key, json=body)
        self.hold_seat(game_id, seat, joined["token"])
        self.not_seated.pop(game_id, None)
        return joined

    @operation("GET", "/games/{game_id}/legal")
    def legal(self, game_id: str) -> Legal:
        legal = self._send("GET", f"/games/{game_id}/legal", self.credential(game_id))
        return self._saw(legal, game_id)

    @operation("POST", "/games/{game_id}/moves")
    def move(
        self,
        game_id: str,
        move: str,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> Moved:
        """Play or take (`"play GO3"`, `"take deck"`) at `expected_version` (default:
        the newest version this client saw of the game). One key for the move and all
        its retries, so that it lands once."""
        if expected_version is None:
            expected_version = self.versions.get(game_id) or self.game(game_id)["version"]
        headers = {"Idempotency-Key": idempotency_key or uuid.uuid4().hex}
        body = {"move": move, "expected_version": expected_version}
        path = f"/games/{game_id}/moves"
        return self._send("POST", path, self.credential(game_id), json=body, headers=headers)

    @operation("POST", "/games/{game_id}/resign")
    def resign(self, game_id: str) -> Moved:
        return self._send("POST", f"/games/{game_id}/resign", self.credential(game_id))

    @operation("POST", "/games/{game_id}/seats/{seat}/return")
    def return_to_seat(self, game_id: str, seat: int) -> Moved:
        """Take back a seat an AI plays since the move time ran out (`takeover`)."""
        path = f"/games/{game_id}/seats/{seat}/return"
        return self._send("POST", path, self.credential(game_id))

    @operation("POST", "/games/{game_id}/rematch")
    def rematch(self, game_id: str) -> Rematch:
        """The next game of a finished one, with this client's invite to it."""
        return self._send("POST", f"/games/{game_id}/rematch", self.credential(game_id))

    @operation("GET", "/games/{game_id}/stream")
    def watch(
        self, game_id: str, last_event_id: str | None = None, max_seconds: int | None = None
    ) -> Iterator[StreamEvent]:
        """The game's views as they come (`view` events, or a `snapshot` after a long
        absence), until it is over; resumed after `last_event_id` (a version)."""
        params = {"max_seconds": max_seconds} if max_seconds else None

        def over() -> bool:
            return self.game(game_id)["status"] in OVER

        if game_id not in self.seats and self.key:
            self.game(game_id)  # learns whether the key opens a seat of it
        path = f"/games/{game_id}/stream"
        credential = None if game_id in self.not_seated else self.credential(game_id)
        for event in self._stream(path, credential, params, last_event_id, over):
            self._saw(event.data)
            yield event
            if event.data.get("status") in OVER:
                return

    @operation("GET", "/changes")
    def changes(
        self, games: Iterable[str] = (), lobby: bool = False, max_seconds: int | None = None
    ) -> Iterator[StreamEvent]:
        """Which of `games` changed (`game` events, each game's version first), then
        `ready`, and `lobby` when the lobby changed; for ever (it reopens itself)."""
        params = {"lobby": _query(lobby)} | ({"games": ",".join(games)} if games else {})
        if max_seconds:
            params["max_seconds"] = max_seconds
        return self._stream("/changes", self.key, params)

    # -- challenges and the player's stream ------------------------------------------

    @operation("POST", "/challenges")
    def challenge(self, to: str, **settings: Any) -> Challenge:
        """Challenge a player (its id) or an AI level (`"ai:expert"`: the game starts at
        once) with the settings `create_game` takes but `seats` and `public` (`players`,
        `rated`..., and `others`: the AI level of the seats beyond two)."""
        return self._send("POST", "/challenges", self.key, json={"to": to, **settings})

    @operation("GET", "/challenges/{challenge_id}")
    def challenge_of(self, challenge_id: str) -> Challenge:
        return self._send("GET", f"/challenges/{challenge_id}", self.key)

    @operation("GET", "/me/challenges")
    def my_challenges(self, offset: int = 0, limit: int = 20) -> Challenges:
        """The open challenges from and to the player, oldest first: a page of `limit`
        (20 at most) from `offset`, and their `total`."""
        params = {"offset": offset, "limit": limit}
        return self._send("GET", "/me/challenges", self.key, params=params)

    @operation("POST", "/challenges/{challenge_id}/accept")
    def accept(self, challenge_id: str) -> Challenge:
        """Accept a challenge: the game starts, both players seated with their keys."""
        return self._send("POST", f"/challenges/{challenge_id}/accept", self.key)

    @operation("POST", "/challenges/{challenge_id}/decline")
    def decline(self, challenge_id: str) -> Challenge:
        return self._send("POST", f"/challenges/{challenge_id}/decline", self.key)

    @operation("POST", "/challenges/{challenge_id}/cancel")
    def cancel(self, challenge_id: str) -> Challenge:
        return self._send("POST", f"/challenges/{challenge_id}/cancel", self.key)

    @operation("GET", "/me/stream")
    def my_events(
        self, last_event_id: str | None = None, max_seconds: int | None = None
    ) -> Iterator[StreamEvent]:
        """Everything that concerns the player, for ever: first `state` (its running
        games, whose turn, its open challenges), then `your-turn`, `game-started`,
        `game-finished`, `challenge`, `challenge-accepted` (`-declined`, `-cancelled`,
        `-expired`), `rematch-offered`. Cut or stalled, it is opened again after the
        last event (`state` again first, then what was missed)."""
        params = {"max_seconds": max_seconds} if max_seconds else None
        return self._stream("/me/stream", self.key, params, last_event_id)

    # -- history ---------------------------------------------------------------------

    @operation("GET", "/games/{game_id}/replay/{step}")
    def replay(self, game_id: str, step: int) -> Replay:
        return self._read(game_id, f"/games/{game_id}/replay/{step}")

    @operation("GET", "/games/{game_id}/events")
    def event_log(self, game_id: str, after: int = 0) -> EventLog:
        return self._send("GET", f"/games/{game_id}/events", params={"after": after})

    @operation("GET", "/games/{game_id}/audit")
    def audit(self, game_id: str) -> Audit:
        return self._send("GET", f"/games/{game_id}/audit")

    @operation("GET", "/games/{game_id}/export")
    def export(self, game_id: str) -> str:
        """The ended game's log as JSON lines, byte for byte (for `claim verify-export`)."""
        return self._send("GET", f"/games/{game_id}/export")

    @operation("POST", "/games/{game_id}/analysis")
    def ask_analysis(self, game_id: str) -> Analysis:
        """Ask the workers for the expert's analysis of the ended game with the player
        key (once: asked again, the same one answers): its progress, then every
        decision judged."""
        return self._send("POST", f"/games/{game_id}/analysis", self.key)

    @operation("GET", "/games/{game_id}/analysis")
    def analysis(self, game_id: str) -> Analysis:
        return self._send("GET", f"/games/{game_id}/analysis")

    # -- players ---------------------------------------------------------------------

    @operation("POST", "/players")
    def register(self, name: str, **details: Any) -> Registered:
        """Register a player (`email`, `webhook_url`, `bot`); its key is held from now on."""
        registered = self._send("POST", "/players", json={"name": name, **details})
        self.key = registered["key"]
        return registered

    @operation("GET", "/me")
    def me(self) -> Player:
        return self._send("GET", "/me", self.key)

    @operation("PATCH", "/me")
    def update_me(self, **changes: Any) -> Player:
        """Change `name`, `email` or `webhook_url` (None clears the last two), or the
        channels of kinds of `notifications`."""
        return self._send("PATCH", "/me", self.key, json=changes)

    @operation("GET", "/me/games")
    def my_games(self, **filters: Any) -> Inbox:
        """The inbox: `status`, `turn="mine"`, `offset`, `limit`."""
        return self._send("GET", "/me/games", self.key, params=filters)

    @operation("POST", "/me/seats")
    def claim_seat(
        self, game_id: str, seat: int | None = None, token: str | None = None
    ) -> RegisteredSeat:
        """Make a seat taken without a key the player's (default: the one held)."""
        held = self.seats.get(game_id)
        body = {
            "game_id": game_id,
            "seat": held.seat if seat is None else seat,
            "token": held.token if token is None else token,
        }
        return self._send("POST", "/me/seats", self.key, json=body)

    @operation("GET", "/me/devices")
    def devices(self) -> Devices:
        return self._send("GET", "/me/devices", self.key)

    @operation("POST", "/me/devices")
    def add_device(self, name: str | None = None) -> NewDevice:
        return self._send("POST", "/me/devices", self.key, json={"name": name})

    @operation("POST", "/me/sign-in-code")
    def device_code(self) -> DeviceCode:
        """A one-time code that signs another device in (its client's `sign_in`)."""
        return self._send("POST", "/me/sign-in-code", self.key)

    @operation("DELETE", "/me/devices/{device_id}")
    def remove_device(self, device_id: str) -> None:
        self._send("DELETE", f"/me/devices/{device_id}", self.key)

    @operation("POST", "/me/key")
    def rotate_key(self) -> Key:
        """A new key for this device; the client holds it from now on."""
        rotated = self._send("POST", "/me/key", self.key)
        self.key = rotated["key"]
        return rotated

    @operation("GET", "/me/break")
    def breaks(self) -> Break:
        """This year's breaks: whether one runs, until when, the days taken of those allowed."""
        return self._send("GET", "/me/break", self.key)

    @operation("POST", "/me/break")
    def take_break(self, days: int) -> Break:
        """Stop the player's correspondence clocks for `days` from now."""
        return self._send("POST", "/me/break", self.key, json={"days": days})

    @operation("DELETE", "/me/break")
    def end_break(self) -> Break:
        """Start the clocks again now; the whole days not begun are given back."""
        return self._send("DELETE", "/me/break", self.key)

    @operation("GET", "/push/key")
    def push_key(self) -> PushKey:
        """The server's VAPID public key: a browser's `applicationServerKey`."""
        return self._send("GET", "/push/key")

    @operation("POST", "/me/push-subscriptions")
    def subscribe_push(self, subscription: dict) -> PushSubscription:
        """Push notifications to the browser of `subscription` (`PushSubscription.toJSON()`)."""
        return self._send("POST", "/me/push-subscriptions", self.key, json=subscription)

    @operation("GET", "/me/push-subscriptions")
    def push_subscriptions(self) -> PushSubscriptions:
        return self._send("GET", "/me/push-subscriptions", self.key)

    @operation("DELETE", "/me/push-subscriptions/{subscription_id}")
    def unsubscribe_push(self, subscription_id: str) -> None:
        self._send("DELETE", f"/me/push-subscriptions/{subscription_id}", self.key)

    @operation("GET", "/me/deliveries")
    def deliveries(self) -> Deliveries:
        return self._send("GET", "/me/deliveries", self.key)

    # -- signing in by email, and confirming the address -------------------------------

    @operation("POST", "/me/email-confirmation")
    def confirm_again(self) -> ConfirmAgain:
        """Have the link that confirms the player's address mailed to it again."""
        return self._send("POST", "/me/email-confirmation", self.key)

    @operation("POST", "/email-confirmation")
    def confirm_email(self, code: str) -> Confirmed:
        """Use up a confirmation link's code: the address is confirmed for its player."""
        return self._send("POST", "/email-confirmation", json={"code": code})

    @operation("GET", "/sign-in/options")
    def sign_in_options(self) -> Options:
        return self._send("GET", "/sign-in/options")

    @operation("POST", "/sign-in")
    def send_sign_in_link(self, email: str) -> Sent:
        return self._send("POST", "/sign-in", json={"email": email})

    @operation("POST", "/sign-in/code")
    def sign_in(self, code: str) -> SignedIn:
        """Use up a sign-in link's code (emailed, or from `device_code`); the new
        device's key is held from now on."""
        signed_in = self._send("POST", "/sign-in/code", json={"code": code})
        self.key = signed_in["key"]
        return signed_in

    # -- ratings -----------------------------------------------------------------------

    @operation("GET", "/ratings")
    def ratings(self, players: int = 2, **filters: Any) -> Board:
        """The leaderboard of `players`-player games (`bots="only"` or `"exclude"`,
        `offset`, `limit`)."""
        params = {"players": players, **filters}
        return self._send("GET", "/ratings", params=params)

    @operation("GET", "/players/{player_id}")
    def profile(self, player_id: str) -> PublicProfile:
        """A player's public profile, or an AI level's (`"ai:expert"`)."""
        return self._send("GET", f"/players/{player_id}")


def _query(value: Any) -> Any:
    """A query parameter as the server reads it: booleans in lower case."""
    return str(value).lower() if isinstance(value, bool) else value
