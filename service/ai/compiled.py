"""The AI's fast engine: the rules, each seat's knowledge, the greedy player, the
rollouts and the deals' sampler, as numba functions on one array of ints. The
expert's searches play here, and the analysis's deals and exact endgames; the
domain's rules stay the truth.

A rollout is a few hundred small decisions, each valuing every legal card with greedy's
arithmetic; in plain Python a 2-player phase 1 takes about 1 ms of CPU. Compiled by
numba (`bench/rollouts.py` prints both), the same rollout takes a few dozen
microseconds, so the search gets many times the deals in its time.

A game is one `numpy` array of ints (`GAME_SIZE`, the fields at the offsets below):
hands, follower piles, score piles and what each seat has not seen are counts per card
code (`codes.py`: faction rank * 10 + value), so a sorted hand is read in code order;
the draw pile is a stack; `copy()` of the array is a game to play on. Decisions are
`codes.py`'s codes. The functions restate, step by step and with greedy's tables and
arithmetic in the same order, the Python oracles of tests/ai/oracles/ (`compact.py`:
the rules, `compact_greedy.py`: each seat's knowledge and greedy, `rollout.py`), which
are held to the domain's rules and to `greedy.py`; the docstrings below name the
function each restates. tests/ai/test_compact_greedy.py plays a hundred thousand
positions through both, comparing the position, each seat's knowledge, the legal
decisions and greedy's decision; tests/ai/test_compiled.py the conformance games,
rollouts and deals.

Everything here is pure: the random deals come from a generator seeded by the caller.

numba takes a second and 70 MB to load, and compiles these functions on their first
call (about 40 s of CPU at LLVM's -O2, set here: -O3, numba's default, took 65 s, for
rollouts and endgame searches as fast by bench/rollouts.py and bench/endgame.py; then
it loads them from its cache beside this file in about a second): the modules that use
them import this one when they first search, so that a process that never searches
(the API's) never loads it, and `claim worker`'s expert lane loads it before it forks
its work horses (`expert.warm`).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit

from service.domain import Settings, State, side_of
from service.domain.state import PRIZE

from .codes import (
    DO,
    DR,
    DW,
    FACTION_SIZE,
    GI,
    GN,
    GO,
    KEEP_OF,
    KN,
    RANK,
    SE,
    TAKE,
    TAKE_DECK,
    TR,
    UN,
    WORTH_OF,
)
from .greedy import LEAD_NEXT, SEER_LOOK, SIGNS, STAKE_DECIDED, STAKE_OPEN, STAKE_UNDEAD
from .worths import LEADS, MOST, TOP, UNDEAD

# LLVM's -O2 for everything numba compiles here (and in compiled_endgame.py): read when
# its code generator starts, at the first compile, after this module's import.
numba.config.OPT = numba.core.config._OptLevel(2)

# The fields of a game array: single ints, then per-seat rows of 100 card counts.
PLAYERS, HAND_SIZE, PHASE, ROUND, LEADER, TO_ACT = 0, 1, 2, 3, 4, 5
WINNER = 6  # phase 1: the round's winner while its prizes go out; -1 none
SEER_CHOICE, PEEKER, REMOVED_GNOMES = 7, 8, 9  # PEEKER -1: nobody saw the top card
PRIZE_COUNT, TRICK_COUNT, TAKER_COUNT, DRAW_COUNT = 10, 11, 12, 13
FACTIONS = 14  # 10 flags by faction rank: 1 if the deck has the faction
PRIZES = 24  # 2: this round's prizes not taken yet, in the order turned up
TRICK_SEATS, TRICK_CARDS = 26, 30  # 4 each
TAKERS = 34  # 4: seats still to get a prize or draw, in rank order
HAND_LENGTH, UNSEEN_TOTAL, SIDES = 38, 42, 46  # 4 each: SIDES[seat] is its side
HANDS = 50  # 4 rows of 100 counts each, as FOLLOWERS, SCORES, GNOMES and UNSEEN
FOLLOWERS = HANDS + 400
SCORES = FOLLOWERS + 400
GNOMES = SCORES + 400  # Gnomes in front of each seat
UNSEEN = GNOMES + 400  # per seat: copies of each card it has not seen (RULES.md 8)
TROLLS = UNSEEN + 400  # 100 counts: the Trolls set aside
DRAW = TROLLS + 100  # 72 cards, the top at DRAW_COUNT - 1
GAME_SIZE = DRAW + 72
NOBODY = -1
WORK_SIZE = 113  # `decide`'s scratch: the legal codes, a round's seats, cards and ranking

# greedy's tables (codes.py) as arrays, by card code
_WORTH = np.array(WORTH_OF, dtype=np.float64)
_KEEP = np.array([[0.0] * 100, KEEP_OF[1], KEEP_OF[2]], dtype=np.float64)
_FACTION_SIZE = np.array(FACTION_SIZE, dtype=np.int64)
# math.comb(n, k) by n and k: greedy's chance that nobody beats a card counts deals
_COMBS = np.array([[float(math.comb(n, k)) for k in range(73)] for n in range(73)])
_SIGNS = np.zeros((5, 4, 4), dtype=np.float64)
for _players, _rows in SIGNS.items():
    for _seat, _row in enumerate(_rows):
        _SIGNS[_players, _seat, :_players] = _row


# Reading and writing game arrays ------------------------------------------------


def settings_array(settings: Settings) -> np.ndarray:
    """A game array holding a game's settings only, for `deal`."""
    g = np.zeros(GAME_SIZE, dtype=np.int64)
    g[PLAYERS], g[HAND_SIZE] = settings.players, settings.hand_size
    g[TO_ACT] = g[WINNER] = g[PEEKER] = NOBODY
    for faction in settings.factions:
        g[FACTIONS + RANK[faction]] = 1
    for seat in range(settings.players):
        g[SIDES + seat] = side_of(settings.players, seat)
    return g


