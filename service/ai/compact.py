"""A compact rules engine for the AI's searches: the game loop of RULES.md 3-7 on
small ints, changed in place.

The domain's `State` is an immutable value made of `Card` objects, as the event fold,
the API and the audit need it. A search only needs to play on, fast: here a card is
its `Card.index` (faction rank * 10 + value, so code order is int order and a
faction's cards are one run in a sorted hand), a decision an int (`PLAY` + card,
`TAKE` + card, `TAKE_DECK`), and a game a few lists changed in place, with `copy()`
for a search that branches. It keeps what the rest of the game depends on and drops
the history, the discard and the peek.

It is the domain's rules, not a second reading of RULES.md: bench/differential.py
plays a million random decisions through both and compares the legal decisions and
the whole position at every step, and tests/ai/test_compact.py replays the
conformance games through it. It checks nothing: a decision must be one of
`legal()`.
"""

from __future__ import annotations

from bisect import bisect_left

from service.domain import FACTION_CARDS, Decision, Faction, Result, Settings, State
from service.domain.deck import HAND_SIZE
from service.domain.rules import OPPONENTS
from service.domain.state import untaken

# Factions by rank: a card's faction is `card // 10`, its value `card % 10`.
_RANKED = sorted(Faction, key=lambda faction: faction.value)
RANK = {faction: rank for rank, faction in enumerate(_RANKED)}
DO, DR, DW, GI, GN, GO, KN, SE, TR, UN = (
    RANK[Faction(code)] for code in ("DO", "DR", "DW", "GI", "GN", "GO", "KN", "SE", "TR", "UN")
)
CARDS = {card.index: card for cards in FACTION_CARDS.values() for card in cards}

PLAY, TAKE, TAKE_DECK = 0, 100, 200
DECISIONS: dict[int, Decision] = {TAKE_DECK: Decision.take(None)}
for _index, _card in CARDS.items():
    DECISIONS[PLAY + _index] = Decision.play(_card)
    DECISIONS[TAKE + _index] = Decision.take(_card)
CODES: dict[Decision, int] = {decision: code for code, decision in DECISIONS.items()}


