"""Starting a game, the legal decisions and applying one: the game loop of RULES.md
sections 3-6.

`apply` is pure: it returns a new `State` and never changes its input.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from .cards import CODE_ORDER, DOPPELGANGERS, FACTION_CARDS, SEERS, Card, Faction
from .decisions import PLAY, PLAY_DECISION, TAKE_DECISION, TAKE_DECK, Decision
from .deck import HAND_SIZE, check_deck
from .errors import GameOver, IllegalDecision, NotYourTurn
from .powers import Table, next_leader, phase1_cards, ranking, resolve_phase2, winning_play
from .state import (
    DECK,
    DRAW,
    PRIZE,
    Acquisition,
    Play,
    RoundRecord,
    Settings,
    State,
    deal,
    side_of,
    untaken,
)

_new_tuple = tuple.__new__
# The seats of the other sides, by player count and seat (RULES.md 2).
OPPONENTS = {
    players: tuple(
        tuple(
            other for other in range(players) if side_of(players, other) != side_of(players, seat)
        )
        for seat in range(players)
    )
    for players in HAND_SIZE
}
_HANDS = State._fields.index("hands")
_TRICK = State._fields.index("trick")
_TO_ACT = State._fields.index("to_act")


def new_game(settings: Settings, deck) -> State:
    """The state after the deal, with the first round's prizes turned up.

    `deck` is every card of the settings' factions, top first, as codes or `Card`s.
    """
    cards = check_deck(settings.factions, deck)
    hands, draw_pile = deal(settings, cards)
    empty = ((),) * settings.players
    state = State(
        settings=settings,
        deck=cards,
        phase=1,
        round=0,
        leader=settings.first_leader,
        to_act=settings.first_leader,
        hands=hands,
        follower_piles=empty,
        score_piles=empty,
        draw_pile=draw_pile,
        discard=(),
        prizes=(),
        trick=(),
        winner=None,
        takers=(),
        seer_choice=False,
        acquired=(),
        peek=None,
        gnomes_in_front=empty,
        trolls_aside=(),
        removed=(),
        rounds=(),
    )
    draft = _Draft(state)
    _start_round(draft, settings.first_leader)
    return draft.freeze()


def is_over(state: State) -> bool:
    return state.to_act is None


def legal_decisions(state: State) -> tuple[Decision, ...]:
    """Every decision the acting seat may make now, without repeats, sorted by text."""
    seat = state.to_act
    if seat is None:
        return ()
    if state.takers:
        prizes = sorted(untaken(state.prizes, state.acquired), key=CODE_ORDER)
        decisions = tuple(dict.fromkeys(TAKE_DECISION[card] for card in prizes))
        return decisions + (TAKE_DECK,) if state.seer_choice else decisions
    # Hands are kept in code order, so the plays come out sorted.
    led = state.trick[0].card.faction if state.trick else None
    return tuple(dict.fromkeys(map(_PLAY_OF, playable(state.hands[seat], led))))


_PLAY_OF = PLAY_DECISION.__getitem__


def playable(hand: Sequence[Card], led: Faction | None) -> tuple[Card, ...]:
    """The cards of `hand` that may be played after a lead of `led` (None: to lead,
    any card). RULES.md 3 step 2, the follow rule: a player holding the led faction
    plays it or a Doppelganger; when Doppelgangers are led, a player holding one plays
    one."""
    hand = tuple(hand)
    if led is None or _CARDS_OF[led].isdisjoint(hand):
        return hand
    return tuple(filter(_FOLLOWERS[led].__contains__, hand))


# Sets of cards, so that the follow rule asks in C what a hand holds: three times as
# fast as testing each card's faction in Python. Each faction's cards:
_CARDS_OF: dict[Faction, frozenset[Card]] = {
    faction: frozenset(cards) for faction, cards in FACTION_CARDS.items()
}
# The cards that a player holding the led faction may play, by led faction:
_FOLLOWERS: dict[Faction, frozenset[Card]] = {
    led: _CARDS_OF[led] | _CARDS_OF[DOPPELGANGERS] for led in Faction
}


def _position(hand: tuple[Card, ...], card: Card) -> int | None:
    """Where `card` is in `hand`, or None.

    Hands are kept in code order, so a bisection on the cards' indexes finds it
    comparing ints. `hand.index` compares cards, each through Card's Python-level
    `__lt__` slot: that was a tenth of bench/engine.py's instructions (callgrind).
    The scan stays for a hand out of order.
    """
    at = bisect_left(hand, card.index, key=CODE_ORDER)
    if at < len(hand) and hand[at] is card:
        return at
    return hand.index(card) if card in hand else None


def _follows_rule(hand: tuple[Card, ...], trick: tuple[Play, ...], card: Card) -> bool:
    """Whether the follow rule allows `card` from `hand`: `playable` without building
    the list, for `apply`'s check."""
    if not trick:
        return True
    led = trick[0].card.faction
    faction = card.faction
    if faction is led:
        return True
    if led is DOPPELGANGERS:
        return _CARDS_OF[DOPPELGANGERS].isdisjoint(hand)
    return faction is DOPPELGANGERS or _CARDS_OF[led].isdisjoint(hand)