def position(g: np.ndarray) -> tuple:
    """`CompactGame.position()` of the game in the array: equal for the same game."""
    players = int(g[PLAYERS])

    def piles(start: int) -> tuple:
        return tuple(
            _cards(g[start + seat * 100 : start + seat * 100 + 100]) for seat in range(players)
        )

    def ints(start: int, count: int) -> tuple[int, ...]:
        return tuple(g[start : start + g[count]].tolist())

    to_act = int(g[TO_ACT])
    return (
        int(g[PHASE]),
        int(g[ROUND]),
        int(g[LEADER]),
        None if to_act == NOBODY else to_act,
        piles(HANDS),
        piles(FOLLOWERS),
        piles(SCORES),
        piles(GNOMES),
        _cards(g[TROLLS : TROLLS + 100]),
        ints(DRAW, DRAW_COUNT),
        ints(PRIZES, PRIZE_COUNT),
        tuple(zip(ints(TRICK_SEATS, TRICK_COUNT), ints(TRICK_CARDS, TRICK_COUNT), strict=True)),
        ints(TAKERS, TAKER_COUNT),
        bool(g[SEER_CHOICE]),
    )


def _cards(counts) -> tuple[int, ...]:
    return tuple(card for card, n in enumerate(counts) for _ in range(int(n)))


def unseen(g: np.ndarray, seat: int) -> list[int]:
    """What `seat` has not seen: copies per card index."""
    return [int(n) for n in g[UNSEEN + seat * 100 : UNSEEN + seat * 100 + 100]]


# The rules (oracle: compact.py) --------------------------------------------------------------


@njit(cache=True)
def legal(g, out) -> int:
    """`CompactGame.legal_decisions()`, in its order, written to `out`; their number."""
    n = 0
    if g[TO_ACT] == NOBODY:
        return 0
    if g[TAKER_COUNT] > 0:
        # the distinct prizes in index order, then the draw pile after a Seer's win
        first, count = g[PRIZES], g[PRIZE_COUNT]
        if count == 2 and g[PRIZES + 1] != first:
            low, high = min(first, g[PRIZES + 1]), max(first, g[PRIZES + 1])
            out[0], out[1] = TAKE + low, TAKE + high
            n = 2
        elif count:
            out[0] = TAKE + first
            n = 1
        if g[SEER_CHOICE]:
            out[n] = TAKE_DECK
            n += 1
        return n
    hand = HANDS + g[TO_ACT] * 100
    if g[TRICK_COUNT] > 0:
        # RULES.md 3 step 2: the led faction's cards and the Doppelgangers (rank 0, so
        # first in index order), or a Doppelganger lead followed by Doppelgangers.
        led = g[TRICK_CARDS] // 10
        if _holds(g, hand, led):
            if led != DO:
                for card in range(DO * 10, DO * 10 + 10):
                    if g[hand + card]:
                        out[n] = card
                        n += 1
            for card in range(led * 10, led * 10 + 10):
                if g[hand + card]:
                    out[n] = card
                    n += 1
            return n
    for card in range(100):
        if g[hand + card]:
            out[n] = card
            n += 1
    return n


@njit(cache=True)
def _holds(g, pile, faction) -> bool:
    """Whether the counts from `pile` on have a card of `faction`."""
    for card in range(faction * 10, faction * 10 + 10):
        if g[pile + card]:
            return True
    return False


@njit(cache=True)
def apply(g, code) -> None:
    """Make the decision `code`, one of `legal`'s (`KnowingGame.apply`)."""
    if code < TAKE:
        seat = g[TO_ACT]
        _seen_by_all_but(g, seat, code)
        g[HANDS + seat * 100 + code] -= 1
        g[HAND_LENGTH + seat] -= 1
        at = g[TRICK_COUNT]
        g[TRICK_SEATS + at], g[TRICK_CARDS + at] = seat, code
        g[TRICK_COUNT] = at + 1
        if at + 1 < g[PLAYERS]:
            g[TO_ACT] = (seat + 1) % g[PLAYERS]
        elif g[PHASE] == 1:
            _finish_phase1_play(g)
        else:
            _finish_phase2_round(g)
        return
    if code == TAKE_DECK:
        _draw(g)
    else:
        card = code - TAKE
        if g[PRIZES] == card:
            g[PRIZES] = g[PRIZES + 1]
        g[PRIZE_COUNT] -= 1
        _acquire(g, card)
    g[SEER_CHOICE] = 0
    _hand_out(g)


@njit(cache=True)
def _seen_by_all_but(g, seat, card) -> None:
    for other in range(g[PLAYERS]):
        if other != seat:
            g[UNSEEN + other * 100 + card] -= 1
            g[UNSEEN_TOTAL + other] -= 1


@njit(cache=True)
def _winning_at(cards, count) -> int:
    """Where among a round's first `count` cards the winning one is
    (`compact.winning_at`: RULES.md 3 and 6, Knights)."""
    led = cards[0] // 10
    if led == GO:
        best, high = -1, -1
        for at in range(count):
            if cards[at] // 10 == KN and cards[at] % 10 > high:
                best, high = at, cards[at] % 10
        if best >= 0:
            return best
    best, high = 0, cards[0] % 10
    for at in range(1, count):
        card = cards[at]
        if card % 10 > high and card // 10 in (led, DO):
            best, high = at, card % 10
    return best


