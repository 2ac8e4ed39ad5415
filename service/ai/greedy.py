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
from collections import Counter
from collections.abc import Callable
from functools import cached_property, lru_cache, partial
from itertools import repeat
from math import comb
from operator import attrgetter

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

from .knowledge import outstanding_counts

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
    return max(legal, key=_value_function(observation, legal))


def ranked(observation: Observation) -> list[Decision]:
    """The legal decisions, the one greedy values most first (ties in legal order)."""
    legal = observation.legal
    if len(legal) == 1:
        return list(legal)
    return sorted(legal, key=_value_function(observation, legal), reverse=True)


def value_function(observation: Observation) -> Callable[[Decision], float]:
    """Greedy's value of each legal decision of the observation."""
    return _value_function(observation, observation.legal)


def _value_function(
    observation: Observation, legal: tuple[Decision, ...]
) -> Callable[[Decision], float]:
    # `legal` read once: a rollout's seat view computes it anew at each read.
    if legal[0].kind == TAKE:
        return partial(take_value, observation.peek)
    view = View(observation)
    if view.phase == 2 and view.players == 2 and not view.trick:
        return view.lead_value
    return view.play_value


def take_value(peek: Card | None, decision: Decision) -> float:
    """A prize, or the draw pile's top card `peek` after a Seer win (RULES.md 6,
    Seers)."""
    return WORTH[decision.card if decision.card is not None else peek]


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
# Per faction and value from -1 to 9: the faction's distinct cards above that value,
# so that the outstanding cards beating a card are counted from `View.unseen` alone.
ABOVE = {
    faction: {
        value: tuple(dict.fromkeys(c for c in cards if c.value > value)) for value in range(-1, 10)
    }
    for faction, cards in FACTION_CARDS.items()
}


class View:
    """The facts one decision needs, each read from the observation when first
    needed (a cached_property is computed once, then read as a plain attribute): a
    round's last player, for one, never needs the outstanding cards."""

    def __init__(self, observation: Observation):
        self.observation = observation
        self.seat = observation.seat
        self.players = observation.players
        self.phase = observation.phase
        self.trick = observation.trick
        # per seat: +1 our side, else against us (see `_signs`)
        self.signs = SIGNS[self.players][self.seat]
        # what a card is worth keeping for the rest of the phase
        self.keep = KEEP[self.phase]

    @cached_property
    def unseen(self) -> dict[Card, int]:
        """The outstanding cards (knowledge.outstanding), in code order."""
        return outstanding_counts(self.observation)

    @cached_property
    def unseen_total(self) -> int:
        return sum(self.unseen.values())

    @cached_property
    def stakes(self) -> dict[Faction, float]:
        """What one more card of its faction is worth to a side."""
        return _stakes(self.observation)

    @cached_property
    def prize_worths(self) -> list[float]:
        """This round's prizes' worth, best first."""
        return sorted(map(WORTH.__getitem__, self.observation.prizes), reverse=True)

    @cached_property
    def draw_worth(self) -> float:
        """The average worth of a card off the draw pile (phase 1)."""
        total = self.unseen_total
        if self.phase == 1 and total:
            return sum(WORTH[c] * n for c, n in self.unseen.items()) / total
        return 0.0

    # Decisions ---------------------------------------------------------------------------

    def play_value(self, decision: Decision) -> float:
        """The value of a play now: the round's likely outcome less the card's keep."""
        card = decision.card
        plays = self.trick + (_play(self.seat, card),)
        value = -self.keep[card]
        win = winning_play(plays)
        if len(plays) == self.players or self.signs[win.seat] < 0:
            return value + self.outcome(plays, win.seat)
        held = self.chance_unbeaten(plays[0].card.faction, win.card)
        beaten_by = (self.seat + 1) % self.players  # an opponent after us
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
        lead = _play(self.seat, decision.card)
        best, theirs = 0.0, None
        for reply in playable(self.other_hand, decision.card.faction):
            plays = (lead, _play(other, reply))
            ours = self.outcome(plays, winning_play(plays).seat)
            if theirs is None or -ours - keep[reply] > theirs:
                best, theirs = ours + keep[reply], -ours - keep[reply]
        return best - keep[decision.card]

    @cached_property
    def other_hand(self) -> list[Card]:
        """With 2 players in phase 2: the opponent's hand, in code order."""
        return [card for card, copies in self.unseen.items() for _ in range(copies)]

    # The parts of a value ----------------------------------------------------------------

    def chance_unbeaten(self, led: Faction, best: Card) -> float:
        """The chance that nobody to play after this seat in this round holds a card
        beating `best`: the outstanding cards are spread at random over the hands and
        the draw pile."""
        beaters = self.beaters(led, best)
        if not beaters:
            return 1.0
        dealt, deals = self.later_deals
        return comb(self.unseen_total - beaters, dealt) / deals

    @cached_property
    def later_deals(self) -> tuple[int, int]:
        """The outstanding cards in the hands of the seats to play after this one, and
        the number of ways to deal them."""
        players, leader = self.players, self.observation.leader
        hand_sizes = self.observation.hand_sizes
        later = range(len(self.trick) + 1, players)
        dealt = min(sum(hand_sizes[(leader + k) % players] for k in later), self.unseen_total)
        return dealt, comb(self.unseen_total, dealt)

    def beaters(self, led: Faction, best: Card) -> int:
        """How many outstanding cards would beat `best` in a round led by `led`."""
        if led is GOBLINS and best.faction is KNIGHTS:
            return self._above(KNIGHTS, best.value)
        count = self._above(DOPPELGANGERS, best.value)
        if led is not DOPPELGANGERS:
            count += self._above(led, best.value)
            if led is GOBLINS:
                count += self._above(KNIGHTS, -1)
        return count

    def _above(self, faction: Faction, value: int) -> int:
        """How many outstanding cards of `faction` are above `value`."""
        return sum(map(self.unseen.get, ABOVE[faction][value], repeat(0)))

    def outcome(self, plays: tuple[Play, ...], winner: int) -> float:
        """What the round's known cards bring our side if `winner` wins it."""
        value = LEAD_NEXT if self.signs[next_leader(plays, winner)] > 0 else -LEAD_NEXT
        if self.phase == 1:
            return value + self._prizes(plays, winner) + self._undead(plays, winner)
        return value + self._phase2_cards(plays, winner)

    def _prizes(self, plays: tuple[Play, ...], winner: int) -> float:
        """Phase 1, RULES.md 4: the winner's prize (and the second's, with 3-4
        players) against an average draw."""
        prizes = self.prize_worths
        if self.players == 2:
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
        undead = [play.card.faction for play in plays].count(UNDEAD)
        return undead * self.stakes[UNDEAD] * self.signs[winner] if undead else 0.0

    def _phase2_cards(self, plays: tuple[Play, ...], winner: int) -> float:
        """RULES.md 5 and 6: where the round's cards go, valued by their factions'
        stakes."""
        observation = self.observation
        stakes, signs = self.stakes, self.signs
        value = 0.0
        trolls = giants = False
        for play in plays:
            faction = play.card.faction
            if faction is TROLLS:
                trolls = True
            elif faction is DWARVES:
                value += stakes[faction] * signs[self._dwarves_receiver(plays, winner)]
            else:
                value += stakes[faction] * signs[winner]
                giants = giants or faction is GIANTS
        if trolls or observation.trolls_aside:  # the winner keeps one Troll
            value += stakes[TROLLS] * signs[winner]
        if giants:  # each removes the opponents' Gnomes of its value
            for play in plays:
                if play.card.faction is GIANTS:
                    for seat, gnomes in enumerate(observation.gnomes_in_front):
                        if signs[seat] != signs[winner] and any(
                            g.value == play.card.value for g in gnomes
                        ):
                            value -= stakes[GNOMES] * signs[seat]
        return value

    def _dwarves_receiver(self, plays: tuple[Play, ...], winner: int) -> int:
        """RULES.md 6, Dwarves: the loser with 2 players, else the lowest card so far."""
        if self.players == 2:
            return 1 - winner
        if len(plays) == self.players:
            return dwarves_receiver(plays, winner)
        return min(reversed(plays), key=lambda play: play.card.value).seat


