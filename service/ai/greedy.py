"""The greedy player: one look at the round in play, scored by a few sound rules.

Every legal decision gets a value for the seat's side, and the highest wins (ties to
the first, so the player is deterministic). A play's value is what the round brings
the side if that card wins it or loses it, weighed by the chance that nobody still to
play can beat it, less what the card would have been worth later.

- Phase 1 (RULES.md 4): a prize is worth what its card will do in a phase-2 hand (a
  high card wins rounds; Knights, Doppelgangers and Dragons a little more); losing a
  2-player round brings a draw of average worth instead. Undead in the round score for
  its winner (RULES.md 6). A Seer win earns a look at the draw pile's top card, and
  the Seer choice takes whichever of the prize and that card is worth more.
- Phase 2 (RULES.md 5): a card is worth winning while its faction can still go either
  way, little once it is decided. Dwarves go to the loser (2 players) or the lowest
  card (3-4 players), Trolls one at a time, Gnomes in front of the winner, and Giants
  remove opponents' Gnomes of their value. With 2 players nothing is hidden in phase 2
  (the other hand is whatever is outstanding), so a lead is scored against the
  opponent's best reply.
- Both phases: win with the lowest card that wins, lose with the card least worth
  keeping, and value who leads next (Dragons, RULES.md 3 step 5) a little.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from itertools import repeat
from math import comb
from typing import NamedTuple

from service.domain import (
    FACTION_CARDS,
    Card,
    Decision,
    Faction,
    Observation,
    Play,
    playable,
    side_of,
)
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
from service.domain.decisions import TAKE
from service.domain.powers import dwarves_receiver, next_leader, ranking, winning_play

from .knowledge import outstanding

# What a card in a phase-2 hand is worth, on top of its value (phase 1, prizes).
WORTH_BONUS = {KNIGHTS: 0.15, DOPPELGANGERS: 0.2, DRAGONS: 0.1}
# What a card in hand is worth keeping for later rounds, per point of value.
KEEP_PHASE1 = 0.5
KEEP_PHASE2 = 0.6
# A card scored for a faction still in play, in phase 1 (Undead) and phase 2.
STAKE_UNDEAD = 0.6
STAKE_OPEN = 1.0
STAKE_DECIDED = 0.05
LEAD_NEXT = 0.1  # leading the next round
SEER_LOOK = 0.1  # a Seer win: the choice between the prize and the top card


def greedy(observation: Observation, rng: random.Random) -> Decision:
    """The decision the greedy heuristics value most (RULES.md 3-7). Deterministic:
    `rng` is not used."""
    legal = observation.legal
    if len(legal) == 1:
        return legal[0]
    return max(legal, key=value_function(observation))


def ranked(observation: Observation) -> list[Decision]:
    """The legal decisions, the one greedy values most first (ties in legal order)."""
    legal = observation.legal
    if len(legal) == 1:
        return list(legal)
    return sorted(legal, key=value_function(observation), reverse=True)


def value_function(observation: Observation) -> Callable[[Decision], float]:
    """Greedy's value of each legal decision of the observation."""
    view = View.of(observation)
    if observation.legal[0].kind == TAKE:
        return view.take_value
    if observation.phase == 2 and observation.players == 2 and not observation.trick:
        return view.lead_value
    return view.play_value


def worth(card: Card) -> float:
    """What a card in a phase-2 hand is worth: a high card wins rounds."""
    return WORTH[card]


WORTH = {
    card: 0.3 + 0.7 * card.value / 9 + WORTH_BONUS.get(card.faction, 0.0)
    for cards in FACTION_CARDS.values()
    for card in cards
}
KEEP = {
    phase: {
        card: per_point * card.value / 9 + 0.5 * WORTH_BONUS.get(card.faction, 0.0)
        for cards in FACTION_CARDS.values()
        for card in cards
    }
    for phase, per_point in ((1, KEEP_PHASE1), (2, KEEP_PHASE2))
}
# Each faction's distinct cards, lowest first: tables by card avoid hashing factions,
# which (an Enum's Python-level hash) was a third of a rollout's time.
DISTINCT = {faction: tuple(dict.fromkeys(cards)) for faction, cards in FACTION_CARDS.items()}