@njit(cache=True)
def _finish_phase1_play(g) -> None:
    at = _winning_at(g[TRICK_CARDS : TRICK_CARDS + 4], g[TRICK_COUNT])
    winner = g[TRICK_SEATS + at]
    g[WINNER] = winner
    for i in range(g[TRICK_COUNT]):
        card = g[TRICK_CARDS + i]
        if card // 10 == UN:
            g[SCORES + winner * 100 + card] += 1
    if g[PLAYERS] == 2:
        g[TAKERS], g[TAKERS + 1] = winner, 1 - winner
        g[TAKER_COUNT] = 2
    else:
        _rank(
            g[TRICK_SEATS : TRICK_SEATS + 4],
            g[TRICK_CARDS : TRICK_CARDS + 4],
            g[PLAYERS],
            winner,
            g[TAKERS : TAKERS + 4],
        )
        g[TAKER_COUNT] = g[PLAYERS]
    if g[TRICK_CARDS + at] // 10 == SE:
        g[SEER_CHOICE] = 1
        # the winner looks at the draw pile's top card (KnowingGame._finish_phase1_play)
        g[PEEKER] = winner
        g[UNSEEN + winner * 100 + g[DRAW + g[DRAW_COUNT] - 1]] -= 1
        g[UNSEEN_TOTAL + winner] -= 1
    _hand_out(g)


@njit(cache=True)
def _rank(seats, cards, count, winner, out) -> int:
    """`compact.ranking`, written to `out`: the winner, then Knights in a Goblin-led
    round, then the others who followed, then the rest; each highest value first, then
    in play order. The winner may be a seat still to play (greedy's guess). Returns
    how many seats it ranked."""
    led = cards[0] // 10
    n = 0
    for order in range(count):
        seat = seats[order]
        if seat != winner:
            faction = cards[order] // 10
            if faction in (led, DO):
                group = 1
            elif led == GO and faction == KN:
                group = 0
            else:
                group = 2
            key = ((group * 16 + 9 - cards[order] % 10) * 16 + order) * 16 + seat
            at = n + 1  # insertion sort of the sort keys into out[1:]
            while at > 1 and out[at - 1] > key:
                out[at] = out[at - 1]
                at -= 1
            out[at] = key
            n += 1
    out[0] = winner
    for i in range(1, n + 1):
        out[i] = out[i] % 16
    return n + 1


@njit(cache=True)
def _hand_out(g) -> None:
    """The next takers get their prize or draw until one has a choice to make."""
    while g[TAKER_COUNT] > 0:
        if g[SEER_CHOICE] or g[PRIZE_COUNT] > 1:
            g[TO_ACT] = g[TAKERS]
            return
        if g[PRIZE_COUNT]:
            g[PRIZE_COUNT] = 0
            _acquire(g, g[PRIZES])
        else:
            _draw(g)
    _next_round(g, g[WINNER])


@njit(cache=True)
def _acquire(g, card) -> None:
    """The first taker puts `card` on its follower pile and leaves the takers."""
    seat = g[TAKERS]
    g[FOLLOWERS + seat * 100 + card] += 1
    count = g[TAKER_COUNT] - 1
    for i in range(count):
        g[TAKERS + i] = g[TAKERS + i + 1]
    g[TAKER_COUNT] = count


@njit(cache=True)
def _draw(g) -> None:
    """The first taker draws the draw pile's top card, and has seen it."""
    seat = g[TAKERS]
    top = g[DRAW_COUNT] - 1
    card = g[DRAW + top]
    if seat != g[PEEKER]:  # a Seer saw the first card drawn after its look
        g[UNSEEN + seat * 100 + card] -= 1
        g[UNSEEN_TOTAL + seat] -= 1
    g[PEEKER] = NOBODY
    g[DRAW_COUNT] = top
    _acquire(g, card)


@njit(cache=True)
def _finish_phase2_round(g) -> None:
    """`compact._finish_phase2_round`: where a phase-2 round's cards go (RULES.md 5, 6)."""
    players, count = g[PLAYERS], g[TRICK_COUNT]
    seats, cards = g[TRICK_SEATS : TRICK_SEATS + 4], g[TRICK_CARDS : TRICK_CARDS + 4]
    winner = seats[_winning_at(cards, count)]
    last = g[ROUND] == g[HAND_SIZE] - 1
    trolls = False
    for i in range(count):
        card = g[TRICK_CARDS + i]
        faction = card // 10
        if faction == DW:
            g[SCORES + _receiver(g, seats, cards, count, winner) * 100 + card] += 1
        elif faction == TR:
            g[TROLLS + card] += 1
        elif faction == GN:
            g[GNOMES + winner * 100 + card] += 1
        else:
            g[SCORES + winner * 100 + card] += 1
    for card in range(TR * 10 + 9, TR * 10 - 1, -1):
        if g[TROLLS + card]:
            trolls = True
            if not last:  # the highest Troll set aside
                g[TROLLS + card] -= 1
                g[SCORES + winner * 100 + card] += 1
                break
    if trolls and last:  # the last round's winner takes every Troll set aside
        for card in range(TR * 10, TR * 10 + 10):
            g[SCORES + winner * 100 + card] += g[TROLLS + card]
            g[TROLLS + card] = 0
    for i in range(count):
        card = g[TRICK_CARDS + i]
        if card // 10 == GI:
            gnome = GN * 10 + card % 10
            for seat in range(players):
                if g[SIDES + seat] != g[SIDES + winner] and g[GNOMES + seat * 100 + gnome]:
                    g[GNOMES + seat * 100 + gnome] -= 1
                    if not last:
                        g[REMOVED_GNOMES] += 1
    if last:
        for seat in range(players):
            for card in range(GN * 10, GN * 10 + 10):
                g[SCORES + seat * 100 + card] += g[GNOMES + seat * 100 + card]
                g[GNOMES + seat * 100 + card] = 0
    _next_round(g, winner)


