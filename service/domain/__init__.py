"""The rules of Claim and Claim 2 as a pure library (RULES.md).

No I/O, no clock, no randomness except a `random.Random` passed in. States are
immutable: `apply` returns a new one.

    >>> import random
    >>> from service.domain import Settings, new_game, legal_decisions, apply, Decision
    >>> from service.domain import shuffled_deck, is_over, result, observe
    >>> settings = Settings(players=2, factions=("GO", "KN", "UN", "DO", "DW"))
    >>> state = new_game(settings, shuffled_deck(settings.factions, random.Random(7)))
    >>> state.to_act                     # the seat to decide now
    0
    >>> state = apply(state, legal_decisions(state)[0])
    >>> state = apply(state, Decision.parse(str(legal_decisions(state)[0])))
    >>> len(observe(state, seat=1).hand)  # what seat 1 may see
    12
    >>> while not is_over(state):
    ...     state = apply(state, legal_decisions(state)[0])
    >>> result(state).winner in (0, 1, None)
    True
"""

from .cards import FACTION_CARDS, Card, Faction, parse_cards
from .decisions import Decision
from .deck import (
    PRESETS,
    check_deck,
    check_factions,
    full_deck,
    legal_faction_sets,
    random_factions,
    shuffled_deck,
)
from .errors import (
    ClaimError,
    GameOver,
    IllegalDecision,
    InvalidDeck,
    InvalidSettings,
    MalformedDecision,
    NotYourTurn,
    UnknownCard,
)
from .observation import Observation, observe, unplayable
from .rules import Replay, apply, is_over, legal_decisions, new_game, playable
from .scoring import Result, result
from .state import Acquisition, Play, RoundRecord, Settings, State, side_of

__all__ = [
    "FACTION_CARDS",
    "PRESETS",
    "Acquisition",
    "Card",
    "ClaimError",
    "Decision",
    "Faction",
    "GameOver",
    "IllegalDecision",
    "InvalidDeck",
    "InvalidSettings",
    "MalformedDecision",
    "NotYourTurn",
    "Observation",
    "Play",
    "Replay",
    "Result",
    "RoundRecord",
    "Settings",
    "State",
    "UnknownCard",
    "apply",
    "check_deck",
    "check_factions",
    "full_deck",
    "is_over",
    "legal_decisions",
    "legal_faction_sets",
    "new_game",
    "observe",
    "parse_cards",
    "playable",
    "random_factions",
    "result",
    "shuffled_deck",
    "side_of",
    "unplayable",
]
