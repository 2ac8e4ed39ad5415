"""Factions and cards of Claim and Claim 2 (RULES.md section 1).

Copies of a card are interchangeable, so there is exactly one `Card` object per
faction and value: `Card.parse("GO3") is Card.parse("GO3")`. Cards compare by
identity and sort in the order of their codes.
"""

from __future__ import annotations

from enum import Enum
from operator import attrgetter
from typing import ClassVar

from .errors import UnknownCard


class Faction(Enum):
    """The ten factions, each named by its two-letter code."""

    GOBLINS = "GO"
    KNIGHTS = "KN"
    UNDEAD = "UN"
    DOPPELGANGERS = "DO"
    DWARVES = "DW"
    GNOMES = "GN"
    GIANTS = "GI"
    DRAGONS = "DR"
    TROLLS = "TR"
    SEERS = "SE"

    # Members are singletons compared by identity: hash them by identity too, in C.
    # Enum's own __hash__ is a Python call, which made a dict keyed by faction 5 times
    # slower to read.
    __hash__ = object.__hash__

    @property
    def code(self) -> str:
        return self.value

    @property
    def title(self) -> str:
        return self.name.title()

    @classmethod
    def parse(cls, code: str) -> Faction:
        """The faction with this code (`"GO"`), or `UnknownCard`."""
        try:
            return cls(code)
        except ValueError:
            raise UnknownCard(f"unknown faction {code!r}") from None

    def __str__(self) -> str:
        return self.value


GOBLINS = Faction.GOBLINS
KNIGHTS = Faction.KNIGHTS
UNDEAD = Faction.UNDEAD
DOPPELGANGERS = Faction.DOPPELGANGERS
DWARVES = Faction.DWARVES
GNOMES = Faction.GNOMES
GIANTS = Faction.GIANTS
DRAGONS = Faction.DRAGONS
TROLLS = Faction.TROLLS
SEERS = Faction.SEERS

# RULES.md 1: the values of every card of a faction, copies repeated.
FACTION_VALUES: dict[Faction, tuple[int, ...]] = {
    GOBLINS: (0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    KNIGHTS: (2, 3, 4, 5, 6, 7, 8, 9),
    UNDEAD: tuple(range(10)),
    DOPPELGANGERS: tuple(range(10)),
    DWARVES: tuple(range(10)),
    GNOMES: (1, 1, 1, 3, 3, 3, 5, 5, 5, 7, 7, 7, 9),
    GIANTS: (1, 1, 3, 3, 5, 5, 7, 7, 9),
    DRAGONS: tuple(range(10)),
    TROLLS: tuple(range(10)),
    SEERS: tuple(range(10)),
}


class Card:
    """One card: a faction and a value from 0 to 9, written `GO3`."""

    __slots__ = ("code", "faction", "index", "value")

    faction: Faction
    value: int
    code: str
    index: int  # position in code order, for sorting

    _by_code: ClassVar[dict[str, Card]] = {}

    @classmethod
    def _make(cls, faction: Faction, value: int, index: int) -> Card:
        card = object.__new__(cls)
        card.faction = faction
        card.value = value
        card.code = f"{faction.value}{value}"
        card.index = index
        return card

    @classmethod
    def parse(cls, code: str) -> Card:
        """The card with this code (`"GO3"`), or `UnknownCard`."""
        try:
            return cls._by_code[code]
        except (KeyError, TypeError):
            raise UnknownCard(f"unknown card {code!r}") from None

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __reduce__(self):
        return (Card.parse, (self.code,))


def _build_cards() -> None:
    for rank, faction in enumerate(sorted(Faction, key=lambda f: f.value)):
        for value in sorted(set(FACTION_VALUES[faction])):
            card = Card._make(faction, value, rank * 10 + value)
            Card._by_code[card.code] = card


_build_cards()

FACTION_CARDS: dict[Faction, tuple[Card, ...]] = {
    faction: tuple(Card.parse(f"{faction.value}{v}") for v in values)
    for faction, values in FACTION_VALUES.items()
}
"""Every card of each faction, copies repeated, lowest first."""


CODE_ORDER = attrgetter("index")
"""Sort key putting cards in the order of their codes, as hands are kept."""


def parse_cards(codes) -> tuple[Card, ...]:
    """Cards from an iterable of codes (`["GO3", "KN9"]`)."""
    return tuple(Card.parse(code) for code in codes)
