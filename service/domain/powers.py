"""Who wins a round and where its cards go: RULES.md section 3 and the faction powers
of section 6."""

from __future__ import annotations

from .cards import (
    DOPPELGANGERS,
    DRAGONS,
    DWARVES,
    GIANTS,
    GNOMES,
    GOBLINS,
    KNIGHTS,
    TROLLS,
    UNDEAD,
    Card,
)
from .state import Play


def _highest(plays) -> Play:
    """The highest card among `plays`; equal values go to the one played first."""
    best = None
    for play in plays:
        if best is None or play.card.value > best.card.value:
            best = play
    return best


def winning_play(plays: tuple[Play, ...]) -> Play:
    """The play that wins a complete round (RULES.md 3 and 6, Knights)."""
    best = plays[0]
    led = best.card.faction
    if led is GOBLINS:
        knights = [play for play in plays if play.card.faction is KNIGHTS]
        if knights:
            return _highest(knights)
    # The highest follower: a card of the led faction, or a Doppelganger, which counts
    # as the led faction (RULES.md 3). Equal values go to the one played first.
    for play in plays:
        card = play.card
        if card.value > best.card.value and (card.faction is led or card.faction is DOPPELGANGERS):
            best = play
    return best


def next_leader(plays: tuple[Play, ...], winner: int) -> int:
    """RULES.md 3 step 5: the last player of a Dragon leads next, else the winner."""
    for play in reversed(plays):
        if play.card.faction is DRAGONS:
            return play.seat
    return winner


def ranking(plays: tuple[Play, ...], winner: int) -> tuple[int, ...]:
    """The seats in the order they get prizes and draws with 3-4 players (RULES.md 4).

    The winner; then Knights in a Goblin-led round [decision]; then the others who
    followed; then those who did not; each group highest value first, ties to the
    card played earlier.
    """
    led = plays[0].card.faction
    others = []
    for order, (seat, card) in enumerate(plays):
        if seat != winner:
            faction = card.faction
            if faction is led or faction is DOPPELGANGERS:  # followed (RULES.md 3)
                group = 1
            elif led is GOBLINS and faction is KNIGHTS:
                group = 0
            else:
                group = 2
            others.append((group, -card.value, order, seat))
    others.sort()
    return (winner,) + tuple([key[-1] for key in others])


def phase1_cards(plays: tuple[Play, ...]) -> tuple[list[Card], list[Card]]:
    """RULES.md 6, Undead: the round's Undead go to the winner's score pile, the rest
    to the discard. Returns (to the winner's score pile, to the discard)."""
    undead, others = [], []
    for play in plays:
        (undead if play.card.faction is UNDEAD else others).append(play.card)
    return undead, others


def dwarves_receiver(plays: tuple[Play, ...], winner: int) -> int:
    """RULES.md 6, Dwarves: with 2 players the loser; with 3-4 the player of the
    lowest card of the round, ties to the one who played last."""
    if len(plays) == 2:
        return plays[0].seat if plays[1].seat == winner else plays[1].seat
    lowest = plays[0]
    for play in plays[1:]:
        if play.card.value <= lowest.card.value:
            lowest = play
    return lowest.seat


class Table:
    """The public piles that phase 2 changes, for one round's resolution
    (`resolve_phase2`): each seat's piles stay tuples in a list, and only those the
    round changes are built anew, instead of every pile copied to a list and back."""

    __slots__ = ("gnomes_in_front", "removed", "score_piles", "trolls_aside")

    def __init__(self, score_piles, gnomes_in_front, trolls_aside, removed):
        self.score_piles = list(score_piles)
        self.gnomes_in_front = list(gnomes_in_front)
        self.trolls_aside = list(trolls_aside)
        self.removed = list(removed)


def resolve_phase2(
    table: Table, plays: tuple[Play, ...], winner: int, opponents: tuple[int, ...], last: bool
) -> tuple[Play, ...]:
    """Send a phase-2 round's cards where RULES.md 5 and 6 say; change `table`.

    Returns the Gnomes that Giants removed, each with the seat that lost it.
    """
    score = table.score_piles
    gnomes_in_front = table.gnomes_in_front
    trolls = []
    for play in plays:
        card = play.card
        faction = card.faction
        if faction is DWARVES:
            score[dwarves_receiver(plays, winner)] += (card,)
        elif faction is TROLLS:
            trolls.append(card)
        elif faction is GNOMES:
            gnomes_in_front[winner] += (card,)
        else:
            score[winner] += (card,)

    # Trolls: the winner keeps the highest of this round's and the set-aside ones.
    aside = table.trolls_aside
    aside.extend(trolls)
    if aside:
        best = max(aside, key=lambda troll: troll.value)
        aside.remove(best)
        score[winner] += (best,)
    if last:
        score[winner] += tuple(aside)
        aside.clear()

    # Giants: each removes a Gnome of its value from in front of each opponent.
    removed = []
    for play in plays:
        if play.card.faction is GIANTS:
            for seat in opponents:
                gnomes = gnomes_in_front[seat]
                match = next((g for g in gnomes if g.value == play.card.value), None)
                if match is not None:
                    at = gnomes.index(match)
                    gnomes_in_front[seat] = gnomes[:at] + gnomes[at + 1 :]
                    table.removed.append(match)
                    removed.append(Play(seat, match))

    if last:  # RULES.md 7: Gnomes still in front are scored
        for seat, gnomes in enumerate(gnomes_in_front):
            score[seat] += gnomes
            gnomes_in_front[seat] = ()
    return tuple(removed)
