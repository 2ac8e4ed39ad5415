"""The oracle of the compiled greedy: the greedy player on the compact engine.

`greedy.py` values a decision from a seat's `Observation`; a rollout has no
observation to give, only a game changed in place. Here a `KnowingGame` is a compact
game (`compact.py`) that also keeps, for every seat, what that seat has not seen
(`knowledge.outstanding` of its observation, RULES.md 8), changed as the game goes: a
card played is seen by all, a prize turned up too, a draw by its drawer, the draw
pile's top card by the Seer who looked at it; in phase 2 each seat's unseen cards are
the other hands. `decide` is greedy's decision for the seat to act, read from that and
the game's public piles, with greedy's own tables and arithmetic, so that it is the
same decision (tests/ai/test_compact_greedy.py, bench/differential.py --greedy: every
decision equal over a hundred thousand positions). The compiled engine
(`service/ai/compiled.py`) restates it step by step, held to it at the same positions;
nothing at run time plays on this one.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from math import comb

from service.ai.codes import (
    DO,
    DR,
    DW,
    FACTION,
    FACTION_SIZE,
    GI,
    GN,
    GO,
    KEEP_OF,
    KN,
    SE,
    TAKE,
    TAKE_DECK,
    TR,
    UN,
    WORTH_OF,
)
from service.ai.greedy import (
    LEAD_NEXT,
    SEER_LOOK,
    SIGNS,
    STAKE_DECIDED,
    STAKE_OPEN,
    STAKE_UNDEAD,
)
from service.domain import FACTION_CARDS, Card, Settings, State
from service.domain.state import DECK

from .compact import CompactGame, _run, ranking, winning_at


class KnowingGame(CompactGame):
    """A compact game that keeps each seat's unseen cards: `unseen[seat][card]` copies
    of `card` that `seat` has not seen (RULES.md 8), `unseen_total[seat]` in all."""

    __slots__ = ("peeker", "removed_gnomes", "stakes", "unseen", "unseen_total")

    unseen: list[list[int]]
    unseen_total: list[int]
    peeker: int | None  # the seat that saw the draw pile's top card (a Seer's win)
    removed_gnomes: int  # Gnomes removed from the game by Giants
    stakes: tuple[int, int, list[float]] | None  # (phase, round, greedy's stakes then)

    @classmethod
    def deal(cls, settings: Settings, deck: Sequence[Card]) -> KnowingGame:
        """The game after the deal: each seat has seen its hand and the prizes."""
        game = cls._empty(settings)
        game.peeker, game.removed_gnomes, game.stakes = None, 0, None
        game.unseen = []
        counts = [0] * 100
        for card in deck:
            counts[card.index] += 1
        hand_size = settings.hand_size
        for seat in range(settings.players):
            unseen = counts[:]
            for card in deck[seat * hand_size : (seat + 1) * hand_size]:
                unseen[card.index] -= 1
            game.unseen.append(unseen)
        game.unseen_total = [len(deck) - hand_size] * settings.players
        game._deal(deck, settings.first_leader)  # the first prizes seen by all
        return game

    @classmethod
    def from_state(cls, state: State) -> KnowingGame:
        """The domain's `state`, at any step, with what each seat knows: its deal
        played again through the decisions of its history."""
        return cls.replayed(state.settings, state.deck, state.rounds, state.trick, state.acquired)

    @classmethod
    def replayed(cls, settings: Settings, deck: Sequence[Card], rounds, trick, acquired):
        """The game dealt from `deck` and played through `rounds` (`RoundRecord`s,
        or anything with their `plays` and `acquired`), then a round in play with
        its `trick` and `acquired` so far."""
        game = cls.deal(settings, deck)
        for record in rounds:
            game._replay_round(record.plays, record.acquired)
        game._replay_round(trick, acquired)
        return game

    def _replay_round(self, plays, acquired) -> None:
        """A round's plays, then its acquisitions that were decisions (the others
        follow from them)."""
        for play in plays:
            self.apply(play.card.index)
        players = self.players
        while self.takers and players - len(self.takers) < len(acquired):
            acquisition = acquired[players - len(self.takers)]
            self.apply(TAKE_DECK if acquisition.source == DECK else TAKE + acquisition.card.index)

    def copy(self) -> KnowingGame:
        game = CompactGame.copy(self)
        game.unseen = list(map(list.copy, self.unseen))
        game.unseen_total = self.unseen_total[:]
        game.peeker, game.removed_gnomes = self.peeker, self.removed_gnomes
        game.stakes = self.stakes
        return game

    def know_hands(self) -> None:
        """Phase 2: every seat's unseen cards are the other seats' hands."""
        players = self.players
        self.unseen = []
        for seat in range(players):
            unseen = [0] * 100
            for other in range(players):
                if other != seat:
                    for card in self.hands[other]:
                        unseen[card] += 1
            self.unseen.append(unseen)
        self.unseen_total = [
            sum(len(self.hands[other]) for other in range(players) if other != seat)
            for seat in range(players)
        ]

    def _seen_by_all_but(self, seat: int | None, card: int) -> None:
        unseen, totals = self.unseen, self.unseen_total
        for other in range(self.players):
            if other != seat:
                unseen[other][card] -= 1
                totals[other] -= 1

    def apply(self, code: int) -> None:
        if code < TAKE:  # a play: every other seat sees the card
            self._seen_by_all_but(self.to_act, code)
        CompactGame.apply(self, code)

    def _finish_phase1_play(self) -> None:
        CompactGame._finish_phase1_play(self)
        if self.seer_choice:  # the winner looks at the draw pile's top card
            seat = self.peeker = self.takers[0]
            self.unseen[seat][self.draw_pile[-1]] -= 1
            self.unseen_total[seat] -= 1

    def _draw(self) -> None:
        seat = self.takers[0]
        if seat != self.peeker:  # the Seer saw the first card drawn after its look
            self.unseen[seat][self.draw_pile[-1]] -= 1
            self.unseen_total[seat] -= 1
        self.peeker = None
        CompactGame._draw(self)

    def _start_round(self, leader: int) -> None:
        CompactGame._start_round(self, leader)
        if self.phase == 1:
            for card in self.prizes:
                self._seen_by_all_but(None, card)
        elif self.round == 0:
            self.know_hands()

    def _finish_phase2_round(self) -> None:
        if GI not in self.factions or self.round == self.hand_size - 1:
            CompactGame._finish_phase2_round(self)
            return
        gnomes = sum(map(len, self.gnomes_in_front))
        gnomes += sum(1 for card in self.trick_cards if card // 10 == GN)
        CompactGame._finish_phase2_round(self)
        self.removed_gnomes += gnomes - sum(map(len, self.gnomes_in_front))


# Greedy's decision ------------------------------------------------------------------------


def decide(game: KnowingGame) -> int:
    """greedy's decision (`greedy.greedy`) for the seat to act, as a code."""
    legal = game.legal_decisions()
    if len(legal) == 1:
        return legal[0]
    return max(legal, key=value_function(game))


