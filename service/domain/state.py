"""The game's settings and its complete state, immutable values.

A `State` holds everything, hidden cards included: never show one to a player; show
`observe(state, seat)` instead. States are built by `new_game` and `apply` in
`rules.py`, never by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .cards import CODE_ORDER, Card, Faction
from .deck import HAND_SIZE, check_factions, check_players
from .errors import InvalidSettings

# Sources of a card that joins a follower pile in phase 1 (RULES.md 4 and 6, Seers).
PRIZE = "prize"  # a face-up prize: public
DECK = "deck"  # the draw pile's top card, taken after a Seer win: only the taker sees it
DRAW = "draw"  # the draw pile's top card, drawn: only the drawer sees it


@dataclass(frozen=True, slots=True)
class Settings:
    """What a game is played with: player count, factions and the first leader."""

    players: int
    factions: tuple[Faction, ...]
    first_leader: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "factions", check_factions(self.players, self.factions))
        if self.first_leader not in range(self.players) or isinstance(self.first_leader, bool):
            raise InvalidSettings(
                f"the first leader is a seat from 0 to {self.players - 1},"
                f" not {self.first_leader!r}"
            )

    @property
    def hand_size(self) -> int:
        """Cards dealt to each seat, and rounds in each phase."""
        return HAND_SIZE[self.players]

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        """The seats of each side: one seat each, or seats 0+2 and 1+3 with 4 players."""
        if self.players == 4:
            return ((0, 2), (1, 3))
        return tuple((seat,) for seat in range(check_players(self.players)))

    def side_of(self, seat: int) -> int:
        return side_of(self.players, seat)


def side_of(players: int, seat: int) -> int:
    """The side of `seat` (RULES.md 2): the seat itself, or its team (seats 0+2 are
    side 0, seats 1+3 side 1) with 4 players."""
    return seat % 2 if players == 4 else seat


class Play(NamedTuple):
    """A card played by a seat in a round."""

    seat: int
    card: Card


class Acquisition(NamedTuple):
    """A card that joined a seat's follower pile in phase 1, and how (PRIZE, DECK, DRAW)."""

    seat: int
    card: Card
    source: str


class RoundRecord(NamedTuple):
    """What happened in one finished round: the public account plus the private cards
    (draws and Seer peeks) that `observe` redacts for other seats."""

    phase: int
    number: int  # 0-based within its phase
    leader: int
    plays: tuple[Play, ...]
    winner: int
    prizes: tuple[Card, ...] = ()
    acquired: tuple[Acquisition, ...] = ()
    peek: Play | None = None  # the Seer winner and the top card it saw
    removed: tuple[Play, ...] = ()  # Gnomes removed by Giants: the seat that lost each


class State(NamedTuple):
    """The whole game at one moment. Immutable: `apply` returns a new one."""

    settings: Settings
    deck: tuple[Card, ...]  # the order dealt from, top first
    phase: int  # 1 recruiting followers, 2 winning factions
    round: int  # 0-based within the phase
    leader: int
    to_act: int | None  # None once the game is over
    hands: tuple[tuple[Card, ...], ...]  # each in code order
    follower_piles: tuple[tuple[Card, ...], ...]
    score_piles: tuple[tuple[Card, ...], ...]
    draw_pile: tuple[Card, ...]  # top first
    discard: tuple[Card, ...]
    prizes: tuple[Card, ...]  # revealed this round (phase 1)
    trick: tuple[Play, ...]  # the cards of this round so far
    winner: int | None  # the round's winner once every card is played
    takers: tuple[int, ...]  # seats still to get a prize or draw this round, in rank order
    seer_choice: bool  # takers[0] won with a Seer and may take the draw pile's top card
    acquired: tuple[Acquisition, ...]  # this round's prizes and draws so far
    peek: Play | None  # this round's Seer winner and the draw pile's top card it saw
    gnomes_in_front: tuple[tuple[Card, ...], ...]
    trolls_aside: tuple[Card, ...]
    removed: tuple[Card, ...]  # Gnomes removed from the game by Giants
    rounds: tuple[RoundRecord, ...]  # every finished round, oldest first

    @property
    def players(self) -> int:
        return self.settings.players

    @property
    def round_leaders(self) -> tuple[int, ...]:
        """The leader of every round so far, phase 1 then phase 2."""
        current = () if self.to_act is None else (self.leader,)
        return tuple(record.leader for record in self.rounds) + current

    @property
    def remaining_prizes(self) -> tuple[Card, ...]:
        """This round's prizes that nobody has taken yet."""
        return untaken(self.prizes, self.acquired)


def untaken(prizes: tuple[Card, ...], acquired: tuple[Acquisition, ...]) -> tuple[Card, ...]:
    """The prizes that no acquisition took."""
    if not acquired:
        return prizes
    remaining = list(prizes)
    for acquisition in acquired:
        if acquisition.source == PRIZE:
            remaining.remove(acquisition.card)
    return tuple(remaining)


def deal(
    settings: Settings, deck: tuple[Card, ...]
) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...]]:
    """The hands (seat 0 takes the first cards) and the draw pile, RULES.md 2."""
    size = settings.hand_size
    hands = tuple(
        tuple(sorted(deck[seat * size : (seat + 1) * size], key=CODE_ORDER))
        for seat in range(settings.players)
    )
    return hands, deck[settings.players * size :]
