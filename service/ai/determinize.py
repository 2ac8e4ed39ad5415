"""Determinization: whole game states that one seat cannot tell from the real one.

A seat sees its own cards and everything public (RULES.md 8); the other cards lie in
other hands, in other follower piles (draws) and in the draw pile. `sample_state`
deals those hidden cards at random, uniformly among the deals that agree with all the
seat knows: cards it saw, cards a Seer showed it, and factions a seat lacks because
it did not follow them. The state is then built by replaying the game's public
decisions from the deck order that deal implies, so the rules engine itself vouches
for it, and `observe(sampled, seat)` equals the observation it came from. `worlds`
replays them on the compiled engine instead, for the expert's rollouts.

The deals are drawn by compiled code (`compiled.sample_deck`): a `Plan` reads the
observation once (the hidden cards by group of the seats that may hold them, the tree
of their consistent deals with each branch's share, the deck order as far as the seat
knows it, the public decisions), and each deal then costs a few microseconds.

Other seats' decisions are taken as uninformative (beyond the follow rule), as in
any determinized search.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from functools import cache
from math import comb
from typing import NamedTuple

import numpy as np

from service.domain import (
    Acquisition,
    Card,
    Decision,
    Faction,
    Observation,
    Play,
    Settings,
    State,
    apply,
    new_game,
)
from service.domain.state import DECK, PRIZE

from .codes import CARDS
from .knowledge import known_followers, lacking, outstanding


class Hidden(NamedTuple):
    """The cards a seat cannot place, and where they may be."""

    cards: tuple[Card, ...]  # every card whose place the seat does not know
    hand_sizes: tuple[int, ...]  # per seat: how many of its hand's cards are hidden
    lacks: tuple[frozenset[Faction], ...]  # per seat: factions its hand cannot hold
    free: int  # hidden cards in unconstrained places: draws in follower piles, draw pile


def hidden(observation: Observation) -> Hidden:
    """What `observation.seat` does not know, and the constraints on it."""
    seat = observation.seat
    if seat is None:
        raise ValueError("a spectator's view cannot be determinized")
    cards = outstanding(observation)
    known = known_followers(observation)
    hand_sizes = list(observation.hand_sizes)
    hand_sizes[seat] = 0
    if observation.phase == 2:
        # Follower piles became hands: the known ones not yet played are in hand.
        played = _phase2_plays(observation)
        for other in _others(observation):
            in_hand = Counter(known[other]) - played[other]
            cards -= in_hand
            hand_sizes[other] -= in_hand.total()
    total = cards.total()
    free = total - sum(hand_sizes)
    if free < 0:
        raise ValueError("the observation is inconsistent: more hidden places than cards")
    return Hidden(
        cards=tuple(sorted(cards.elements())),
        hand_sizes=tuple(hand_sizes),
        lacks=lacking(observation),
        free=free,
    )


def sample_state(observation: Observation, rng: random.Random) -> State:
    """A whole game state that `observation.seat` cannot tell from the real one,
    with the hidden cards dealt uniformly at random among the consistent deals."""
    return next(states(observation, rng))


def states(observation: Observation, rng: random.Random):
    """Endless independent `sample_state`s of one observation, sharing the work of
    reading it."""
    for settings, deck in decks(observation, rng):
        yield _replayed(observation, new_game(settings, deck))


def decks(observation: Observation, rng: random.Random):
    """Endless (settings, deck order) that the seat cannot tell from the real game's,
    the hidden cards dealt uniformly at random among the consistent deals."""
    from . import compiled  # numba: only processes that search load it (see `compiled`)

    plan = Plan.of(observation)
    generator = compiled.generator(rng.getrandbits(64))
    while True:
        deck = compiled.sample_deck(plan.sampling, generator)
        yield plan.settings, [CARDS[index] for index in deck]


def worlds(observation: Observation, rng: random.Random):
    """`states` as the expert's rollouts play them: game arrays of the compiled
    engine, each seat's knowledge kept (`compiled.py`), dealt from the deck orders
    that `decks` gives for the same `rng` and played through the same public
    decisions."""
    from . import compiled

    plan = Plan.of(observation)
    generator = compiled.generator(rng.getrandbits(64))
    while True:
        yield compiled.world(plan.base, plan.first_leader, plan.history, plan.sampling, generator)


class Plan(NamedTuple):
    """One observation's deals as the compiled sampler draws them
    (`compiled.sample_deck`), and how to play each to the observed position
    (`compiled.replay`)."""

    settings: Settings
    sampling: tuple[np.ndarray, ...]  # what `compiled.sample_deck` reads, in its order
    base: np.ndarray  # the settings' game array (`compiled.settings_array`)
    history: np.ndarray  # the public decisions so far (`compiled.replay`)

    @property
    def first_leader(self) -> int:
        return self.settings.first_leader

    @classmethod
    def of(cls, observation: Observation) -> Plan:
        from . import compiled

        unknown = hidden(observation)
        first_leader = observation.rounds[0].leader if observation.rounds else observation.leader
        settings = Settings(observation.players, observation.factions, first_leader)
        wanted, extra = _draws(observation)
        sampling = (*_tree(unknown), wanted, extra, _template(observation, unknown))
        return cls(
            settings, sampling, compiled.settings_array(settings), compiled.history(observation)
        )


def _others(observation: Observation) -> list[int]:
    return [seat for seat in range(observation.players) if seat != observation.seat]


def _phase2_plays(observation: Observation) -> list[Counter]:
    """For each seat, the cards it played in phase 2 so far."""
    played = [Counter() for _ in range(observation.players)]
    for record in observation.rounds:
        if record.phase == 2:
            for play in record.plays:
                played[play.seat][play.card] += 1
    if observation.phase == 2:
        for play in observation.trick:
            played[play.seat][play.card] += 1
    return played


# Dealing the hidden cards -------------------------------------------------------------


def _deal_counter(unknown: Hidden):
    """The groups of hidden cards that the same hands may hold, and a memoised count
    of the ways to deal them (copies of a card count as different cards)."""
    groups = _groups(unknown)

    @cache
    def ways(group: int, room: tuple[int, ...]) -> int:
        """Deals of groups `group`... into hands with `room` left, the rest free."""
        return sum(weight for *_, weight in _options(groups, group, room, ways))

    return groups, ways


def _groups(unknown: Hidden) -> list[tuple[tuple[int, ...], list[Card]]]:
    """The hidden cards by the seats whose hands may hold them, largest group last."""
    by_allowed: dict[tuple[int, ...], list[Card]] = {}
    for card in unknown.cards:
        allowed = tuple(
            seat
            for seat, size in enumerate(unknown.hand_sizes)
            if size and card.faction not in unknown.lacks[seat]
        )
        by_allowed.setdefault(allowed, []).append(card)
    return sorted(by_allowed.items(), key=lambda group: (len(group[1]), group[0]))


def _options(groups, group: int, room: tuple[int, ...], ways):
    """Each way to send the cards of `groups[group]` to the hands that may hold them
    (at most their `room`) and the free places: (cards per seat, room left after,
    number of consistent deals of this and the later groups)."""
    allowed, members = groups[group]
    if group == len(groups) - 1:
        # The last group fills what room is left, exactly.
        if any(room[seat] for seat in range(len(room)) if seat not in allowed):
            return
        if sum(room) > len(members):
            return
        weight, left = 1, len(members)
        for k in room:
            weight *= comb(left, k)
            left -= k
        yield room, (0,) * len(room), weight
        return
    rest = sum(len(m) for _, m in groups[group + 1 :])

    def spread(index: int, left: int, split: list[int], weight: int):
        if index == len(allowed):
            after = tuple(r - k for r, k in zip(room, split, strict=True))
            if sum(after) <= rest:
                yield tuple(split), after, weight * ways(group + 1, after)
            return
        seat = allowed[index]
        for k in range(min(left, room[seat]) + 1):
            split[seat] = k
            yield from spread(index + 1, left - k, split, weight * comb(left, k))
        split[seat] = 0

    yield from spread(0, len(members), [0] * len(room), 1)


def _tree(unknown: Hidden) -> tuple[np.ndarray, ...]:
    """The hidden cards by group and the tree of their consistent deals, as
    `compiled.sample_deck` reads them: a node per group and room left in the hands
    (the root first), its options each with its split per seat, the next node and the
    cumulative chance of the options so far (each option's share of its node's
    deals)."""
    groups, ways = _deal_counter(unknown)
    if groups and ways(0, unknown.hand_sizes) == 0:
        raise ValueError("the observation is inconsistent: no deal agrees with it")
    nodes: dict[tuple[int, tuple[int, ...]], int] = {}
    options: list[list[tuple]] = []

    def node(group: int, room: tuple[int, ...]) -> int:
        if (group, room) not in nodes:
            nodes[group, room] = len(options)
            options.append([])
            for split, after, weight in _options(groups, group, room, ways):
                if weight:
                    below = node(group + 1, after) if group + 1 < len(groups) else 0
                    options[nodes[group, room]].append((split, below, weight))
        return nodes[group, room]

    if groups:
        node(0, unknown.hand_sizes)
    starts, splits, nexts, cumulative = [0], [], [], []
    for kept in options:
        total, running = sum(weight for *_, weight in kept), 0
        for split, below, weight in kept:
            running += weight
            splits.append(split)
            nexts.append(below)
            cumulative.append(running / total)  # exact integers: one rounding
        starts.append(len(nexts))
    members = [card.index for _, cards in groups for card in cards]
    ends = list(itertools.accumulate(len(cards) for _, cards in groups))
    players = len(unknown.hand_sizes)
    return (
        _ints(members),
        _ints(ends),
        _ints(starts),
        _ints(splits).reshape(len(splits), players),
        _ints(nexts),
        np.array(cumulative, dtype=np.float64),
    )


def _ints(values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


# Building the state -------------------------------------------------------------------


class _Round(NamedTuple):
    """A phase-1 round as the seat saw it: what the deck order needs from it."""

    plays: tuple[Play, ...]
    prizes: tuple[Card, ...]
    acquired: tuple[Acquisition, ...]
    peek: Play | None


def _phase1_rounds(observation: Observation) -> list[_Round]:
    """The phase-1 rounds so far, the one in play included."""
    rounds = [
        _Round(r.plays, r.prizes, r.acquired, r.peek) for r in observation.rounds if r.phase == 1
    ]
    if observation.phase == 1:
        # A Seer peek pending in this round is still on the draw pile: not here.
        rounds.append(_Round(observation.trick, observation.prizes, observation.acquired, None))
    return rounds


def _draws(observation: Observation) -> tuple[np.ndarray, np.ndarray]:
    """What each other seat drew that the seat did not see, as `compiled.sample_deck`
    reads it: in phase 1 how many of the free cards (`wanted`); in phase 2 (`wanted`
    -1) its hand's hidden cards and, as counts per card index (`extra`), the cards it
    played in phase 2 beyond the prizes it is known to have taken: a follower pile is
    the hand, plus the cards played from it."""
    players = observation.players
    known = known_followers(observation)
    wanted = np.zeros(players, dtype=np.int64)
    extra = np.zeros((players, 100), dtype=np.int64)
    if observation.phase == 1:
        for other in _others(observation):
            wanted[other] = observation.follower_pile_sizes[other] - len(known[other])
        return wanted, extra
    wanted[:] = -1
    for other, played in enumerate(_phase2_plays(observation)):
        if other != observation.seat:
            for card, copies in (played - Counter(known[other])).items():
                extra[other, card.index] = copies
    return wanted, extra


def _template(observation: Observation, unknown: Hidden) -> np.ndarray:
    """The deck order as far as the seat knows it, for `compiled.sample_deck`: a card
    index where it knows the card, else where the card comes from (another seat's
    hidden hand or draws, the rest of the draw pile)."""
    from .compiled import DRAWN_BY, HAND_OF, PILE

    seat = observation.seat
    rounds = _phase1_rounds(observation)
    # RULES.md 2: the hands are dealt first, seat 0 first; then the draw pile, from
    # which each round turns up its prizes and then gives its draws in order.
    deck: list[int] = []
    for player in range(observation.players):
        deck += [play.card.index for r in rounds for play in r.plays if play.seat == player]
        if observation.phase == 1:
            if player == seat:
                deck += [card.index for card in observation.hand]
            else:
                deck += [HAND_OF - player] * unknown.hand_sizes[player]
    for r in rounds:
        deck += [card.index for card in r.prizes]
        shown = r.peek.card if r.peek is not None and r.peek.seat == seat else None
        for acquisition in r.acquired:
            if acquisition.source == PRIZE:
                continue
            if shown is not None:  # the first card off the pile is the one the Seer saw
                deck.append(shown.index)
                shown = None
            elif acquisition.seat == seat:
                deck.append(acquisition.card.index)
            else:
                deck.append(DRAWN_BY - acquisition.seat)
    if observation.peek is not None:
        deck.append(observation.peek.index)
    deck.append(PILE)
    return _ints(deck)


def _replayed(observation: Observation, state: State) -> State:
    """The game dealt in `state` played through the observation's public decisions."""
    for record in observation.rounds:
        state = _replay_round(state, record.plays, record.acquired)
    return _replay_round(state, observation.trick, observation.acquired)


def _replay_round(state: State, plays, acquired) -> State:
    """`state` after a round's plays and as many of its acquisitions as were made."""
    for play in plays:
        state = apply(state, Decision.play(play.card))
    while state.takers and len(state.acquired) < len(acquired):
        acquisition = acquired[len(state.acquired)]
        taken = None if acquisition.source == DECK else acquisition.card
        state = apply(state, Decision.take(taken))
    return state
