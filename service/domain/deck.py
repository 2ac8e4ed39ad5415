"""Legal faction sets and deck orders (RULES.md section 2)."""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache
from itertools import combinations

from .cards import (
    CODE_ORDER,
    DOPPELGANGERS,
    DRAGONS,
    DWARVES,
    FACTION_CARDS,
    GIANTS,
    GNOMES,
    GOBLINS,
    KNIGHTS,
    SEERS,
    TROLLS,
    UNDEAD,
    Card,
    Faction,
)
from .errors import InvalidDeck, InvalidSettings, UnknownCard

PAIRS: tuple[tuple[Faction, Faction], ...] = ((GOBLINS, KNIGHTS), (GNOMES, GIANTS))
SINGLES: tuple[Faction, ...] = (UNDEAD, DOPPELGANGERS, DWARVES, DRAGONS, TROLLS, SEERS)

SINGLES_PER_GAME = {2: 3, 3: 5, 4: 5}
HAND_SIZE = {2: 13, 3: 12, 4: 9}

PRESETS: dict[str, tuple[Faction, ...]] = {
    "claim": (GOBLINS, KNIGHTS, UNDEAD, DOPPELGANGERS, DWARVES),
    "claim2": (GNOMES, GIANTS, DRAGONS, TROLLS, SEERS),
}
"""The two published 2-player decks, by name."""


def check_players(players: object) -> int:
    """`players` if it is 2, 3 or 4, else `InvalidSettings`."""
    if players not in HAND_SIZE or isinstance(players, bool):
        raise InvalidSettings(f"a game has 2, 3 or 4 players, not {players!r}")
    return players  # type: ignore[return-value]


def check_factions(players: int, factions) -> tuple[Faction, ...]:
    """The factions as `Faction`s if they make a legal deck for `players`.

    Accepts faction codes or `Faction`s; raises `InvalidSettings` naming what is wrong.
    """
    check_players(players)
    if isinstance(factions, str):
        raise InvalidSettings("factions are a list of faction codes, not one string")
    try:
        chosen = tuple(f if isinstance(f, Faction) else Faction.parse(f) for f in factions)
    except UnknownCard as error:
        raise InvalidSettings(str(error)) from None
    repeated = sorted(f.code for f, n in Counter(chosen).items() if n > 1)
    if repeated:
        raise InvalidSettings(f"a faction appears twice: {', '.join(repeated)}")
    pairs = [pair for pair in PAIRS if pair[0] in chosen or pair[1] in chosen]
    if len(pairs) != 1:
        raise InvalidSettings(
            "a deck has exactly one pair, Goblins+Knights or Gnomes+Giants"
            f" (got {'both' if pairs else 'neither'})"
        )
    pair = pairs[0]
    if not (pair[0] in chosen and pair[1] in chosen):
        raise InvalidSettings(f"half a pair: {pair[0].title} and {pair[1].title} go together")
    singles = len(chosen) - 2
    wanted = SINGLES_PER_GAME[players]
    if singles != wanted:
        raise InvalidSettings(
            f"{players} players use {wanted + 2} factions (one pair and {wanted} singles),"
            f" not {len(chosen)}"
        )
    return chosen


def legal_faction_sets(players: int) -> list[tuple[Faction, ...]]:
    """Every legal faction set for `players` (40 for 2 players, 12 for 3 or 4)."""
    wanted = SINGLES_PER_GAME[check_players(players)]
    return [pair + singles for pair in PAIRS for singles in combinations(SINGLES, wanted)]


def random_factions(players: int, rng: random.Random) -> tuple[Faction, ...]:
    """A legal faction set drawn uniformly with `rng`."""
    return rng.choice(legal_faction_sets(players))


def full_deck(factions) -> tuple[Card, ...]:
    """Every card of these factions, in code order."""
    return _full_deck(tuple(factions))


@lru_cache(maxsize=1024)  # every new game and every shuffle asks for it
def _full_deck(factions: tuple[Faction, ...]) -> tuple[Card, ...]:
    return tuple(sorted((c for f in factions for c in FACTION_CARDS[f]), key=CODE_ORDER))


def shuffled_deck(factions, rng: random.Random) -> tuple[Card, ...]:
    """The cards of `factions` in an order drawn with `rng`, top first."""
    deck = list(full_deck(factions))
    rng.shuffle(deck)
    return tuple(deck)


# Each card by itself and by its code: what a deck may be given as.
_AS_CARD: dict[Card | str, Card] = {
    **Card._by_code,
    **{card: card for card in Card._by_code.values()},
}


def check_deck(factions, deck) -> tuple[Card, ...]:
    """The deck as `Card`s if it holds exactly the cards of `factions`.

    Accepts card codes or `Card`s; raises `UnknownCard` or `InvalidDeck`.
    """
    if isinstance(deck, str):
        raise InvalidDeck("a deck is a list of card codes, not one string")
    deck = tuple(deck)
    try:
        cards = tuple(map(_AS_CARD.__getitem__, deck))
    except (KeyError, TypeError):  # an unknown card: Card.parse names it
        cards = tuple(c if isinstance(c, Card) else Card.parse(c) for c in deck)
    # Sorted, a right deck is its factions' full deck, card for card (compared by
    # identity, faster than counting both).
    if tuple(sorted(cards, key=CODE_ORDER)) != full_deck(factions):
        have, want = Counter(cards), Counter(full_deck(factions))
        extra = sorted((have - want).elements())
        missing = sorted((want - have).elements())
        parts = []
        if extra:
            parts.append("not in these factions or too many: " + " ".join(map(str, extra)))
        if missing:
            parts.append("missing: " + " ".join(map(str, missing)))
        raise InvalidDeck(
            f"the deck must be exactly the {sum(want.values())} cards of its factions"
            f" ({'; '.join(parts)})"
        )
    return cards
