"""The errors of the event store; each names the game, and the version where it applies."""

from __future__ import annotations


class StoreError(Exception):
    """Base of every error of the event store."""


class StoreUnavailable(StoreError):
    """Redis could not be reached or answered with an error; nothing was written."""


class UnknownGame(StoreError):
    """No game has this id."""

    def __init__(self, game_id: str):
        super().__init__(f"no game {game_id!r}")
        self.game_id = game_id


class StaleVersion(StoreError):
    """An append expected a version that is no longer the game's current one."""

    def __init__(self, game_id: str, expected: int, current: int):
        super().__init__(f"game {game_id} is at version {current}, not {expected}")
        self.game_id = game_id
        self.expected = expected
        self.current = current


class UnknownVersion(StoreError):
    """A version the game has not reached (or below 1)."""

    def __init__(self, game_id: str, version: int, current: int):
        super().__init__(f"game {game_id} has versions 1 to {current}, not {version}")
        self.game_id = game_id
        self.version = version
        self.current = current


class InvalidEvent(StoreError):
    """An event that does not fit its schema; it was not written."""

    def __init__(self, game_id: str, version: int, problems: object):
        super().__init__(f"game {game_id}, event {version}: invalid event: {problems}")
        self.game_id = game_id
        self.version = version
        self.problems = problems


class CorruptEvent(InvalidEvent):
    """A stored event that fails its schema: reported, never skipped."""


class RejectedEvent(StoreError):
    """An event that the rules of the game reject at its version; it was not written.

    `error` is the reason: one of the rules engine's errors (`IllegalDecision`,
    `NotYourTurn`, `GameOver`, ...) or a `SeatRefusal` of the fold's own seat rules.
    """

    def __init__(self, game_id: str, version: int, error: Exception):
        super().__init__(f"game {game_id}, event {version}: {error}")
        self.game_id = game_id
        self.version = version
        self.error = error


class UnknownPlayer(StoreError):
    """No registered player has this id."""

    def __init__(self, player_id: str):
        super().__init__(f"no player {player_id!r}")
        self.player_id = player_id


class UnknownDevice(StoreError):
    """The player has no device with this id."""

    def __init__(self, device_id: str):
        super().__init__(f"no device {device_id!r}")
        self.device_id = device_id


class BreakRefused(StoreError):
    """A break refused: one runs already (`running`), or the year's days would not
    hold it; `breaks` as they are."""

    def __init__(self, breaks, running: bool):
        why = "a break runs already" if running else "the year's days of breaks would not hold it"
        super().__init__(why)
        self.breaks = breaks
        self.running = running


class SeatRefusal(Exception):
    """What the fold's own rules refuse, beyond the engine's: the seats and the start."""


class SeatUnavailable(SeatRefusal):
    """A join of a seat that does not exist, is an AI's, or is taken already; a
    person's decision while an AI plays their seat; a return no AI is there for."""


class GameNotStarted(SeatRefusal):
    """A decision, resignation or timeout before every seat is taken."""
