"""The application's errors: one hierarchy, each raised where it is known, each told in
words that hold no secret and no card the caller may not see.

`Refused` is a request the rules or the service refuse: nothing was changed. `Failed`
is the service failing: the request may be tried again. Below this package, the
rules engine and the event store raise their own types; every use case translates
them on its way out (`use_case`), so that callers (the API, the jobs) see these only.
The API maps each to its problem type in one table (`service/api/problems.py`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from service import domain, events


class GameError(Exception):
    """Base of every error of the application layer."""

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


class Refused(GameError):
    """A request refused: nothing was changed."""


class InvalidRequest(Refused):
    """The request's values do not fit: `errors` by field, when a field is to blame."""

    def __init__(self, detail: str, errors: dict | None = None):
        super().__init__(detail)
        self.errors = errors


class Unauthorized(Refused):
    """No credential, or one that opens nothing here."""


class WrongInvite(Refused):
    """The invite is not the seat's."""


class WrongToken(Refused):
    """The token sent (in a body, not as the credential) does not open the seat."""


class WrongCode(Refused):
    """The sign-in code is wrong, used already, or expired."""


class EmailNotConfigured(Refused):
    """The server sends no email (no SMTP server set)."""


class TooManyDevices(Refused):
    """The player holds as many keys (one per device) as they may."""


class TooManySubscriptions(Refused):
    """The player holds as many push subscriptions as they may."""


class UnknownSubscription(Refused):
    """The player has no push subscription with this id."""


class TooManyAccounts(Refused):
    """The email address is confirmed for as many players as one may be."""


class NotYourTurn(Refused):
    """Another seat is to act."""


class UnknownGame(Refused):
    """No game has this id."""


class UnknownPlayer(Refused):
    """No registered player (or AI level) has this id."""


class UnknownDevice(Refused):
    """The player has no device with this id."""


class UnknownStep(Refused):
    """The game has no such step or version."""


class StaleVersion(Refused):
    """The game is no longer at the version the request expected: `current_version`."""

    def __init__(self, detail: str, current_version: int):
        super().__init__(detail)
        self.current_version = current_version


class SeatUnavailable(Refused):
    """The seat cannot be taken (or given back, or played by its person now)."""


class GameNotStarted(Refused):
    """The game waits for its seats to be taken."""


class GameOver(Refused):
    """The game has ended."""


class GameNotOver(Refused):
    """The game is still running (its deck is secret, it has no rematch yet)."""


class IllegalMove(Refused):
    """The move is against the rules: `detail` is the engine's reason."""


class IdempotencyKeyReused(Refused):
    """An idempotency key sent before with another request."""


class TooManyWatches(Refused):
    """The client holds as many live streams and long-polls open as it may."""


class TooManyStreams(Refused):
    """The player holds as many player streams open as they may."""


class TooManyChallenges(Refused):
    """The challenger, or the challenged, holds as many open challenges (or their games
    running) as they may."""


class TooManyAnalyses(Refused):
    """The player has as many analyses queued as they may."""


class UnknownChallenge(Refused):
    """No challenge of the caller's has this id."""


class NotYourChallenge(Refused):
    """The challenge is another player's to answer (or to cancel)."""


class ChallengeNotOpen(Refused):
    """The challenge was answered, cancelled or expired already."""


class BotRatedGame(Refused):
    """A bot and a person in one rated game without the person's challenge."""


class BreakRefused(Refused):
    """A break refused: one runs, or the year's days of breaks would not hold it."""


class Failed(GameError):
    """The service failed; the request may be tried again."""


class StoreUnavailable(Failed):
    """The store cannot be reached."""


class CorruptGame(Failed):
    """A stored event of the game cannot be read."""


def translated(error: Exception) -> GameError | None:
    """The application error that `error`, of the engine or the store, means; None for
    anything else (a bug)."""
    if isinstance(error, events.RejectedEvent):
        return translated(error.error)
    if isinstance(error, domain.NotYourTurn):
        return NotYourTurn(str(error))
    if isinstance(error, domain.GameOver):
        return GameOver(str(error))
    if isinstance(error, domain.IllegalDecision):
        return IllegalMove(error.reason)
    if isinstance(error, domain.ClaimError):
        return InvalidRequest(str(error))
    if isinstance(error, events.SeatUnavailable):
        return SeatUnavailable(str(error))
    if isinstance(error, events.GameNotStarted):
        return GameNotStarted(str(error))
    if isinstance(error, events.StaleVersion):
        return StaleVersion(str(error), error.current)
    if isinstance(error, events.UnknownGame):
        return UnknownGame(f"no game {error.game_id!r}")
    if isinstance(error, events.UnknownVersion):
        return UnknownStep(str(error))
    if isinstance(error, events.UnknownPlayer):
        return Unauthorized("no such player")
    if isinstance(error, events.UnknownDevice):
        return UnknownDevice(f"you have no device {error.device_id!r}")
    if isinstance(error, events.BreakRefused):
        taken = error.breaks
        return BreakRefused(
            f"{error}: {taken.days_used} of your {taken.days_allowed} days of breaks"
            " this year are taken"
        )
    if isinstance(error, events.CorruptEvent):
        return CorruptGame(f"game {error.game_id}: event {error.version} is corrupt")
    if isinstance(error, events.StoreUnavailable):
        return StoreUnavailable(str(error))
    return None


P = ParamSpec("P")
R = TypeVar("R")


def use_case(function: Callable[P, R]) -> Callable[P, R]:
    """Mark a use case: the engine's and the store's errors leave it as `GameError`s."""

    @functools.wraps(function)
    def translating(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return function(*args, **kwargs)
        except (domain.ClaimError, events.StoreError, events.SeatRefusal) as error:
            mapped = translated(error)
            if mapped is None:
                raise
            raise mapped from error

    return translating