def _may_take(state: State, card: Card | None) -> bool:
    if not state.takers:
        return False
    if card is None:
        return state.seer_choice
    return card in untaken(state.prizes, state.acquired)


def apply(state: State, decision: Decision | str, seat: int | None = None) -> State:
    """The state after the acting seat makes `decision` (a `Decision` or its text).

    With `seat`, also checks that it is that seat's turn. Raises `GameOver`,
    `NotYourTurn`, `IllegalDecision` (with the reason) or `MalformedDecision`, and
    changes nothing.
    """
    decision, at = _checked(state, decision, seat)
    if at is not None:
        return _play(state, state.to_act, at)
    draft = _Draft(state)
    _take(draft, decision.card)
    return draft.freeze()


class Replay:
    """A state taken through many decisions in a row, each checked as `apply` checks
    it: `state()` is what `apply` after `apply` would give. For folding a game's
    events: `apply` copies a state for every decision, a replay once; a decision
    refused changes nothing, as with `apply`."""

    __slots__ = ("_draft",)

    def __init__(self, state: State):
        self._draft = _Draft(state)

    @property
    def to_act(self) -> int | None:
        return self._draft.to_act

    def legal_decisions(self) -> tuple[Decision, ...]:
        return legal_decisions(self._draft)  # a draft has every field a State has

    def apply(self, decision: Decision | str, seat: int | None = None) -> None:
        draft = self._draft
        decision, at = _checked(draft, decision, seat)
        if at is not None:
            _play_on(draft, draft.to_act, at)
        else:
            _take(draft, decision.card)

    def state(self) -> State:
        return self._draft.freeze()


def _checked(state: State | _Draft, decision: Decision | str, seat: int | None):
    """`decision` (parsed) and, for a play, where its card is in the hand (None for a
    take), if the acting seat may make it; else the error `apply` raises."""
    if isinstance(decision, str):
        decision = Decision.parse(decision)
    acting = state.to_act
    if acting is None:
        raise GameOver("the game is over")
    if seat is not None and seat != acting:
        raise NotYourTurn(f"it is seat {acting}'s turn, not seat {seat}'s")
    card = decision.card
    if decision.kind is PLAY:
        hand = state.hands[acting]
        at = _position(hand, card)
        if state.takers or at is None or not _follows_rule(hand, state.trick, card):
            raise IllegalDecision(_why_illegal(state, decision))
        return decision, at
    if not _may_take(state, card):
        raise IllegalDecision(_why_illegal(state, decision))
    return decision, None


def _why_illegal(state: State | _Draft, decision: Decision) -> str:
    seat = state.to_act
    if state.takers:
        if decision.kind is PLAY:
            return f"seat {seat} must take a prize now, not play a card"
        if decision.card is None:
            return f"seat {seat} did not win with a Seer: no Seer choice pending"
        prizes = " or ".join(card.code for card in untaken(state.prizes, state.acquired))
        return f"{decision.card} is not a prize now; take {prizes}"
    if decision.kind is not PLAY:
        return f"seat {seat} must play a card now; there is nothing to take"
    hand = state.hands[seat]
    if decision.card not in hand:
        return f"{decision.card} is not in seat {seat}'s hand"
    led = state.trick[0].card.faction
    return f"{must_follow(led, state.settings.factions)}: seat {seat} holds one"


