"""The oracle of the compiled engine's rules: the domain's game loop (RULES.md 3-7)
again in plain Python, on small ints changed in place.

The domain's `State` is an immutable value made of `Card` objects, as the event fold,
the API and the audit need it; the compiled engine (`service/ai/compiled.py`) plays
the same game on arrays of ints, in the codes of `service/ai/codes.py`. This engine
stands between the two, readable as Python and checkable step by step against each:
a game is a few lists changed in place, with `copy()` for a search that branches. It
keeps what the rest of the game depends on, and drops the history, the discard and
the Seer's peek. Nothing at run time plays on it; the tests and benches hold the
compiled engine to it, and it to the domain.

It restates the domain's steps one by one (each method names the function of
`rules.py`, `powers.py` or `scoring.py` it mirrors), and is held to them:
bench/differential.py plays a million random decisions through both, comparing the
legal decisions and the position at every step and the result at the end, and
tests/ai/test_compact.py replays every conformance game through it. It checks
nothing: a decision must be one of `legal_decisions()`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from service.ai.codes import (
    DO,
    DR,
    DW,
    FACTION,
    GI,
    GN,
    GO,
    KN,
    RANK,
    SE,
    TAKE,
    TAKE_DECK,
    TR,
    UN,
)
from service.domain import Card, Result, Settings, State
from service.domain.rules import OPPONENTS
from service.domain.scoring import winning_side


class CompactGame:
    """A game in play, or over (`to_act` None). Made by `deal` or `from_state`;
    `legal_decisions()` and `apply(code)` as the domain's `legal_decisions` and
    `apply`, in codes; `result()` as its `result`. The fields are the `State`'s that
    the rest of the game depends on, as ints and lists."""

    __slots__ = (
        "draw_pile",
        "factions",
        "follower_piles",
        "gnomes_in_front",
        "hand_size",
        "hands",
        "leader",
        "phase",
        "players",
        "prizes",
        "round",
        "round_winner",
        "score_piles",
        "seer_choice",
        "sides",
        "takers",
        "to_act",
        "trick_cards",
        "trick_seats",
        "trolls_aside",
    )

    players: int
    hand_size: int
    sides: tuple[tuple[int, ...], ...]
    factions: tuple[int, ...]  # the settings' factions, as ranks
    phase: int
    round: int
    leader: int
    to_act: int | None
    hands: list[list[int]]  # each sorted
    follower_piles: list[list[int]]
    score_piles: list[list[int]]
    draw_pile: list[int]  # top last
    prizes: list[int]  # this round's prizes not taken yet, in the order turned up
    trick_seats: list[int]
    trick_cards: list[int]
    round_winner: int | None  # phase 1: the round's winner, while its prizes go out
    takers: list[int]  # seats still to get a prize or draw, in rank order
    seer_choice: bool  # takers[0] won with a Seer and may take the draw pile's top card
    gnomes_in_front: list[list[int]]
    trolls_aside: list[int]

    @classmethod
    def deal(cls, settings: Settings, deck: Sequence[Card]) -> CompactGame:
        """The game after the deal, as `new_game(settings, deck)` (unchecked: `deck`
        is every card of the settings' factions, top first)."""
        game = cls._empty(settings)
        game._deal(deck, settings.first_leader)
        return game

    def _deal(self, deck: Sequence[Card], first_leader: int) -> None:
        players, size = self.players, self.hand_size
        indexes = [card.index for card in deck]
        self.hands = [sorted(indexes[seat * size : (seat + 1) * size]) for seat in range(players)]
        self.draw_pile = indexes[players * size :][::-1]
        self.phase, self.round = 1, 0
        self._start_round(first_leader)

    @classmethod
    def from_state(cls, state: State) -> CompactGame:
        """The domain's `state`, at any step."""
        game = cls._empty(state.settings)
        game.phase, game.round = state.phase, state.round
        game.leader, game.to_act = state.leader, state.to_act
        game.hands = [sorted(pile) for pile in _indexes(state.hands)]
        game.follower_piles = _indexes(state.follower_piles)
        game.score_piles = _indexes(state.score_piles)
        game.gnomes_in_front = _indexes(state.gnomes_in_front)
        game.draw_pile = [card.index for card in reversed(state.draw_pile)]
        game.prizes = [card.index for card in state.remaining_prizes]
        game.trick_seats = [play.seat for play in state.trick]
        game.trick_cards = [play.card.index for play in state.trick]
        game.round_winner, game.takers = state.winner, list(state.takers)
        game.seer_choice = state.seer_choice
        game.trolls_aside = [card.index for card in state.trolls_aside]
        return game

    @classmethod
    def _empty(cls, settings: Settings) -> CompactGame:
        game = object.__new__(cls)
        players = game.players = settings.players
        game.hand_size, game.sides = settings.hand_size, settings.sides
        game.factions = tuple(RANK[faction] for faction in settings.factions)
        game.follower_piles = [[] for _ in range(players)]
        game.score_piles = [[] for _ in range(players)]
        game.gnomes_in_front = [[] for _ in range(players)]
        game.prizes, game.trick_seats, game.trick_cards = [], [], []
        game.round_winner, game.takers, game.seer_choice = None, [], False
        game.trolls_aside = []
        return game

    def copy(self) -> CompactGame:
        """A game to play on without changing this one."""
        game = object.__new__(type(self))
        game.players, game.hand_size = self.players, self.hand_size
        game.sides, game.factions = self.sides, self.factions
        game.phase, game.round = self.phase, self.round
        game.leader, game.to_act = self.leader, self.to_act
        game.hands = list(map(list.copy, self.hands))
        game.follower_piles = list(map(list.copy, self.follower_piles))
        game.score_piles = list(map(list.copy, self.score_piles))
        game.gnomes_in_front = list(map(list.copy, self.gnomes_in_front))
        game.draw_pile, game.prizes = self.draw_pile[:], self.prizes[:]
        game.trick_seats, game.trick_cards = self.trick_seats[:], self.trick_cards[:]
        game.round_winner, game.takers = self.round_winner, self.takers[:]
        game.seer_choice, game.trolls_aside = self.seer_choice, self.trolls_aside[:]
        return game

    def legal_decisions(self) -> list[int]:
        """The codes of the domain's `legal_decisions`, in its order."""
        if self.to_act is None:
            return []
        if self.takers:
            codes = [TAKE + card for card in sorted(set(self.prizes))]
            if self.seer_choice:
                codes.append(TAKE_DECK)
            return codes
        hand = self.hands[self.to_act]
        if self.trick_cards:
            # `rules.playable`, the follow rule (RULES.md 3 step 2), on runs of the
            # sorted hand: the led faction's cards, and the Doppelgangers'.
            led = self.trick_cards[0] // 10
            doppelgangers = _run(hand, DO)
            if led == DO:
                if doppelgangers:
                    hand = doppelgangers
            else:
                followers = _run(hand, led)
                if followers:
                    hand = doppelgangers + followers if led > DO else followers + doppelgangers
        return list(dict.fromkeys(hand))

    def apply(self, code: int) -> None:
        """Make the decision `code`, one of `legal_decisions()` (`rules.apply`)."""
        if code < TAKE:  # `_play_on`
            seat = self.to_act
            self.hands[seat].remove(code)
            self.trick_seats.append(seat)
            self.trick_cards.append(code)
            if len(self.trick_cards) < self.players:
                self.to_act = (seat + 1) % self.players
            elif self.phase == 1:
                self._finish_phase1_play()
            else:
                self._finish_phase2_round()
            return
        if code == TAKE_DECK:  # `_take`
            self._draw()
        else:
            self.prizes.remove(code - TAKE)
            self._acquire(code - TAKE)
        self.seer_choice = False
        self._hand_out()

    def _finish_phase1_play(self) -> None:
        """`rules._finish_phase1_play`: score Undead, rank the takers (RULES.md 4
        and 6)."""
        at = winning_at(self.trick_cards)
        winner = self.round_winner = self.trick_seats[at]
        for card in self.trick_cards:
            if card // 10 == UN:
                self.score_piles[winner].append(card)
        if self.players == 2:
            self.takers = [winner, 1 - winner]
        else:
            self.takers = ranking(self.trick_seats, self.trick_cards, winner)
        if self.trick_cards[at] // 10 == SE:
            self.seer_choice = True
        self._hand_out()

    def _hand_out(self) -> None:
        """`rules._hand_out`: the next takers get their prize or draw until one has a
        choice to make."""
        takers, prizes = self.takers, self.prizes
        while takers:
            if self.seer_choice or len(prizes) > 1:
                self.to_act = takers[0]
                return
            if prizes:
                self._acquire(prizes.pop(0))
            else:
                self._draw()
        self._next_round(self.round_winner)

    def _acquire(self, card: int) -> None:
        self.follower_piles[self.takers.pop(0)].append(card)

    def _draw(self) -> None:
        """The next taker draws the draw pile's top card."""
        self._acquire(self.draw_pile.pop())

    def _finish_phase2_round(self) -> None:
        """`powers.resolve_phase2`: where a phase-2 round's cards go (RULES.md 5, 6)."""
        cards = self.trick_cards
        winner = self.trick_seats[winning_at(cards)]
        scores, gnomes, trolls = self.score_piles, self.gnomes_in_front, self.trolls_aside
        last = self.round == self.hand_size - 1
        for card in cards:
            faction = card // 10
            if faction == DW:
                scores[self._dwarves_receiver(winner)].append(card)
            elif faction == TR:
                trolls.append(card)
            elif faction == GN:
                gnomes[winner].append(card)
            else:
                scores[winner].append(card)
        if trolls:
            best = max(trolls)  # one faction: the highest value
            trolls.remove(best)
            scores[winner].append(best)
            if last:
                scores[winner] += trolls
                trolls.clear()
        for card in cards:
            if card // 10 == GI:
                gnome = GN * 10 + card % 10
                for seat in OPPONENTS[self.players][winner]:
                    if gnome in gnomes[seat]:
                        gnomes[seat].remove(gnome)
        if last:
            for seat, front in enumerate(gnomes):
                scores[seat] += front
                front.clear()
        self._next_round(winner)

    def _dwarves_receiver(self, winner: int) -> int:
        """`powers.dwarves_receiver`: the loser with 2 players, else the lowest card,
        ties to the one played last."""
        if self.players == 2:
            return 1 - winner
        cards = self.trick_cards
        lowest = 0
        for at in range(1, len(cards)):
            if cards[at] % 10 <= cards[lowest] % 10:
                lowest = at
        return self.trick_seats[lowest]

    def _next_round(self, winner: int) -> None:
        """`rules._next_round`: who leads next (RULES.md 3 step 5); the next round,
        phase (RULES.md 5) or the end."""
        leader = winner
        for seat, card in zip(reversed(self.trick_seats), reversed(self.trick_cards), strict=True):
            if card // 10 == DR:
                leader = seat
                break
        self.trick_seats, self.trick_cards = [], []
        self.round += 1
        if self.round < self.hand_size:
            self._start_round(leader)
        elif self.phase == 1:
            self.phase, self.round = 2, 0
            self.hands = [sorted(pile) for pile in self.follower_piles]
            self.follower_piles = [[] for _ in range(self.players)]
            self._start_round(leader)
        else:
            self.leader, self.to_act = leader, None

    def _start_round(self, leader: int) -> None:
        """`rules._start_round`: in phase 1, the prizes turned up (RULES.md 4)."""
        self.leader = self.to_act = leader
        if self.phase == 1:
            draw = self.draw_pile
            self.prizes = [draw.pop()] if self.players == 2 else [draw.pop(), draw.pop()]

    def result(self) -> Result:
        """`scoring.result` of the finished game (RULES.md 7)."""
        winners, keys = self._scoring()
        factions = map(FACTION.get, self.factions)
        return Result(
            faction_winners=tuple(zip(factions, winners, strict=True)),
            side_keys=keys,
            winner=winning_side(keys),
        )

    def winner(self) -> int | None:
        """`result().winner`, for a search's many ends."""
        return winning_side(self._scoring()[1])

    def side_keys(self) -> tuple[tuple[int, int, int], ...]:
        """`result().side_keys`: each side's factions won, their cards and values."""
        return self._scoring()[1]

    def _scoring(self) -> tuple[list[int | None], tuple[tuple[int, int, int], ...]]:
        """Each faction's winning side (None: nobody), and each side's factions won,
        their cards and their values."""
        piles = [
            sorted(card for seat in side for card in self.score_piles[seat]) for side in self.sides
        ]
        winners = []
        keys = [[0, 0, 0] for _ in piles]
        for faction in self.factions:
            # `scoring.faction_winner`: most cards, then the higher values from the
            # top. A faction's cards are one run of a sorted pile.
            ranked = []
            for pile in piles:
                run = _run(pile, faction)
                ranked.append((len(run), run[::-1]))
            best = max(ranked)
            if best[0] and ranked.count(best) == 1:
                side = ranked.index(best)
                count, cards = best
                key = keys[side]
                key[0] += 1
                key[1] += count
                key[2] += sum(cards) - faction * 10 * count
                winners.append(side)
            else:
                winners.append(None)
        return winners, tuple(map(tuple, keys))

    def position(self) -> tuple:
        """Everything the rest of the game depends on, piles as multisets: equal for
        this game and `from_state` of the domain's state at the same step."""
        return (
            self.phase,
            self.round,
            self.leader,
            self.to_act,
            _frozen(self.hands),
            _frozen(self.follower_piles),
            _frozen(self.score_piles),
            _frozen(self.gnomes_in_front),
            tuple(sorted(self.trolls_aside)),
            tuple(self.draw_pile),
            tuple(self.prizes),
            tuple(zip(self.trick_seats, self.trick_cards, strict=True)),
            tuple(self.takers),
            self.seer_choice,
        )


def winning_at(cards: list[int]) -> int:
    """Where in a round's `cards` the winning card is (`powers.winning_play`: RULES.md
    3 and 6, Knights)."""
    led = cards[0] // 10
    if led == GO and any(card // 10 == KN for card in cards):
        best, high = -1, -1
        for at, card in enumerate(cards):
            if card // 10 == KN and card % 10 > high:
                best, high = at, card % 10
        return best
    best, high = 0, cards[0] % 10
    for at in range(1, len(cards)):
        card = cards[at]
        if card % 10 > high and card // 10 in (led, DO):
            best, high = at, card % 10
    return best


def _run(cards: list[int], faction: int) -> list[int]:
    """The cards of `faction` in the sorted `cards`."""
    start = bisect_left(cards, faction * 10)
    return cards[start : bisect_left(cards, faction * 10 + 10, start)]


def _indexes(piles) -> list[list[int]]:
    return [[card.index for card in pile] for pile in piles]


def _frozen(piles: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(sorted(pile)) for pile in piles)


def ranking(seats: list[int], cards: list[int], winner: int) -> list[int]:
    """`powers.ranking` of a round's plays (`seats[i]` played `cards[i]`): the winner,
    then Knights in a Goblin-led round, then the others who followed, then the rest;
    each highest value first."""
    led = cards[0] // 10
    others = []
    for order, (seat, card) in enumerate(zip(seats, cards, strict=True)):
        if seat != winner:
            faction = card // 10
            if faction in (led, DO):
                group = 1
            elif led == GO and faction == KN:
                group = 0
            else:
                group = 2
            others.append((group, -(card % 10), order, seat))
    others.sort()
    return [winner] + [key[3] for key in others]