def value_function(game: KnowingGame):
    """greedy's value of each legal code (`greedy.value_function`)."""
    if game.takers:
        peek = game.draw_pile[-1] if game.seer_choice else None
        return lambda code: WORTH_OF[peek if code == TAKE_DECK else code - TAKE]
    view = _View(game)
    if game.phase == 2 and game.players == 2 and not game.trick_cards:
        return view.lead_value
    return view.play_value


class _View:
    """`greedy.View` on a knowing game: the same values, from ints."""

    __slots__ = (
        "_deals",
        "_draw_worth",
        "_prize_worths",
        "_stakes",
        "dragons",
        "game",
        "keep",
        "seat",
        "seers",
        "signs",
        "undead",
        "unseen",
    )

    def __init__(self, game: KnowingGame):
        self.game = game
        self.seat = game.to_act
        self.signs = SIGNS[game.players][self.seat]
        self.keep = KEEP_OF[game.phase]
        self.unseen = game.unseen[self.seat]
        self._stakes = self._draw_worth = self._deals = self._prize_worths = None
        # the powers a round's outcome needs to look for, if the deck has them
        factions = game.factions
        self.dragons, self.seers, self.undead = DR in factions, SE in factions, UN in factions

    # Decisions ------------------------------------------------------------------------

    def play_value(self, card: int) -> float:
        game = self.game
        seats = game.trick_seats + [self.seat]
        cards = game.trick_cards + [card]
        value = -self.keep[card]
        at = winning_at(cards)
        winner = seats[at]
        if len(cards) == game.players or self.signs[winner] < 0:
            return value + self.outcome(seats, cards, winner)
        held = self.chance_unbeaten(cards[0] // 10, cards[at])
        beaten_by = (self.seat + 1) % game.players
        return (
            value
            + held * self.outcome(seats, cards, winner)
            + (1 - held) * self.outcome(seats, cards, beaten_by)
        )

    def lead_value(self, card: int) -> float:
        """The value of leading `card` against the best reply: `outcome` of each
        reply, inlined for the 2-player phase 2's two cards (the rollouts' most
        frequent call), with the same arithmetic in the same order."""
        game = self.game
        seat, other = self.seat, 1 - self.seat
        keep, stakes, signs = self.keep, self.stakes, self.signs
        led, high = card // 10, card % 10
        # What the led card brings whoever wins, and the powers it brings to the round.
        led_stake = stakes[led]
        dwarf, troll, giant = led == DW, led == TR or bool(game.trolls_aside), led == GI
        best, theirs = 0.0, None
        for reply in _replies(game.hands[other], led):
            faction = reply // 10
            if led == GO and faction == KN:
                winner = other  # `winning_at`: a Knight takes a Goblin lead
            elif reply % 10 > high and faction in (led, DO):
                winner = other
            else:
                winner = seat
            leader = winner  # `outcome`: who leads next
            if self.dragons:
                if faction == DR:
                    leader = other
                elif led == DR:
                    leader = seat
            ours = LEAD_NEXT if signs[leader] > 0 else -LEAD_NEXT
            # `_phase2_cards` of the two cards
            value = 0.0
            if dwarf:
                value += led_stake * signs[1 - winner]
            elif led != TR:
                value += led_stake * signs[winner]
            if faction == DW:
                value += stakes[DW] * signs[1 - winner]
            elif faction != TR:
                value += stakes[faction] * signs[winner]
            if troll or faction == TR:
                value += stakes[TR] * signs[winner]
            if giant or faction == GI:
                value = self._giants(value, (card, reply), winner)
            ours += value
            if theirs is None or -ours - keep[reply] > theirs:
                best, theirs = ours + keep[reply], -ours - keep[reply]
        return best - keep[card]

    # The parts of a value ---------------------------------------------------------------

    def chance_unbeaten(self, led: int, best: int) -> float:
        beaters = self.beaters(led, best)
        if not beaters:
            return 1.0
        if self._deals is None:
            game = self.game
            players, leader = game.players, game.leader
            total = game.unseen_total[self.seat]
            later = range(len(game.trick_cards) + 1, players)
            dealt = min(sum(len(game.hands[(leader + k) % players]) for k in later), total)
            self._deals = dealt, comb(total, dealt)
        dealt, deals = self._deals
        return comb(self.game.unseen_total[self.seat] - beaters, dealt) / deals

    def beaters(self, led: int, best: int) -> int:
        faction, value = best // 10, best % 10
        if led == GO and faction == KN:
            return self._above(KN, value)
        count = self._above(DO, value)
        if led != DO:
            count += self._above(led, value)
            if led == GO:
                count += self._above(KN, -1)
        return count

    def _above(self, faction: int, value: int) -> int:
        unseen = self.unseen
        return sum(unseen[faction * 10 + value + 1 : faction * 10 + 10])

    def outcome(self, seats: list[int], cards: list[int], winner: int) -> float:
        leader = winner
        if self.dragons:
            for at in range(len(cards) - 1, -1, -1):
                if cards[at] // 10 == DR:
                    leader = seats[at]
                    break
        value = LEAD_NEXT if self.signs[leader] > 0 else -LEAD_NEXT
        if self.game.phase == 1:
            undead = self._undead(cards, winner) if self.undead else 0.0
            return value + self._prizes(seats, cards, winner) + undead
        return value + self._phase2_cards(seats, cards, winner)

    @property
    def draw_worth(self) -> float:
        if self._draw_worth is None:
            total = self.game.unseen_total[self.seat]
            if total:
                unseen = self.unseen
                cards = _deck_cards(self.game.factions)
                self._draw_worth = (
                    sum(WORTH_OF[c] * unseen[c] for c in cards if unseen[c] > 0) / total
                )
            else:
                self._draw_worth = 0.0
        return self._draw_worth

    def _prizes(self, seats: list[int], cards: list[int], winner: int) -> float:
        game = self.game
        prizes = self._prize_worths
        if prizes is None:
            prizes = self._prize_worths = sorted(
                map(WORTH_OF.__getitem__, game.prizes), reverse=True
            )
        if game.players == 2:
            gain = prizes[0] - self.draw_worth
            if self.seers:
                for seat, card in zip(seats, cards, strict=True):
                    if seat == winner and card // 10 == SE:
                        gain += SEER_LOOK
                        break
            return gain * self.signs[winner]
        value = 0.0
        for rank, seat in enumerate(ranking(seats, cards, winner)[: len(prizes)]):
            if self.signs[seat] > 0:
                value += prizes[rank] - self.draw_worth
        return value

    def _undead(self, cards: list[int], winner: int) -> float:
        undead = 0
        for card in cards:
            if card // 10 == UN:
                undead += 1
        return undead * self.stakes[UN] * self.signs[winner] if undead else 0.0

    def _phase2_cards(self, seats: list[int], cards: list[int], winner: int) -> float:
        game = self.game
        stakes, signs = self.stakes, self.signs
        value = 0.0
        trolls = giants = False
        for card in cards:
            faction = card // 10
            if faction == TR:
                trolls = True
            elif faction == DW:
                value += stakes[faction] * signs[self._dwarves_receiver(seats, cards, winner)]
            else:
                value += stakes[faction] * signs[winner]
                giants = giants or faction == GI
        if trolls or game.trolls_aside:
            value += stakes[TR] * signs[winner]
        if giants:
            value = self._giants(value, cards, winner)
        return value

    def _giants(self, value: float, cards: Sequence[int], winner: int) -> float:
        """`value` less the stakes of the opponents' Gnomes that the round's Giants
        remove."""
        stakes, signs = self.stakes, self.signs
        for card in cards:
            if card // 10 == GI:
                for seat, gnomes in enumerate(self.game.gnomes_in_front):
                    if signs[seat] != signs[winner] and any(g % 10 == card % 10 for g in gnomes):
                        value -= stakes[GN] * signs[seat]
        return value

    def _dwarves_receiver(self, seats: list[int], cards: list[int], winner: int) -> int:
        players = self.game.players
        if players == 2:
            return 1 - winner
        lowest = 0
        for at in range(1, len(cards)):
            if cards[at] % 10 <= cards[lowest] % 10:
                lowest = at
        return seats[lowest]

    @property
    def stakes(self) -> list[float]:
        """`greedy._stakes_of`, by faction rank."""
        if self._stakes is None:
            game = self.game
            kept = game.stakes
            if kept is None or kept[0] != game.phase or kept[1] != game.round:
                kept = game.stakes = (game.phase, game.round, _stakes(game))
            self._stakes = kept[2]
        return self._stakes


@cache
def _deck_cards(factions: tuple[int, ...]) -> list[int]:
    """The distinct cards of a deck of these faction ranks, in code order."""
    return sorted({card.index for f in factions for card in FACTION_CARDS[FACTION[f]]})


def _stakes(game: KnowingGame) -> list[float]:
    phase = game.phase
    factions = game.factions if phase == 2 else (UN,) if UN in game.factions else ()
    players = game.players
    sides = 2 if players == 4 else players
    counts = [[0] * 10 for _ in range(sides)]
    for seat in range(players):
        side = seat % 2 if players == 4 else seat
        scored = counts[side]
        for card in game.score_piles[seat]:
            scored[card // 10] += 1
        for card in game.gnomes_in_front[seat]:
            scored[card // 10] += 1
    stakes = [0.0] * 10
    for faction in factions:
        ranked = sorted((scored[faction] for scored in counts), reverse=True)
        left = FACTION_SIZE[faction] - sum(ranked)
        if faction == GN:
            left -= game.removed_gnomes
        stake = STAKE_DECIDED if ranked[0] > ranked[1] + left else STAKE_OPEN
        if phase == 1:
            stake *= STAKE_UNDEAD
        stakes[faction] = stake
    return stakes


def _replies(hand: list[int], led: int) -> list[int]:
    """`rules.playable` of a sorted hand after a lead of `led`."""
    followers = _run(hand, led)
    if not followers:
        return hand
    if led == DO:
        return followers
    return _run(hand, DO) + followers
