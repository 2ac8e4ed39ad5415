"""What one seat may see of a game: exactly RULES.md section 8.

Public: prizes, every played card, discard, score piles, Gnomes in front, set-aside
Trolls, the sizes of hands, follower piles and the draw pile, which prize each seat
took. Private to a seat: its hand, its follower pile, the cards it drew, the card a
Seer showed it. Nobody sees the draw pile's order or another seat's hand or draws,
partners included. After the game everything is public.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import DOPPELGANGERS, Card, Faction
from .decisions import PLAY, Decision
from .rules import legal_decisions, must_follow
from .scoring import Result, result
from .state import PRIZE, Acquisition, Play, RoundRecord, State, side_of


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view of a game (`seat` None: a spectator's public view).

    A hidden card shows as None: in `acquired` and in `rounds`, the card another seat
    drew or took from the draw pile.
    """

    seat: int | None
    players: int
    factions: tuple[Faction, ...]
    phase: int
    round: int
    leader: int
    to_act: int | None
    hand: tuple[Card, ...]  # the seat's own hand; empty for a spectator
    follower_pile: tuple[Card, ...]  # the seat's own follower pile
    peek: Card | None  # the draw pile's top card, while this seat's Seer choice is pending
    legal: tuple[Decision, ...]  # the seat's legal decisions when it is to act
    hand_sizes: tuple[int, ...]
    follower_pile_sizes: tuple[int, ...]
    draw_pile_size: int
    prizes: tuple[Card, ...]  # this round's prizes
    trick: tuple[Play, ...]  # this round's cards so far
    acquired: tuple[Acquisition, ...]  # this round's prizes and draws so far
    discard: tuple[Card, ...]
    score_piles: tuple[tuple[Card, ...], ...]
    gnomes_in_front: tuple[tuple[Card, ...], ...]
    trolls_aside: tuple[Card, ...]
    removed: tuple[Card, ...]
    rounds: tuple[RoundRecord, ...]
    deck: tuple[Card, ...] | None  # the deck order, once the game is over
    result: Result | None  # once the game is over

    @property
    def side(self) -> int | None:
        """The seat's side (its team with 4 players); None for a spectator."""
        return None if self.seat is None else side_of(self.players, self.seat)


def observe(state: State, seat: int | None = None) -> Observation:
    """What `seat` may see of `state` (None: what anybody may see)."""
    over = state.to_act is None
    if seat is not None and seat not in range(state.players):
        raise ValueError(f"no seat {seat!r} in a {state.players}-player game")
    own = seat is not None
    peek = state.peek
    return Observation(
        seat=seat,
        players=state.players,
        factions=state.settings.factions,
        phase=state.phase,
        round=state.round,
        leader=state.leader,
        to_act=state.to_act,
        hand=state.hands[seat] if own else (),
        follower_pile=state.follower_piles[seat] if own else (),
        peek=peek.card if peek and state.seer_choice and peek.seat == seat else None,
        legal=legal_decisions(state) if own and state.to_act == seat else (),
        hand_sizes=tuple(map(len, state.hands)),
        follower_pile_sizes=tuple(map(len, state.follower_piles)),
        draw_pile_size=len(state.draw_pile),
        prizes=state.prizes,
        trick=state.trick,
        acquired=state.acquired if over else _redact_acquired(state.acquired, seat),
        discard=state.discard,
        score_piles=state.score_piles,
        gnomes_in_front=state.gnomes_in_front,
        trolls_aside=state.trolls_aside,
        removed=state.removed,
        rounds=state.rounds if over else tuple(_redact_round(r, seat) for r in state.rounds),
        deck=state.deck if over else None,
        result=result(state) if over else None,
    )


def unplayable(observation: Observation) -> dict[Card, str]:
    """The cards of the observing seat's hand that it may not play now, each with the
    reason in words, told to the seat itself: every card while it must take a prize
    first, else those the follow rule forbids; empty unless the seat is to act. Read
    from its observation only, so it tells of the seat's own hand and the public
    trick, nothing else (RULES.md 8)."""
    if observation.seat is None or observation.to_act != observation.seat:
        return {}
    playable = {decision.card for decision in observation.legal if decision.kind == PLAY}
    if not playable:
        first = "a prize or the draw pile's top card" if observation.peek else "a prize"
        return dict.fromkeys(observation.hand, f"take {first} first")
    if not observation.trick:
        return {}  # the leader plays any card
    led = observation.trick[0].card.faction
    reason = must_follow(led, observation.factions)
    if led is DOPPELGANGERS:
        reason += ": you hold one"
    return {card: reason for card in observation.hand if card not in playable}


def _redact_acquired(acquired: tuple[Acquisition, ...], seat: int | None) -> tuple:
    return tuple(
        a if a.source == PRIZE or a.seat == seat else a._replace(card=None) for a in acquired
    )


def _redact_round(record: RoundRecord, seat: int | None) -> RoundRecord:
    if record.phase == 2:
        return record
    peek = record.peek if record.peek and record.peek.seat == seat else None
    return record._replace(acquired=_redact_acquired(record.acquired, seat), peek=peek)
