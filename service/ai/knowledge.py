"""What one seat knows of the cards it cannot see, from its observation alone
(RULES.md 8): which cards are still outstanding, which cards it knows another seat
holds, and which factions another seat has shown it lacks by not following.

Each function reads only the fields of `Observation` that the seat may see. The
expert's rollouts keep the same knowledge as their games go instead
(`compiled.py`: each seat's unseen cards in its game array).
"""

from __future__ import annotations

from collections import Counter
from functools import cache

from service.domain import Card, Faction, Observation, full_deck
from service.domain.cards import DOPPELGANGERS
from service.domain.state import PRIZE


def played_cards(observation: Observation) -> list[Card]:
    """Every card played so far in the game: all of them are public."""
    cards = list(observation.discard) + list(observation.trolls_aside) + list(observation.removed)
    for seat in range(observation.players):
        cards += observation.score_piles[seat]
        cards += observation.gnomes_in_front[seat]
    # A finished phase-1 round keeps its plays in `trick` while prizes are handed out,
    # but its cards are already in the discard and the score piles.
    if len(observation.trick) < observation.players:
        cards += [play.card for play in observation.trick]
    return cards


def known_followers(observation: Observation) -> tuple[tuple[Card, ...], ...]:
    """For each seat, the cards of its follower pile that `observation.seat` knows:
    the prizes it took, and the draw pile's top card that a Seer showed this seat
    before another seat drew it (RULES.md 6, Seers). Own follower pile: all of it."""
    known: list[list[Card]] = [[] for _ in range(observation.players)]
    seat = observation.seat
    records = [r for r in observation.rounds if r.phase == 1]
    rounds = [(r.acquired, r.peek) for r in records]
    if observation.phase == 1:
        rounds.append((observation.acquired, None))  # a pending peek is still on the pile
    for acquired, peek in rounds:
        peeked = peek is not None and peek.seat == seat
        for acquisition in acquired:
            if acquisition.source == PRIZE:
                known[acquisition.seat].append(acquisition.card)
            elif peeked:  # the first card off the pile after the peek is the one it saw
                peeked = False
                if acquisition.seat != seat:
                    known[acquisition.seat].append(peek.card)
    if seat is not None:
        known[seat] = list(observation.follower_pile)
    return tuple(map(tuple, known))


def outstanding(observation: Observation) -> Counter[Card]:
    """The cards that may be in another seat's hand or still come off the draw pile:
    every card of the deck that this seat has not seen, and, in phase 2, the cards
    it knows others took as prizes and have not played yet."""
    return Counter(outstanding_counts(observation))


def outstanding_counts(observation: Observation) -> dict[Card, int]:
    """`outstanding` as a plain dict, in code order, for the greedy player's every
    decision: plain dict arithmetic instead of Counter's Python-level `subtract` and
    `+`, 14 us a call instead of 24."""
    seen = played_cards(observation)
    seen += observation.hand
    if observation.phase == 1:
        seen += observation.follower_pile
        taken = [a.card for a in observation.acquired if a.source == PRIZE]
        seen += _without(observation.prizes, taken)
        for seat, known in enumerate(known_followers(observation)):
            if seat != observation.seat:
                seen += known
        if observation.peek is not None:
            seen.append(observation.peek)
    counts = dict(deck_counts(observation.factions))
    for card in seen:
        counts[card] -= 1
    return {card: count for card, count in counts.items() if count > 0}


@cache
def deck_counts(factions: tuple[Faction, ...]) -> Counter[Card]:
    """The cards of a deck of these factions, with their copies. Shared: copy it."""
    return Counter(full_deck(factions))


def lacking(observation: Observation) -> tuple[frozenset[Faction], ...]:
    """For each seat, the factions it has shown it does not hold in its current hand:
    in this phase it did not follow a lead of them (RULES.md 3 step 2). Hands only
    shrink within a phase, so a faction once lacking stays lacking until phase 2."""
    lacks: list[set[Faction]] = [set() for _ in range(observation.players)]
    tricks = [r.plays for r in observation.rounds if r.phase == observation.phase]
    for plays in [*tricks, observation.trick]:
        if not plays:
            continue
        led = plays[0].card.faction
        for play in plays[1:]:
            faction = play.card.faction
            if led is DOPPELGANGERS:
                if faction is not DOPPELGANGERS:
                    lacks[play.seat].add(DOPPELGANGERS)
            elif faction is not led and faction is not DOPPELGANGERS:
                lacks[play.seat].add(led)
    return tuple(map(frozenset, lacks))


def _without(cards, taken) -> list[Card]:
    """`cards` less one copy of each of `taken`."""
    rest = list(cards)
    for card in taken:
        rest.remove(card)
    return rest