@njit(cache=True)
def _next_round(g, winner) -> None:
    """Who leads next (RULES.md 3 step 5); the next round, phase (RULES.md 5) or the end."""
    leader = winner
    for at in range(g[TRICK_COUNT] - 1, -1, -1):
        if g[TRICK_CARDS + at] // 10 == DR:
            leader = g[TRICK_SEATS + at]
            break
    g[TRICK_COUNT] = 0
    g[ROUND] += 1
    players = g[PLAYERS]
    if g[ROUND] < g[HAND_SIZE]:
        _start_round(g, leader)
    elif g[PHASE] == 1:
        g[PHASE], g[ROUND] = 2, 0
        for seat in range(players):
            g[HANDS + seat * 100 : HANDS + seat * 100 + 100] = g[
                FOLLOWERS + seat * 100 : FOLLOWERS + seat * 100 + 100
            ]
            g[FOLLOWERS + seat * 100 : FOLLOWERS + seat * 100 + 100] = 0
            g[HAND_LENGTH + seat] = g[HAND_SIZE]
        _start_round(g, leader)
    else:
        g[LEADER], g[TO_ACT] = leader, NOBODY


@njit(cache=True)
def _start_round(g, leader) -> None:
    """In phase 1, the prizes turned up and seen by all (RULES.md 4); at the start of
    phase 2, each seat's unseen cards are the other hands."""
    g[LEADER] = g[TO_ACT] = leader
    players = g[PLAYERS]
    if g[PHASE] == 1:
        count = 1 if players == 2 else 2
        for i in range(count):
            top = g[DRAW_COUNT] - 1
            card = g[DRAW + top]
            g[DRAW_COUNT] = top
            g[PRIZES + i] = card
            _seen_by_all_but(g, NOBODY, card)
        g[PRIZE_COUNT] = count
    elif g[ROUND] == 0:
        for seat in range(players):
            row = UNSEEN + seat * 100
            g[row : row + 100] = 0
            g[UNSEEN_TOTAL + seat] = 0
            for other in range(players):
                if other != seat:
                    g[row : row + 100] += g[HANDS + other * 100 : HANDS + other * 100 + 100]
                    g[UNSEEN_TOTAL + seat] += g[HAND_LENGTH + other]


# Greedy's decision (oracle: compact_greedy.py) -----------------------------------------------


@njit(cache=True)
def decide(g) -> int:
    """greedy's decision for the seat to act (`compact_greedy.decide`): the legal
    decision it values most, the first in legal order on a tie."""
    return _decide(g, np.empty(WORK_SIZE, dtype=np.int64), np.empty(10, dtype=np.float64))


@njit(cache=True)
def _decide(g, work, stakes) -> int:
    """`decide` with its scratch arrays given (a rollout's many decisions share them):
    `work` for the legal codes and `_play_value`'s, `stakes` for `_stakes`."""
    codes = work[:100]
    n = legal(g, codes)
    if n == 1:
        return codes[0]
    best, top = codes[0], -math.inf
    if g[TAKER_COUNT] > 0:
        peek = g[DRAW + g[DRAW_COUNT] - 1] if g[SEER_CHOICE] else 0
        for i in range(n):
            value = _WORTH[peek if codes[i] == TAKE_DECK else codes[i] - TAKE]
            if value > top:
                best, top = codes[i], value
        return best
    seat = g[TO_ACT]
    _stakes(g, stakes)
    signs = _SIGNS[g[PLAYERS], seat]
    if g[PHASE] == 2 and g[PLAYERS] == 2 and g[TRICK_COUNT] == 0:
        for i in range(n):
            value = _lead_value(g, codes[i], seat, stakes, signs)
            if value > top:
                best, top = codes[i], value
        return best
    draw_worth = _draw_worth(g, seat) if g[PHASE] == 1 else 0.0
    for i in range(n):
        value = _play_value(g, codes[i], seat, stakes, signs, draw_worth, work)
        if value > top:
            best, top = codes[i], value
    return best


