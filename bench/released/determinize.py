"""Determinization: whole game states that one seat cannot tell from the real one.

A seat sees its own cards and everything public (RULES.md 8); the other cards lie in
other hands, in other follower piles (draws) and in the draw pile. `sample_state`
deals those hidden cards at random, uniformly among the deals that agree with all the
seat knows: cards it saw, cards a Seer showed it, and factions a seat lacks because
it did not follow them. The state is then built by replaying the game's public
decisions from the deck order that deal implies, so the rules engine itself vouches
for it, and `observe(sampled, seat)` equals the observation it came from.

Other seats' decisions are taken as uninformative (beyond the follow rule), as in
any determinized search.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from math import comb
from typing import NamedTuple

from service.ai.knowledge import known_followers, lacking, outstanding
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
    unknown = hidden(observation)
    count = _deal_counter(unknown)
    others = _others(observation)
    while True:
        hands, free = _deal(unknown, count, rng)
        yield _rebuild(observation, {seat: hands[seat] for seat in others}, free, rng)


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


def _deal(unknown: Hidden, counter, rng: random.Random):
    """Hidden hand cards per seat and the free cards, drawn uniformly among the
    consistent deals."""
    groups, ways = counter
    room = unknown.hand_sizes
    hands: list[list[Card]] = [[] for _ in room]
    free: list[Card] = []
    if not groups:
        return hands, free
    if ways(0, room) == 0:
        raise ValueError("the observation is inconsistent: no deal agrees with it")
    for group, (_, members) in enumerate(groups):
        split, after, _ = _pick(list(_options(groups, group, room, ways)), rng)
        cards = list(members)
        rng.shuffle(cards)
        for seat, k in enumerate(split):
            hands[seat] += cards[:k]
            cards = cards[k:]
        free += cards
        room = after
    rng.shuffle(free)
    return hands, free


def _pick(options: list[tuple], rng: random.Random) -> tuple:
    """One of `options`, each with the chance of its weight, its last item (exact
    integers: the weights reach 10**40)."""
    pick = rng.randrange(sum(option[-1] for option in options))
    for option in options:
        if pick < option[-1]:
            return option
        pick -= option[-1]
    raise AssertionError("unreachable")


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


def _hidden_draws(
    observation: Observation, hands: dict[int, list[Card]], free: list[Card], rng: random.Random
) -> tuple[dict[int, list[Card]], list[Card]]:
    """Each other seat's hidden draws in the order it drew them, and what is left of
    the free cards: the draw pile."""
    known = known_followers(observation)
    draws = {}
    if observation.phase == 1:
        for other in hands:
            wanted = observation.follower_pile_sizes[other] - len(known[other])
            draws[other], free = free[:wanted], free[wanted:]
        return draws, free
    # Phase 2: a follower pile is the hand, plus the cards played from it.
    played = _phase2_plays(observation)
    for other, cards in hands.items():
        pile = Counter(cards) + (Counter(known[other]) - played[other]) + played[other]
        draws[other] = list((pile - Counter(known[other])).elements())
        rng.shuffle(draws[other])
    return draws, free


def _rebuild(
    observation: Observation, hands: dict[int, list[Card]], free: list[Card], rng: random.Random
) -> State:
    """The state of the game with the hidden cards placed: the deck order they imply,
    dealt and played through the public decisions again."""
    seat = observation.seat
    draws, draw_pile = _hidden_draws(observation, hands, free, rng)
    rounds = _phase1_rounds(observation)
    # RULES.md 2: the hands are dealt first, seat 0 first; then the draw pile, from
    # which each round turns up its prizes and then gives its draws in order.
    deck: list[Card] = []
    for player in range(observation.players):
        deck += [play.card for r in rounds for play in r.plays if play.seat == player]
        if observation.phase == 1:
            deck += observation.hand if player == seat else hands[player]
    for r in rounds:
        deck += r.prizes
        shown = r.peek.card if r.peek is not None and r.peek.seat == seat else None
        for acquisition in r.acquired:
            if acquisition.source == PRIZE:
                continue
            if shown is not None:  # the first card off the pile is the one the Seer saw
                deck.append(shown)
                shown = None
            elif acquisition.seat == seat:
                deck.append(acquisition.card)
            else:
                deck.append(draws[acquisition.seat].pop(0))
    if observation.peek is not None:
        deck.append(observation.peek)
    deck += draw_pile
    first_leader = observation.rounds[0].leader if observation.rounds else observation.leader
    settings = Settings(observation.players, observation.factions, first_leader)
    state = new_game(settings, deck)
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