class View(NamedTuple):
    """The facts one decision needs, read once from the observation."""

    observation: Observation
    seat: int
    signs: tuple[float, ...]  # per seat: +1 our side, else against us (see `_signs`)
    unseen: Counter[Card]  # the outstanding cards (knowledge.outstanding)
    unseen_total: int
    higher: dict[Faction, list[int]]  # outstanding values per faction, lowest first
    stakes: dict[Card, float]  # what one more card of its faction is worth to a side
    keep: dict[Card, float]  # what a card is worth keeping for the rest of the phase
    prize_worths: list[float]  # this round's prizes' worth, best first
    draw_worth: float  # the average worth of a card off the draw pile

    @classmethod
    def of(cls, observation: Observation) -> View:
        cards = outstanding(observation)
        count = cards.get
        higher = {
            faction: [card.value for card in DISTINCT[faction] for _ in range(count(card, 0))]
            for faction in observation.factions
        }
        total = cards.total()
        draw_worth = 0.0
        if observation.phase == 1 and total:
            draw_worth = sum(WORTH[c] * n for c, n in cards.items()) / total
        return cls(
            observation=observation,
            seat=observation.seat,
            signs=_signs(observation.players, observation.seat),
            unseen=cards,
            unseen_total=total,
            higher=higher,
            stakes=_stakes(observation),
            keep=KEEP[observation.phase],
            prize_worths=sorted(map(WORTH.__getitem__, observation.prizes), reverse=True),
            draw_worth=draw_worth,
        )

    # Decisions ---------------------------------------------------------------------------

    def take_value(self, decision: Decision) -> float:
        """A prize, or the draw pile's top card after a Seer win (RULES.md 6, Seers)."""
        card = decision.card if decision.card is not None else self.observation.peek
        return WORTH[card]

    def play_value(self, decision: Decision) -> float:
        """The value of a play now: the round's likely outcome less the card's keep."""
        card = decision.card
        observation = self.observation
        plays = observation.trick + (Play(self.seat, card),)
        value = -self.keep[card]
        win = winning_play(plays)
        if len(plays) == observation.players or self.signs[win.seat] < 0:
            return value + self.outcome(plays, win.seat)
        held = self.chance_unbeaten(plays, win.card)
        beaten_by = (self.seat + 1) % observation.players  # an opponent after us
        return (
            value
            + held * self.outcome(plays, win.seat)
            + (1 - held) * self.outcome(plays, beaten_by)
        )

    def lead_value(self, decision: Decision) -> float:
        """With 2 players in phase 2 the other hand is known (the outstanding cards):
        a lead is worth the round after the reply the opponent values most."""
        other = 1 - self.seat
        keep = self.keep
        lead = Play(self.seat, decision.card)
        best, theirs = 0.0, None
        for reply in playable(list(self.unseen.elements()), decision.card.faction):
            plays = (lead, Play(other, reply))
            ours = self.outcome(plays, winning_play(plays).seat)
            if theirs is None or -ours - keep[reply] > theirs:
                best, theirs = ours + keep[reply], -ours - keep[reply]
        return best - keep[decision.card]

    # The parts of a value ----------------------------------------------------------------

    def chance_unbeaten(self, plays: tuple[Play, ...], best: Card) -> float:
        """The chance that nobody still to play this round holds a card beating `best`:
        the outstanding cards are spread at random over the hands and the draw pile."""
        beaters = self.beaters(plays[0].card.faction, best)
        if not beaters:
            return 1.0
        observation = self.observation
        players = observation.players
        later = range(len(plays), players)
        dealt = sum(observation.hand_sizes[(observation.leader + k) % players] for k in later)
        pool = self.unseen_total
        dealt = min(dealt, pool)
        return comb(pool - beaters, dealt) / comb(pool, dealt)

    def beaters(self, led: Faction, best: Card) -> int:
        """How many outstanding cards would beat `best` in a round led by `led`."""
        higher = self.higher
        if led is GOBLINS and best.faction is KNIGHTS:
            return _above(higher[KNIGHTS], best.value)
        count = _above(higher.get(DOPPELGANGERS, ()), best.value)
        if led is not DOPPELGANGERS:
            count += _above(higher[led], best.value)
            if led is GOBLINS:
                count += len(higher[KNIGHTS])
        return count

    def outcome(self, plays: tuple[Play, ...], winner: int) -> float:
        """What the round's known cards bring our side if `winner` wins it."""
        signs = self.signs
        value = LEAD_NEXT if signs[next_leader(plays, winner)] > 0 else -LEAD_NEXT
        if self.observation.phase == 1:
            return value + self._prizes(plays, winner) + self._undead(plays, winner)
        return value + self._phase2_cards(plays, winner)

    def _prizes(self, plays: tuple[Play, ...], winner: int) -> float:
        """Phase 1, RULES.md 4: the winner's prize (and the second's, with 3-4
        players) against an average draw."""
        prizes = self.prize_worths
        if self.observation.players == 2:
            gain = prizes[0] - self.draw_worth
            if any(p.seat == winner and p.card.faction is SEERS for p in plays):
                gain += SEER_LOOK
            return gain * self.signs[winner]
        value = 0.0
        for rank, seat in enumerate(ranking(plays, winner)[: len(prizes)]):
            if self.signs[seat] > 0:
                value += prizes[rank] - self.draw_worth
        return value

    def _undead(self, plays: tuple[Play, ...], winner: int) -> float:
        """RULES.md 6, Undead: phase-1 Undead score for the round's winner."""
        undead = sum(1 for play in plays if play.card.faction is UNDEAD)
        return undead * self.stakes[UNDEAD_CARD] * self.signs[winner] if undead else 0.0

    def _phase2_cards(self, plays: tuple[Play, ...], winner: int) -> float:
        """RULES.md 5 and 6: where the round's cards go, valued by their factions'
        stakes."""
        observation = self.observation
        stakes, signs = self.stakes, self.signs
        value = 0.0
        trolls = giants = False
        for play in plays:
            card = play.card
            faction = card.faction
            if faction is TROLLS:
                trolls = True
            elif faction is DWARVES:
                value += stakes[card] * signs[self._dwarves_receiver(plays, winner)]
            else:
                value += stakes[card] * signs[winner]
                giants = giants or faction is GIANTS
        if trolls or observation.trolls_aside:  # the winner keeps one Troll
            value += self.stakes[TROLL_CARD] * signs[winner]
        if giants:  # each removes the opponents' Gnomes of its value
            for play in plays:
                if play.card.faction is GIANTS:
                    for seat, gnomes in enumerate(observation.gnomes_in_front):
                        if signs[seat] != signs[winner] and any(
                            g.value == play.card.value for g in gnomes
                        ):
                            value -= stakes[GNOME_CARD] * signs[seat]
        return value

    def _dwarves_receiver(self, plays: tuple[Play, ...], winner: int) -> int:
        """RULES.md 6, Dwarves: the loser with 2 players, else the lowest card so far."""
        if self.observation.players == 2:
            return 1 - winner
        if len(plays) == self.observation.players:
            return dwarves_receiver(plays, winner)
        return min(reversed(plays), key=lambda play: play.card.value).seat