def must_follow(led: Faction, factions) -> str:
    """Why a card of another faction may not follow a lead of `led` when its player
    holds one of `led` (RULES.md 3 step 2), in a game of `factions` (a Doppelganger is
    the way out only where there are Doppelgangers)."""
    if led is DOPPELGANGERS:
        return "must follow Doppelgangers"
    if DOPPELGANGERS in factions:
        return f"must follow {led.title} (or play a Doppelganger)"
    return f"must follow {led.title}"


class _Draft:
    """A private, mutable copy of a `State`, for the steps that change many fields at
    once (the end of a round): one copy and one freeze instead of a `_replace` per
    change, which made round ends the engine's largest cost (bench/engine.py)."""

    __slots__ = State._fields

    def __init__(self, state: State):
        (
            self.settings,
            self.deck,
            self.phase,
            self.round,
            self.leader,
            self.to_act,
            self.hands,
            self.follower_piles,
            self.score_piles,
            self.draw_pile,
            self.discard,
            self.prizes,
            self.trick,
            self.winner,
            self.takers,
            self.seer_choice,
            self.acquired,
            self.peek,
            self.gnomes_in_front,
            self.trolls_aside,
            self.removed,
            self.rounds,
        ) = state  # in State._fields order, as freeze() puts them back

    def freeze(self) -> State:
        # Field by field: nearly twice as fast as an attrgetter of every field.
        return _new_tuple(
            State,
            (
                self.settings,
                self.deck,
                self.phase,
                self.round,
                self.leader,
                self.to_act,
                self.hands,
                self.follower_piles,
                self.score_piles,
                self.draw_pile,
                self.discard,
                self.prizes,
                self.trick,
                self.winner,
                self.takers,
                self.seer_choice,
                self.acquired,
                self.peek,
                self.gnomes_in_front,
                self.trolls_aside,
                self.removed,
                self.rounds,
            ),
        )


def _play(state: State, seat: int, at: int) -> State:
    """`seat` plays the card at `at` in its hand."""
    hand = state.hands[seat]
    if len(state.trick) + 1 < len(state.hands):
        # The commonest step, built field by field: _replace costs 3 times as much.
        hands = list(state.hands)
        hands[seat] = hand[:at] + hand[at + 1 :]
        fields = list(state)
        fields[_HANDS] = tuple(hands)
        fields[_TRICK] = state.trick + (_new_tuple(Play, (seat, hand[at])),)  # Play(), faster
        fields[_TO_ACT] = (seat + 1) % len(hands)
        return _new_tuple(State, fields)
    draft = _Draft(state)
    _play_on(draft, seat, at)
    return draft.freeze()


def _play_on(draft: _Draft, seat: int, at: int) -> None:
    """`_play` on a draft."""
    hand = draft.hands[seat]
    hands = list(draft.hands)
    hands[seat] = hand[:at] + hand[at + 1 :]
    draft.hands = tuple(hands)
    draft.trick += (_new_tuple(Play, (seat, hand[at])),)
    if len(draft.trick) < len(hands):
        draft.to_act = (seat + 1) % len(hands)
    elif draft.phase == 1:
        _finish_phase1_play(draft)
    else:
        _finish_phase2_round(draft)


def _take(draft: _Draft, prize: Card | None) -> None:
    """`takers[0]` takes `prize`, or the draw pile's top card (None)."""
    if prize is None:
        _acquire(draft, draft.draw_pile[0], DECK)
    else:
        _acquire(draft, prize, PRIZE)
    draft.seer_choice = False
    _hand_out(draft)