@njit(cache=True)
def _play_value(g, card, seat, stakes, signs, draw_worth, work) -> float:
    """The round's likely outcome less the card's keep (`greedy.View.play_value`)."""
    players = g[PLAYERS]
    count = g[TRICK_COUNT] + 1
    seats, cards = work[100:104], work[104:108]
    for i in range(count - 1):
        seats[i], cards[i] = g[TRICK_SEATS + i], g[TRICK_CARDS + i]
    seats[count - 1], cards[count - 1] = seat, card
    value = -_KEEP[g[PHASE], card]
    at = _winning_at(cards, count)
    winner = seats[at]
    if count == players or signs[winner] < 0:
        return value + _outcome(g, seats, cards, count, winner, stakes, signs, draw_worth, work)
    held = _chance_unbeaten(g, seat, cards[0] // 10, cards[at])
    beaten_by = (seat + 1) % players
    return (
        value
        + held * _outcome(g, seats, cards, count, winner, stakes, signs, draw_worth, work)
        + (1 - held) * _outcome(g, seats, cards, count, beaten_by, stakes, signs, draw_worth, work)
    )


@njit(cache=True)
def _lead_value(g, card, seat, stakes, signs) -> float:
    """A 2-player phase-2 lead against the reply the opponent values most
    (`_View.lead_value`, the same arithmetic in the same order)."""
    other = 1 - seat
    keep = _KEEP[2]
    led, high = card // 10, card % 10
    led_stake = stakes[led]
    dragons = g[FACTIONS + DR] == 1
    dwarf, giant = led == DW, led == GI
    troll = led == TR or _holds(g, TROLLS, TR)
    hand = HANDS + other * 100
    follows = _holds(g, hand, led)
    best, theirs, first = 0.0, 0.0, True
    for reply in range(100):
        if not g[hand + reply]:
            continue
        faction = reply // 10
        if follows and faction != led and (faction != DO or led == DO):
            continue  # `_replies`: the led faction's cards and the Doppelgangers
        if (led == GO and faction == KN) or (reply % 10 > high and faction in (led, DO)):
            winner = other
        else:
            winner = seat
        leader = winner
        if dragons:
            if faction == DR:
                leader = other
            elif led == DR:
                leader = seat
        ours = LEAD_NEXT if signs[leader] > 0 else -LEAD_NEXT
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
            value = _giants(g, value, card, reply, 2, winner, stakes, signs)
        ours += value
        if first or -ours - keep[reply] > theirs:
            best, theirs, first = ours + keep[reply], -ours - keep[reply], False
    return best - keep[card]


@njit(cache=True)
def _chance_unbeaten(g, seat, led, best) -> float:
    """The chance that nobody to play after the seat this round holds a card beating
    `best`: the unseen cards spread at random over the hands and the draw pile."""
    beaters = _beaters(g, seat, led, best)
    if not beaters:
        return 1.0
    players, leader = g[PLAYERS], g[LEADER]
    total = g[UNSEEN_TOTAL + seat]
    dealt = 0
    for k in range(g[TRICK_COUNT] + 1, players):
        dealt += g[HAND_LENGTH + (leader + k) % players]
    dealt = min(dealt, total)
    return _comb(total - beaters, dealt) / _comb(total, dealt)


@njit(cache=True)
def _comb(n, k) -> float:
    """`math.comb(n, k)` as a float (exact up to 2**53, else its nearest float)."""
    return _COMBS[n, k] if 0 <= k <= n else 0.0


@njit(cache=True)
def _beaters(g, seat, led, best) -> int:
    faction, value = best // 10, best % 10
    if led == GO and faction == KN:
        return _above(g, seat, KN, value)
    count = _above(g, seat, DO, value)
    if led != DO:
        count += _above(g, seat, led, value)
        if led == GO:
            count += _above(g, seat, KN, -1)
    return count


@njit(cache=True)
def _above(g, seat, faction, value) -> int:
    row = UNSEEN + seat * 100 + faction * 10
    count = 0
    for v in range(value + 1, 10):
        count += g[row + v]
    return count


@njit(cache=True)
def _outcome(g, seats, cards, count, winner, stakes, signs, draw_worth, work) -> float:
    """What the round's known cards bring the seat's side if `winner` wins it."""
    leader = winner
    if g[FACTIONS + DR]:
        for at in range(count - 1, -1, -1):
            if cards[at] // 10 == DR:
                leader = seats[at]
                break
    value = LEAD_NEXT if signs[leader] > 0 else -LEAD_NEXT
    if g[PHASE] == 1:
        undead = _undead(cards, count, winner, stakes, signs) if g[FACTIONS + UN] else 0.0
        prizes = _prizes(g, seats, cards, count, winner, signs, draw_worth, work[108:113])
        return value + prizes + undead
    return value + _phase2_cards(g, seats, cards, count, winner, stakes, signs)


@njit(cache=True)
def _draw_worth(g, seat) -> float:
    """The average worth of a card the seat has not seen."""
    total = g[UNSEEN_TOTAL + seat]
    if not total:
        return 0.0
    row = UNSEEN + seat * 100
    worth = 0.0
    for card in range(100):
        if g[FACTIONS + card // 10] and g[row + card] > 0:
            worth += _WORTH[card] * g[row + card]
    return worth / total


@njit(cache=True)
def _prizes(g, seats, cards, count, winner, signs, draw_worth, ranked) -> float:
    """Phase 1, RULES.md 4: the winner's prize (and the second's, with 3-4 players)
    against an average draw."""
    first = _WORTH[g[PRIZES]]
    second = first
    if g[PRIZE_COUNT] == 2:
        second = _WORTH[g[PRIZES + 1]]
        if second > first:
            first, second = second, first
    if g[PLAYERS] == 2:
        gain = first - draw_worth
        if g[FACTIONS + SE]:
            for i in range(count):
                if seats[i] == winner and cards[i] // 10 == SE:
                    gain += SEER_LOOK
                    break
        return gain * signs[winner]
    value = 0.0
    for rank in range(min(_rank(seats, cards, count, winner, ranked), g[PRIZE_COUNT])):
        if signs[ranked[rank]] > 0:
            value += (first if rank == 0 else second) - draw_worth
    return value


@njit(cache=True)
def _undead(cards, count, winner, stakes, signs) -> float:
    undead = 0
    for i in range(count):
        if cards[i] // 10 == UN:
            undead += 1
    return undead * stakes[UN] * signs[winner] if undead else 0.0


@njit(cache=True)
def _phase2_cards(g, seats, cards, count, winner, stakes, signs) -> float:
    """RULES.md 5 and 6: where the round's cards go, valued by their factions' stakes."""
    value = 0.0
    trolls = giants = False
    for i in range(count):
        faction = cards[i] // 10
        if faction == TR:
            trolls = True
        elif faction == DW:
            value += stakes[faction] * signs[_receiver(g, seats, cards, count, winner)]
        else:
            value += stakes[faction] * signs[winner]
            giants = giants or faction == GI
    if trolls or _holds(g, TROLLS, TR):
        value += stakes[TR] * signs[winner]
    if giants:
        for i in range(count):
            value = _giants(g, value, cards[i], -1, g[PLAYERS], winner, stakes, signs)
    return value


@njit(cache=True)
def _giants(g, value, card, reply, players, winner, stakes, signs) -> float:
    """`value` less the stakes of the opponents' Gnomes that the Giants among `card`
    and `reply` (-1: none) remove."""
    for giant in (card, reply):
        if giant < 0 or giant // 10 != GI:
            continue
        gnome = GN * 10 + giant % 10
        for seat in range(players):
            if signs[seat] != signs[winner] and g[GNOMES + seat * 100 + gnome]:
                value -= stakes[GN] * signs[seat]
    return value


@njit(cache=True)
def _receiver(g, seats, cards, count, winner) -> int:
    """Who gets the round's Dwarves so far: the loser with 2 players, else the lowest
    card, ties to the one played last."""
    if g[PLAYERS] == 2:
        return 1 - winner
    lowest = 0
    for at in range(1, count):
        if cards[at] % 10 <= cards[lowest] % 10:
            lowest = at
    return seats[lowest]


@njit(cache=True)
def _stakes(g, stakes) -> None:
    """What one more card of each faction is worth to a side (`greedy._stakes_of`),
    written to `stakes`: much while the faction can still go to more than one side,
    little once it cannot. Phase 1 scores Undead only."""
    players, phase = g[PLAYERS], g[PHASE]
    sides = 2 if players == 4 else players
    stakes[:] = 0.0
    for faction in range(10):
        if not g[FACTIONS + faction] or (phase == 1 and faction != UN):
            continue
        first = second = total = 0
        for side in range(sides):
            n = 0
            for seat in range(side, players, sides):  # the side's seats
                for card in range(faction * 10, faction * 10 + 10):
                    n += g[SCORES + seat * 100 + card] + g[GNOMES + seat * 100 + card]
            total += n
            if n > first:
                first, second = n, first
            elif n > second:
                second = n
        left = _FACTION_SIZE[faction] - total
        if faction == GN:
            left -= g[REMOVED_GNOMES]
        stake = STAKE_DECIDED if first > second + left else STAKE_OPEN
        if phase == 1:
            stake *= STAKE_UNDEAD
        stakes[faction] = stake


# Rollouts (oracle: rollout.py) ---------------------------------------------------------------


@njit(cache=True)
def play_out(g) -> None:
    """Every seat plays greedy until the game is over."""
    work, stakes = np.empty(WORK_SIZE, dtype=np.int64), np.empty(10, dtype=np.float64)
    while g[TO_ACT] != NOBODY:
        apply(g, _decide(g, work, stakes))


@njit(cache=True)
def play_phase1(g) -> None:
    """Every seat plays greedy until phase 2 starts."""
    work, stakes = np.empty(WORK_SIZE, dtype=np.int64), np.empty(10, dtype=np.float64)
    while g[PHASE] == 1:
        apply(g, _decide(g, work, stakes))


@njit(cache=True)
def chances(g, worths) -> np.ndarray:
    """At the start of phase 2, each seat's chance of winning: the softmax of its
    features' summed worths (`rollout.features` and `rollout.chances`)."""
    players = g[PLAYERS]
    counts = np.zeros((players, 10), dtype=np.int64)
    tops = np.full((players, 10), -1, dtype=np.int64)
    for seat in range(players):
        for card in range(100):
            if g[HANDS + seat * 100 + card]:
                counts[seat, card // 10] += g[HANDS + seat * 100 + card]
                tops[seat, card // 10] = card % 10
    weights = np.zeros(players, dtype=np.float64)
    for seat in range(players):
        weight = 0.0
        for card in range(100):
            for _ in range(g[HANDS + seat * 100 + card]):
                weight += worths[card]
        scored = 0
        for card in range(100):
            scored += g[SCORES + seat * 100 + card]
        for _ in range(scored):
            weight += worths[UNDEAD]
        if g[LEADER] == seat:
            weight += worths[LEADS]
        for rank in range(10):
            most = top = True
            for other in range(players):
                if other != seat:
                    most = most and counts[seat, rank] > counts[other, rank]
                    top = top and tops[seat, rank] > tops[other, rank]
            if most:
                weight += worths[MOST + rank]
            if top:
                weight += worths[TOP + rank]
        weights[seat] = weight
    exps = np.exp(weights - weights.max())
    return exps / exps.sum()


@njit(cache=True)
def side_keys(g) -> np.ndarray:
    """Each side's factions won, their cards and their values (`compact._scoring`):
    a faction goes to the side with most of its cards, then the higher values from
    the top (RULES.md 7)."""
    players = g[PLAYERS]
    sides = 2 if players == 4 else players
    piles = np.zeros((sides, 100), dtype=np.int64)
    for seat in range(players):
        piles[g[SIDES + seat]] += g[SCORES + seat * 100 : SCORES + seat * 100 + 100]
    keys = np.zeros((sides, 3), dtype=np.int64)
    for faction in range(10):
        if not g[FACTIONS + faction]:
            continue
        best, shared = 0, False
        for side in range(1, sides):
            order = _compare(piles, side, best, faction)
            if order > 0:
                best, shared = side, False
            elif order == 0:
                shared = True
        count = 0
        values = 0
        for value in range(10):
            n = piles[best, faction * 10 + value]
            count += n
            values += n * value
        if count and not shared:
            keys[best, 0] += 1
            keys[best, 1] += count
            keys[best, 2] += values
    return keys


@njit(cache=True)
def _compare(piles, a, b, faction) -> int:
    """1 if side `a` holds `faction` over side `b` (more cards, then the higher values
    from the top), -1 if under, 0 if equal."""
    count_a = count_b = 0
    for value in range(10):
        count_a += piles[a, faction * 10 + value]
        count_b += piles[b, faction * 10 + value]
    if count_a != count_b:
        return 1 if count_a > count_b else -1
    for value in range(9, -1, -1):
        n_a, n_b = piles[a, faction * 10 + value], piles[b, faction * 10 + value]
        if n_a != n_b:
            return 1 if n_a > n_b else -1
    return 0


@njit(cache=True)
def winning_side(keys) -> int:
    """The side whose keys are best, or -1 if two sides share the best: a draw."""
    best, shared = 0, False
    for side in range(1, keys.shape[0]):
        order = 0
        for i in range(3):
            if keys[side, i] != keys[best, i]:
                order = 1 if keys[side, i] > keys[best, i] else -1
                break
        if order > 0:
            best, shared = side, False
        elif order == 0:
            shared = True
    return -1 if shared else best


MARGIN = 0.2  # weight of the faction margin in a rollout's score


@njit(cache=True)
def rollout(world, code, side, worths) -> float:
    """`rollout.rollout`: `score` for `side` of the game after the decision `code` in
    `world` (left as it is), every seat then playing greedy to the end; or, from phase
    1 with `worths` fitted for as many players (empty if none), greedy to the start of
    phase 2 and the chance of winning there."""
    g = world.copy()
    apply(g, code)
    if world[PHASE] == 1 and worths.size:
        play_phase1(g)
        return chances(g, worths)[side]
    play_out(g)
    return score(g, side)


@njit(cache=True)
def score(g, side) -> float:
    """`rollout.score`: 1 win, 1/2 draw, 0 loss, plus `MARGIN` times the lead in
    factions over the best other side, as a share of the factions."""
    keys = side_keys(g)
    best_other = -1
    for other in range(keys.shape[0]):
        if other != side and keys[other, 0] > best_other:
            best_other = keys[other, 0]
    factions = 0
    for faction in range(10):
        factions += g[FACTIONS + faction]
    return _outcome_of(keys, side) + MARGIN * ((keys[side, 0] - best_other) / factions)


@njit(cache=True)
def outcome(world, code, side) -> float:
    """The outcome for `side` (1 win, 1/2 draw, 0 loss) of the game after the decision
    `code` in `world` (left as it is), every seat then playing greedy to the end."""
    g = world.copy()
    apply(g, code)
    play_out(g)
    return _outcome_of(side_keys(g), side)


@njit(cache=True)
def _outcome_of(keys, side) -> float:
    winner = winning_side(keys)
    return 0.5 if winner == -1 else 1.0 if winner == side else 0.0


# Deals (determinize.py) ----------------------------------------------------------------------


@njit(cache=True)
def deal(base, deck, first_leader):
    """The game after the deal of `deck` (card indexes, top first), each seat having
    seen its hand and the first prizes (`KnowingGame.deal`); `base` holds the
    settings' fields (`settings_array`) and is left as it is."""
    g = base.copy()
    players, size = g[PLAYERS], g[HAND_SIZE]
    for seat in range(players):
        row = UNSEEN + seat * 100
        for card in deck:
            g[row + card] += 1
        for i in range(seat * size, seat * size + size):
            g[HANDS + seat * 100 + deck[i]] += 1
            g[row + deck[i]] -= 1
        g[HAND_LENGTH + seat] = size
        g[UNSEEN_TOTAL + seat] = len(deck) - size
    pile = len(deck) - players * size
    for i in range(pile):
        g[DRAW + i] = deck[len(deck) - 1 - i]
    g[DRAW_COUNT] = pile
    g[PHASE], g[ROUND] = 1, 0
    _start_round(g, first_leader)
    return g


def history(game) -> np.ndarray:
    """The public decisions of a game so far (a `State`'s or an `Observation`'s rounds,
    trick and acquisitions), as `replay` reads them. A draw, never a decision, stands
    as `TAKE_DECK`."""
    codes: list[int] = []
    rounds = [(r.plays, r.acquired) for r in game.rounds]
    for plays, acquired in [*rounds, (game.trick, game.acquired)]:
        codes.append(len(plays))
        codes += [play.card.index for play in plays]
        codes.append(len(acquired))
        codes += [TAKE + a.card.index if a.source == PRIZE else TAKE_DECK for a in acquired]
    return np.array(codes, dtype=np.int64)


def from_state(state: State) -> np.ndarray:
    """The game array of the domain's `state`, at any step: its deal played through
    its history, each seat's knowledge with it."""
    settings = state.settings
    deck = np.array([card.index for card in state.deck], dtype=np.int64)
    g = deal(settings_array(settings), deck, settings.first_leader)
    replay(g, history(state))
    return g


@njit(cache=True)
def replay(g, history) -> None:
    """Play the public decisions of a game so far: `history` is per round its number
    of plays, the plays, its number of acquisitions and their codes (prizes taken,
    draws), as `KnowingGame._replay_round` reads a round record."""
    at, players = 0, g[PLAYERS]
    while at < len(history):
        for _ in range(history[at]):
            at += 1
            apply(g, history[at])
        at += 1
        acquired = history[at]
        while g[TAKER_COUNT] > 0 and players - g[TAKER_COUNT] < acquired:
            apply(g, history[at + 1 + players - g[TAKER_COUNT]])
        at += 1 + acquired


# A random generator carried by the caller (splitmix64): the searches stay functions of
# their inputs, with no global random state.


@njit(cache=True)
def _next(rng) -> np.uint64:
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _uniform(rng) -> float:
    """A float in [0, 1)."""
    return (_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _below(rng, n) -> int:
    """An int in [0, n)."""
    return int(_uniform(rng) * n)


@njit(cache=True)
def _shuffle(cards, start, end, rng) -> None:
    """Fisher-Yates on cards[start:end]."""
    for i in range(end - 1, start, -1):
        j = start + _below(rng, i - start + 1)
        cards[i], cards[j] = cards[j], cards[i]


def generator(seed: int) -> np.ndarray:
    """A generator's state for the functions here, from a seed."""
    return np.array([seed & (2**64 - 1)], dtype=np.uint64)


# A deck's template: a card index, or where the next card comes from.
HAND_OF, DRAWN_BY, PILE = -1, -5, -9  # -1 - seat: that seat's hidden hand, and so on


@njit(cache=True)
def sample_deck(sampling, rng):
    """A deck order that the seat cannot tell from the real one, the hidden cards
    dealt uniformly at random among the consistent deals (`determinize.decks`).

    The hidden cards come in groups by the seats whose hands may hold them
    (`members`, cut at `group_ends`); each group is split between those hands and the
    free places by an option drawn with its share of the consistent deals (the
    options of a node of the deal's tree are `option_starts[node]` to the next, each
    with its `splits` per seat, the `nexts` node and the `cumulative` chance), the
    rest shuffled. Then each other seat's draws: in phase 1 its `wanted` count of the
    free cards, the rest being the draw pile; in phase 2 (`wanted` all -1) its hand's
    hidden cards and its `extra` cards (counts per card index) in random order. The
    `template` places the hidden cards among the known ones: `sampling` holds these
    arrays in this order (`determinize.Plan.sampling`)."""
    members, group_ends, option_starts, splits, nexts, cumulative, wanted, extra, template = (
        sampling
    )
    cards = members.copy()
    players = wanted.shape[0]
    hands = np.zeros((players, 16), dtype=np.int64)
    sizes = np.zeros(players, dtype=np.int64)
    free = np.empty(len(members), dtype=np.int64)
    frees = 0
    node, start = 0, 0
    for group in range(len(group_ends)):
        end = group_ends[group]
        pick = _uniform(rng)
        option = option_starts[node]
        while cumulative[option] <= pick and option < option_starts[node + 1] - 1:
            option += 1
        _shuffle(cards, start, end, rng)
        at = start
        for seat in range(players):
            for _ in range(splits[option, seat]):
                hands[seat, sizes[seat]] = cards[at]
                sizes[seat] += 1
                at += 1
        while at < end:
            free[frees] = cards[at]
            frees += 1
            at += 1
        node, start = nexts[option], end
    _shuffle(free, 0, frees, rng)
    draws = np.zeros((players, 80), dtype=np.int64)
    counts = np.zeros(players, dtype=np.int64)
    taken = 0
    for seat in range(players):
        if wanted[seat] >= 0:  # phase 1
            for _ in range(wanted[seat]):
                draws[seat, counts[seat]] = free[taken]
                counts[seat] += 1
                taken += 1
        else:  # phase 2
            for i in range(sizes[seat]):
                draws[seat, counts[seat]] = hands[seat, i]
                counts[seat] += 1
            for card in range(100):
                for _ in range(extra[seat, card]):
                    draws[seat, counts[seat]] = card
                    counts[seat] += 1
            _shuffle(draws[seat], 0, counts[seat], rng)
    deck = np.empty(len(template) + frees - taken, dtype=np.int64)
    used_hand = np.zeros(players, dtype=np.int64)
    used_draw = np.zeros(players, dtype=np.int64)
    n = 0
    for slot in template:
        if slot >= 0:
            deck[n] = slot
            n += 1
        elif slot == PILE:
            while taken < frees:
                deck[n] = free[taken]
                n += 1
                taken += 1
        elif slot >= HAND_OF - 3:
            seat = HAND_OF - slot
            deck[n] = hands[seat, used_hand[seat]]
            used_hand[seat] += 1
            n += 1
        else:
            seat = DRAWN_BY - slot
            deck[n] = draws[seat, used_draw[seat]]
            used_draw[seat] += 1
            n += 1
    return deck[:n]


@njit(cache=True)
def world(base, first_leader, history, sampling, rng):
    """A game the seat cannot tell from the real one (`determinize.worlds`): a deck
    drawn by `sample_deck`, dealt and played through the public `history`."""
    g = deal(base, sample_deck(sampling, rng), first_leader)
    replay(g, history)
    return g


@njit(cache=True)
def scores(codes, deals, side, worths, base, first_leader, history, sampling, rng):
    """`rollout` of each decision of `codes` in each of `deals` games drawn by `world`
    (the same games for every decision): an array of deals by codes."""
    out = np.empty((deals, len(codes)), dtype=np.float64)
    for d in range(deals):
        g = world(base, first_leader, history, sampling, rng)
        for i in range(len(codes)):
            out[d, i] = rollout(g, codes[i], side, worths)
    return out