class CompactGame:
    """A game in play, or over (`to_act` None). Build one with `deal` or
    `from_state`; `legal()` and `apply(code)` as the domain's `legal_decisions` and
    `apply`, in codes; `result()` as the domain's `result`."""

    __slots__ = (
        "draw",
        "factions",
        "followers",
        "gnomes",
        "hands",
        "leader",
        "phase",
        "players",
        "prizes",
        "round",
        "round_winner",
        "scores",
        "seer",
        "size",
        "takers",
        "to_act",
        "trick_cards",
        "trick_seats",
        "trolls",
    )

    players: int
    size: int  # cards in a hand, rounds in a phase
    factions: tuple[int, ...]  # the settings' factions, as ranks
    phase: int
    round: int
    leader: int
    to_act: int | None
    hands: list[list[int]]  # each sorted
    followers: list[list[int]]
    scores: list[list[int]]
    draw: list[int]  # top last
    prizes: list[int]  # this round's prizes not taken yet, in the order turned up
    trick_seats: list[int]
    trick_cards: list[int]
    takers: list[int]  # seats still to get a prize or draw, in rank order
    seer: bool  # takers[0] won with a Seer and may take the draw pile's top card
    gnomes: list[list[int]]  # Gnomes in front of each seat
    trolls: list[int]  # Trolls set aside
    round_winner: int | None  # the round's winner, once every card is played

    @classmethod
    def deal(cls, settings: Settings, deck) -> CompactGame:
        """The game after the deal, as `new_game(settings, deck)` (unchecked: `deck`
        is every card of the settings' factions, top first, as `Card`s)."""
        game = cls._empty(settings)
        players, size = game.players, game.size
        indexes = [card.index for card in deck]
        game.hands = [sorted(indexes[seat * size : (seat + 1) * size]) for seat in range(players)]
        game.draw = indexes[players * size :][::-1]
        game.phase, game.round = 1, 0
        game._start_round(settings.first_leader)
        return game

    @classmethod
    def from_state(cls, state: State) -> CompactGame:
        """The domain's `state`, at any step."""
        game = cls._empty(state.settings)
        game.phase, game.round, game.leader, game.to_act = (
            state.phase,
            state.round,
            state.leader,
            state.to_act,
        )
        game.hands = _indexes(state.hands)
        game.followers = _indexes(state.follower_piles)
        game.scores = _indexes(state.score_piles)
        game.gnomes = _indexes(state.gnomes_in_front)
        game.draw = [card.index for card in reversed(state.draw_pile)]
        game.prizes = [card.index for card in untaken(state.prizes, state.acquired)]
        game.trick_seats = [play.seat for play in state.trick]
        game.trick_cards = [play.card.index for play in state.trick]
        game.takers = list(state.takers)
        game.seer, game.round_winner = state.seer_choice, state.winner
        game.trolls = [card.index for card in state.trolls_aside]
        return game

    @classmethod
    def _empty(cls, settings: Settings) -> CompactGame:
        game = object.__new__(cls)
        players = game.players = settings.players
        game.size = HAND_SIZE[players]
        game.factions = tuple(RANK[faction] for faction in settings.factions)
        game.followers = [[] for _ in range(players)]
        game.scores = [[] for _ in range(players)]
        game.gnomes = [[] for _ in range(players)]
        game.prizes, game.trick_seats, game.trick_cards = [], [], []
        game.takers, game.trolls, game.seer, game.round_winner = [], [], False, None
        return game

    def copy(self) -> CompactGame:
        """A game to play on without changing this one."""
        game = object.__new__(CompactGame)
        game.players, game.size, game.factions = self.players, self.size, self.factions
        game.phase, game.round, game.leader, game.to_act = (
            self.phase,
            self.round,
            self.leader,
            self.to_act,
        )
        game.hands = list(map(list.copy, self.hands))
        game.scores = list(map(list.copy, self.scores))
        game.gnomes = list(map(list.copy, self.gnomes))
        game.trick_seats, game.trick_cards = self.trick_seats[:], self.trick_cards[:]
        game.trolls, game.seer, game.round_winner = self.trolls[:], self.seer, self.round_winner
        if self.phase == 1:
            game.followers = list(map(list.copy, self.followers))
            game.draw, game.prizes, game.takers = self.draw[:], self.prizes[:], self.takers[:]
        else:  # shared: phase 2 leaves them as they are (empty but the draw pile's rest)
            game.followers, game.draw = self.followers, self.draw
            game.prizes, game.takers = self.prizes, self.takers
        return game

    def legal(self) -> list[int]:
        """The codes of `legal_decisions`, in its order."""
        if self.takers:
            codes = [TAKE + card for card in sorted(set(self.prizes))]
            if self.seer:
                codes.append(TAKE_DECK)
            return codes
        hand = self.hands[self.to_act]
        if self.trick_cards:
            # The follow rule (RULES.md 3 step 2). Doppelgangers rank first: they are
            # the hand's first cards, and the led faction's cards one run after them.
            led = self.trick_cards[0] // 10
            doppelgangers = bisect_left(hand, 10)
            if led == DO:
                if doppelgangers:
                    hand = hand[:doppelgangers]
            else:
                start = bisect_left(hand, led * 10, doppelgangers)
                end = bisect_left(hand, led * 10 + 10, start)
                if end > start:
                    hand = hand[:doppelgangers] + hand[start:end]
        return list(dict.fromkeys(hand))  # PLAY is 0: a card is its play's code

    def apply(self, code: int) -> None:
        """Make the decision `code`, one of `legal()`."""
        if code < TAKE:
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
        if code == TAKE_DECK:
            self._acquire(self.draw.pop())
        else:
            self.prizes.remove(code - TAKE)
            self._acquire(code - TAKE)
        self.seer = False
        self._hand_out()

    def _finish_phase1_play(self) -> None:
        """RULES.md 4 and 6 (Undead, Seers): score Undead, rank the takers."""
        at = winning_at(self.trick_cards)
        winner = self.trick_seats[at]
        cards = self.trick_cards
        for card in cards:
            if card // 10 == UN:
                self.scores[winner].append(card)
        if self.players == 2:
            self.takers = [winner, 1 - winner]
        else:
            self.takers = self._ranking(winner)
        if cards[at] // 10 == SE:
            self.seer = True
        self.round_winner = winner
        self._hand_out()

    def _ranking(self, winner: int) -> list[int]:
        """`powers.ranking`: the winner, then Knights in a Goblin-led round, then the
        others who followed, then the rest; each highest value first."""
        cards = self.trick_cards
        led = cards[0] // 10
        others = []
        for order, (seat, card) in enumerate(zip(self.trick_seats, cards, strict=True)):
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

    def _hand_out(self) -> None:
        """Give the next takers their prize or draw until someone has a choice."""
        takers, prizes = self.takers, self.prizes
        while takers:
            if self.seer or len(prizes) > 1:
                self.to_act = takers[0]
                return
            self._acquire(prizes.pop(0) if prizes else self.draw.pop())
        self._next_round(self.round_winner)

    def _acquire(self, card: int) -> None:
        self.followers[self.takers.pop(0)].append(card)

    def _finish_phase2_round(self) -> None:
        """`powers.resolve_phase2`: RULES.md 5 and 6."""
        seats, cards = self.trick_seats, self.trick_cards
        winner = seats[winning_at(self.trick_cards)]
        scores, gnomes, trolls = self.scores, self.gnomes, self.trolls
        last = self.round == self.size - 1
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
        """RULES.md 3 step 5 and 5: who leads next; the next round, phase or the end."""
        leader = winner
        for seat, card in zip(reversed(self.trick_seats), reversed(self.trick_cards), strict=True):
            if card // 10 == DR:
                leader = seat
                break
        self.trick_seats, self.trick_cards = [], []
        self.round += 1
        if self.round < self.size:
            self._start_round(leader)
        elif self.phase == 1:
            self.phase, self.round = 2, 0
            self.hands = [sorted(pile) for pile in self.followers]
            self.followers = [[] for _ in range(self.players)]
            self._start_round(leader)
        else:
            self.leader, self.to_act = leader, None

    def _start_round(self, leader: int) -> None:
        self.leader = self.to_act = leader
        if self.phase == 1:
            draw = self.draw
            self.prizes = [draw.pop()] if self.players == 2 else [draw.pop(), draw.pop()]

    def result(self) -> Result:
        """The domain's `result` of the finished game (RULES.md 7)."""
        winners, keys = self._scoring()
        best = max(keys)
        factions = (_RANKED[faction] for faction in self.factions)
        return Result(
            faction_winners=tuple(zip(factions, winners, strict=True)),
            side_keys=keys,
            winner=keys.index(best) if keys.count(best) == 1 else None,
        )

    def winner(self) -> int | None:
        """`result().winner`, for a search's many ends."""
        keys = self._scoring()[1]
        best = max(keys)
        return keys.index(best) if keys.count(best) == 1 else None

    def _scoring(self) -> tuple[list[int | None], tuple[tuple[int, int, int], ...]]:
        """Each faction's winning side (None: nobody), and each side's factions won,
        their cards and their values."""
        players = self.players
        if players == 4:
            piles = [
                sorted(self.scores[0] + self.scores[2]),
                sorted(self.scores[1] + self.scores[3]),
            ]
        else:
            piles = [sorted(pile) for pile in self.scores]
        winners = []
        keys = [[0, 0, 0] for _ in piles]
        for faction in self.factions:
            # Most cards, then the higher values from the top (RULES.md 7). A faction's
            # cards are one run of a sorted pile.
            ranked = []
            for pile in piles:
                start = bisect_left(pile, faction * 10)
                end = bisect_left(pile, faction * 10 + 10, start)
                ranked.append((end - start, pile[start:end][::-1]))
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
            _frozen(self.followers),
            _frozen(self.scores),
            _frozen(self.gnomes),
            tuple(sorted(self.trolls)),
            tuple(self.draw),
            tuple(self.prizes),
            tuple(zip(self.trick_seats, self.trick_cards, strict=True)),
            tuple(self.takers),
            self.seer,
        )


def winning_at(cards: list[int]) -> int:
    """Where in a round's `cards` the winning card is (`powers.winning_play`: RULES.md
    3 and 6, Knights)."""
    led = cards[0] // 10
    best, high = 0, cards[0] % 10
    if led == GO and any(card // 10 == KN for card in cards):
        best, high = -1, -1
        for at, card in enumerate(cards):
            if card // 10 == KN and card % 10 > high:
                best, high = at, card % 10
        return best
    for at in range(1, len(cards)):
        card = cards[at]
        if card % 10 > high and (card // 10 == led or card < 10):  # < 10: Doppelganger
            best, high = at, card % 10
    return best


def _indexes(piles) -> list[list[int]]:
    return [[card.index for card in pile] for pile in piles]


def _frozen(piles: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(sorted(pile)) for pile in piles)