def _finish_phase1_play(draft: _Draft) -> None:
    """Every card of a phase-1 round is down: score Undead, discard the rest, then
    hand out the prizes and draws (RULES.md 4)."""
    win = winning_play(draft.trick)
    winner = draft.winner = win.seat
    undead, discarded = phase1_cards(draft.trick)
    if undead:
        score_piles = list(draft.score_piles)
        score_piles[winner] += tuple(undead)
        draft.score_piles = tuple(score_piles)
    draft.discard += tuple(discarded)
    if len(draft.hands) == 2:
        draft.takers = (winner, 1 - winner)
    else:
        draft.takers = ranking(draft.trick, winner)
    # RULES.md 6, Seers: a win with a Seer (not a Doppelganger) shows the winner the
    # draw pile's top card and lets them take it instead of a prize.
    if win.card.faction is SEERS:
        draft.seer_choice = True
        draft.peek = Play(winner, draft.draw_pile[0])
    _hand_out(draft)


def _hand_out(draft: _Draft) -> None:
    """Give the next takers their prize or draw until someone has a choice to make."""
    remaining = untaken(draft.prizes, draft.acquired)
    while draft.takers:
        if draft.seer_choice or len(remaining) > 1:
            draft.to_act = draft.takers[0]
            return
        if remaining:
            _acquire(draft, remaining[0], PRIZE)
            remaining = ()
        else:
            _acquire(draft, draft.draw_pile[0], DRAW)
    _next_round(draft)


def _acquire(draft: _Draft, card: Card, source: str) -> None:
    """`takers[0]` puts `card` on their follower pile."""
    seat = draft.takers[0]
    piles = list(draft.follower_piles)
    piles[seat] += (card,)
    draft.follower_piles = tuple(piles)
    if source != PRIZE:
        draft.draw_pile = draft.draw_pile[1:]
    draft.takers = draft.takers[1:]
    draft.acquired += (_new_tuple(Acquisition, (seat, card, source)),)


def _finish_phase2_round(draft: _Draft) -> None:
    """RULES.md 5 and 6: the winner scores the round, powers permitting."""
    players = len(draft.hands)
    winner = draft.winner = winning_play(draft.trick).seat
    table = Table(draft.score_piles, draft.gnomes_in_front, draft.trolls_aside, draft.removed)
    last = draft.round == HAND_SIZE[players] - 1
    removed = resolve_phase2(table, draft.trick, winner, OPPONENTS[players][winner], last)
    draft.score_piles = tuple(table.score_piles)
    draft.gnomes_in_front = tuple(table.gnomes_in_front)
    draft.trolls_aside = tuple(table.trolls_aside)
    draft.removed = tuple(table.removed)
    _next_round(draft, removed)


def _next_round(draft: _Draft, removed: tuple[Play, ...] = ()) -> None:
    """Record the finished round and start the next one, or the next phase, or end."""
    # RoundRecord(phase, number, leader, plays, winner, prizes, acquired, peek,
    # removed) built as a plain tuple, like Play in _play: a tenth of the cost of
    # the call with keywords.
    record = _new_tuple(
        RoundRecord,
        (
            draft.phase,
            draft.round,
            draft.leader,
            draft.trick,
            draft.winner,
            draft.prizes,
            draft.acquired,
            draft.peek,
            removed,
        ),
    )
    leader = next_leader(draft.trick, draft.winner)
    draft.rounds += (record,)
    draft.trick = draft.prizes = draft.acquired = ()
    draft.winner = draft.peek = None
    draft.round += 1
    if draft.round < HAND_SIZE[len(draft.hands)]:
        _start_round(draft, leader)
    elif draft.phase == 1:
        # RULES.md 5: follower piles become hands; the last round's leader rule carries over.
        draft.phase = 2
        draft.round = 0
        draft.hands = tuple(tuple(sorted(pile, key=CODE_ORDER)) for pile in draft.follower_piles)
        draft.follower_piles = ((),) * len(draft.hands)
        _start_round(draft, leader)
    else:
        draft.leader = leader
        draft.to_act = None


def _start_round(draft: _Draft, leader: int) -> None:
    """Set the leader and, in phase 1, turn up the prizes (RULES.md 4)."""
    draft.leader = draft.to_act = leader
    if draft.phase == 1:
        count = 1 if len(draft.hands) == 2 else 2
        draft.prizes = draft.draw_pile[:count]
        draft.draw_pile = draft.draw_pile[count:]