# One card of a faction, to look its faction's stake up by card.
UNDEAD_CARD, TROLL_CARD, GNOME_CARD = (DISTINCT[f][0] for f in (UNDEAD, TROLLS, GNOMES))


def _signs(players: int, seat: int) -> tuple[float, ...]:
    """+1 for a card going to our side (the seat, or its partner with 4); -1 against
    us, or -1/2 with 3 players, where it goes to one of two opponents."""
    if players == 4:
        ours = side_of(players, seat)
        return tuple(1.0 if side_of(players, other) == ours else -1.0 for other in range(4))
    against = -0.5 if players == 3 else -1.0
    return tuple(1.0 if other == seat else against for other in range(players))


def _stakes(observation: Observation) -> dict[Card, float]:
    """What one more card of each faction is worth to a side, by card: much while the
    faction can still go to more than one side (RULES.md 7), little once it cannot.
    Phase 1 scores Undead only."""
    players = observation.players
    factions = observation.factions
    if observation.phase == 1:
        factions = (UNDEAD,) if UNDEAD in factions else ()
    piles = [Counter() for _ in range(2 if players == 4 else players)]
    for seat in range(players):
        pile = piles[side_of(players, seat)]
        pile.update(observation.score_piles[seat])
        pile.update(observation.gnomes_in_front[seat])
    removed = Counter(observation.removed)
    stakes = {}
    for faction in factions:
        cards = DISTINCT[faction]
        counts = sorted((sum(map(pile.get, cards, repeat(0))) for pile in piles), reverse=True)
        left = len(FACTION_CARDS[faction]) - sum(map(removed.get, cards, repeat(0))) - sum(counts)
        stake = STAKE_DECIDED if counts[0] > counts[1] + left else STAKE_OPEN
        if observation.phase == 1:
            stake *= STAKE_UNDEAD
        stakes.update(dict.fromkeys(cards, stake))
    return stakes


def _above(values, value: int) -> int:
    """How many of the ascending `values` exceed `value`."""
    return len(values) - bisect_right(values, value)
