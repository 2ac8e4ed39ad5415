"""The errors the rules engine raises; every one leaves the state unchanged."""


class ClaimError(Exception):
    """Base of every error of the rules engine."""


class InvalidSettings(ClaimError, ValueError):
    """Settings that name no legal game: player count, factions, first leader."""


class InvalidDeck(InvalidSettings):
    """A deck order that is not exactly the cards of the game's factions."""


class UnknownCard(ClaimError, ValueError):
    """A card or faction code that does not exist."""


class MalformedDecision(ClaimError, ValueError):
    """Text that is not a decision (`play GO3`, `take KN5`, `take deck`)."""


class IllegalDecision(ClaimError):
    """A well-formed decision that the rules do not allow now; `reason` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class NotYourTurn(IllegalDecision):
    """A decision by a seat that is not the one to act."""


class GameOver(IllegalDecision):
    """A decision after the game has ended."""
