"""The compiled engine's codes: cards and decisions as small ints, and greedy's tables
by card code.

A card is its `Card.index` (faction rank * 10 + value: code order is int order, and a
faction's cards are one run of a sorted hand); a play's code is its card, a take's
`TAKE` + card or `TAKE_DECK`. `compiled.py` plays on these codes; `DECISIONS` and
`CODES` translate them to and from the domain's `Decision`s.
"""

from __future__ import annotations

from service.domain import FACTION_CARDS, Decision
from service.domain.cards import (
    DOPPELGANGERS,
    DRAGONS,
    DWARVES,
    GIANTS,
    GNOMES,
    GOBLINS,
    KNIGHTS,
    SEERS,
    TROLLS,
    UNDEAD,
)

from .greedy import KEEP, WORTH

# A faction's rank: its cards' index // 10.
RANK = {faction: cards[0].index // 10 for faction, cards in FACTION_CARDS.items()}
FACTION = {rank: faction for faction, rank in RANK.items()}
DO, DR, DW, GI, GN, GO, KN, SE, TR, UN = map(
    RANK.get,
    (DOPPELGANGERS, DRAGONS, DWARVES, GIANTS, GNOMES, GOBLINS, KNIGHTS, SEERS, TROLLS, UNDEAD),
)
CARDS = {card.index: card for cards in FACTION_CARDS.values() for card in cards}

TAKE, TAKE_DECK = 100, 200  # a take's code: TAKE + card; a play's code is its card
DECISIONS: dict[int, Decision] = {
    TAKE_DECK: Decision.take(None),
    **{index: Decision.play(card) for index, card in CARDS.items()},
    **{TAKE + index: Decision.take(card) for index, card in CARDS.items()},
}
CODES: dict[Decision, int] = {decision: code for code, decision in DECISIONS.items()}

# greedy's tables (greedy.py) by card code: a card's worth, and its keep per phase
WORTH_OF = [WORTH[CARDS[i]] if i in CARDS else 0.0 for i in range(100)]
KEEP_OF = {
    phase: [keep[CARDS[i]] if i in CARDS else 0.0 for i in range(100)]
    for phase, keep in KEEP.items()
}
# Per faction rank: how many cards it has.
FACTION_SIZE = [0] * 10
for _cards in FACTION_CARDS.values():
    FACTION_SIZE[_cards[0].index // 10] = len(_cards)