def _play(seat: int, card: Card) -> Play:
    """`Play(seat, card)` without NamedTuple's Python-level __new__, as the engine
    builds them: one per decision valued and per reply, 1.5% of a rollout's
    instructions (callgrind)."""
    return _new_tuple(Play, (seat, card))


_new_tuple = tuple.__new__


def _signs(players: int, seat: int) -> tuple[float, ...]:
    """+1 for a card going to our side (the seat, or its partner with 4); -1 against
    us, or -1/2 with 3 players, where it goes to one of two opponents."""
    if players == 4:
        ours = side_of(players, seat)
        return tuple(1.0 if side_of(players, other) == ours else -1.0 for other in range(4))
    against = -0.5 if players == 3 else -1.0
    return tuple(1.0 if other == seat else against for other in range(players))


SIGNS = {players: [_signs(players, seat) for seat in range(players)] for players in (2, 3, 4)}


def _stakes(observation: Observation) -> dict[Faction, float]:
    """What one more card of each faction is worth to a side: much while the faction
    can still go to more than one side (RULES.md 7), little once it cannot. Phase 1
    scores Undead only. Shared: do not change it."""
    return _stakes_of(
        observation.players,
        observation.phase,
        observation.factions,
        observation.score_piles,
        observation.gnomes_in_front,
        observation.removed,
    )


# The piles change only at the end of a round, so most decisions find their stakes
# here: computed for every decision, they were 7% of the instructions of greedy
# rollouts (callgrind, 90 rollouts of 2-4 players from fixed states).
@lru_cache(maxsize=1024)
def _stakes_of(
    players: int,
    phase: int,
    factions: tuple[Faction, ...],
    score_piles: tuple[tuple[Card, ...], ...],
    gnomes_in_front: tuple[tuple[Card, ...], ...],
    removed: tuple[Card, ...],
) -> dict[Faction, float]:
    if phase == 1:
        factions = (UNDEAD,) if UNDEAD in factions else ()
    # Each side's scored cards by faction, counted in C.
    sides = [[] for _ in range(2 if players == 4 else players)]
    for seat in range(players):
        pile = sides[side_of(players, seat)]
        pile += score_piles[seat]
        pile += gnomes_in_front[seat]
    scored = [Counter(map(FACTION_OF, pile)).get for pile in sides]
    removed_count = Counter(map(FACTION_OF, removed)).get
    stakes = {}
    for faction in factions:
        counts = sorted((count(faction, 0) for count in scored), reverse=True)
        left = len(FACTION_CARDS[faction]) - removed_count(faction, 0) - sum(counts)
        stake = STAKE_DECIDED if counts[0] > counts[1] + left else STAKE_OPEN
        if phase == 1:
            stake *= STAKE_UNDEAD
        stakes[faction] = stake
    return stakes


FACTION_OF = attrgetter("faction")
