"""Starting a game, the legal decisions and applying one: the game loop of RULES.md
sections 3-6.

`apply` is pure: it returns a new `State` and never changes its input.
"""

from __future__ import annotations

from .cards import DOPPELGANGERS, SEERS, Card
from .deck import check_deck
from .decisions import PLAY, PLAY_DECISION, TAKE_DECISION, TAKE_DECK, Decision
from .errors import GameOver, IllegalDecision, NotYourTurn
from .powers import Table, next_leader, phase1_cards, ranking, resolve_phase2, winning_play
from .state import DECK, DRAW, PRIZE, Acquisition, Play, RoundRecord, Settings, State, deal


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
    return _start_round(state, settings.first_leader)


def is_over(state: State) -> bool:
    return state.to_act is None


def legal_decisions(state: State) -> tuple[Decision, ...]:
    """Every decision the acting seat may make now, without repeats, sorted by text."""
    seat = state.to_act
    if seat is None:
        return ()
    if state.takers:
        decisions = _unique(TAKE_DECISION, state.remaining_prizes)
        return decisions + (TAKE_DECK,) if state.seer_choice else decisions
    return _unique(PLAY_DECISION, _playable(state.hands[seat], state.trick))


def _playable(hand: tuple[Card, ...], trick: tuple[Play, ...]) -> tuple[Card, ...]:
    """RULES.md 3 step 2, the follow rule: a player holding the led faction plays it
    or a Doppelganger; when Doppelgangers are led, a player holding one plays one."""
    if not trick:
        return hand
    led = trick[0].card.faction
    if led is DOPPELGANGERS:
        return tuple(card for card in hand if card.faction is DOPPELGANGERS) or hand
    for card in hand:
        if card.faction is led:
            return tuple(c for c in hand if c.faction is led or c.faction is DOPPELGANGERS)
    return hand


def _unique(decision_of: dict, cards: tuple[Card, ...]) -> tuple[Decision, ...]:
    """The decisions for `cards` (in code order), each once."""
    result = []
    last = None
    for card in sorted(cards) if len(cards) > 1 else cards:
        if card is not last:
            result.append(decision_of[card])
            last = card
    return tuple(result)


def apply(state: State, decision: Decision, seat: int | None = None) -> State:
    """The state after the acting seat makes `decision`.

    With `seat`, also checks that it is that seat's turn. Raises `GameOver`,
    `NotYourTurn` or `IllegalDecision` (with the reason) and changes nothing.
    """
    acting = state.to_act
    if acting is None:
        raise GameOver("the game is over")
    if seat is not None and seat != acting:
        raise NotYourTurn(f"it is seat {acting}'s turn, not seat {seat}'s")
    if decision not in legal_decisions(state):
        raise IllegalDecision(_why_illegal(state, decision))
    if decision.kind is PLAY:
        return _play(state, acting, decision.card)
    return _take(state, decision.card)


def _why_illegal(state: State, decision: Decision) -> str:
    seat = state.to_act
    if state.takers:
        if decision.kind is PLAY:
            return f"seat {seat} must take a prize now, not play a card"
        if decision.card is None:
            return f"seat {seat} did not win with a Seer: no Seer choice pending"
        prizes = " or ".join(card.code for card in state.remaining_prizes)
        return f"{decision.card} is not a prize now; take {prizes}"
    if decision.kind is not PLAY:
        return f"seat {seat} must play a card now; there is nothing to take"
    hand = state.hands[seat]
    if decision.card not in hand:
        return f"{decision.card} is not in seat {seat}'s hand"
    led = state.trick[0].card.faction
    if led is DOPPELGANGERS:
        return f"must follow Doppelgangers: seat {seat} holds one"
    return f"must follow {led.title} (or play a Doppelganger): seat {seat} holds one"


def _play(state: State, seat: int, card: Card) -> State:
    hand = state.hands[seat]
    at = hand.index(card)
    hands = list(state.hands)
    hands[seat] = hand[:at] + hand[at + 1 :]
    trick = state.trick + (Play(seat, card),)
    if len(trick) < state.settings.players:
        return state._replace(hands=tuple(hands), trick=trick, to_act=(seat + 1) % len(hands))
    state = state._replace(hands=tuple(hands), trick=trick)
    if state.phase == 1:
        return _finish_phase1_play(state)
    return _finish_phase2_round(state)


def _finish_phase1_play(state: State) -> State:
    """Every card of a phase-1 round is down: score Undead, discard the rest, then
    hand out the prizes and draws (RULES.md 4)."""
    win = winning_play(state.trick)
    winner = win.seat
    undead, discarded = phase1_cards(state.trick)
    score_piles = list(state.score_piles)
    score_piles[winner] += tuple(undead)
    if state.players == 2:
        takers = (winner, 1 - winner)
    else:
        takers = ranking(state.trick, winner)
    # RULES.md 6, Seers: a win with a Seer (not a Doppelganger) shows the winner the
    # draw pile's top card and lets them take it instead of a prize.
    seer = win.card.faction is SEERS
    state = state._replace(
        peek=Play(winner, state.draw_pile[0]) if seer else None,
        score_piles=tuple(score_piles),
        discard=state.discard + tuple(discarded),
        winner=winner,
        takers=takers,
        seer_choice=seer,
    )
    return _hand_out(state)


def _hand_out(state: State) -> State:
    """Give the next takers their prize or draw until someone has a choice to make."""
    while state.takers:
        remaining = state.remaining_prizes
        if state.seer_choice or len(remaining) > 1:
            return state._replace(to_act=state.takers[0])
        if remaining:
            state = _acquire(state, remaining[0], PRIZE)
        else:
            state = _acquire(state, state.draw_pile[0], DRAW)
    return _next_round(state)


def _take(state: State, prize: Card | None) -> State:
    if prize is None:
        state = _acquire(state, state.draw_pile[0], DECK)
    else:
        state = _acquire(state, prize, PRIZE)
    return _hand_out(state._replace(seer_choice=False))


def _acquire(state: State, card: Card, source: str) -> State:
    """`takers[0]` puts `card` on their follower pile."""
    seat = state.takers[0]
    piles = list(state.follower_piles)
    piles[seat] += (card,)
    draw_pile = state.draw_pile[1:] if source != PRIZE else state.draw_pile
    return state._replace(
        follower_piles=tuple(piles),
        draw_pile=draw_pile,
        takers=state.takers[1:],
        acquired=state.acquired + (Acquisition(seat, card, source),),
    )


def _finish_phase2_round(state: State) -> State:
    """RULES.md 5 and 6: the winner scores the round, powers permitting."""
    settings = state.settings
    winner = winning_play(state.trick).seat
    opponents = tuple(
        seat for seat in range(settings.players) if settings.side_of(seat) != settings.side_of(winner)
    )
    table = Table(state.score_piles, state.gnomes_in_front, state.trolls_aside, state.removed)
    last = state.round == settings.hand_size - 1
    removed = resolve_phase2(table, state.trick, winner, opponents, last)
    state = state._replace(
        score_piles=tuple(map(tuple, table.score_piles)),
        gnomes_in_front=tuple(map(tuple, table.gnomes_in_front)),
        trolls_aside=tuple(table.trolls_aside),
        removed=tuple(table.removed),
        winner=winner,
    )
    return _next_round(state, removed)


def _next_round(state: State, removed: tuple[Play, ...] = ()) -> State:
    """Record the finished round and start the next one, or the next phase, or end."""
    record = RoundRecord(
        phase=state.phase,
        number=state.round,
        leader=state.leader,
        plays=state.trick,
        winner=state.winner,
        prizes=state.prizes,
        acquired=state.acquired,
        peek=state.peek,
        removed=removed,
    )
    leader = next_leader(state.trick, state.winner)
    state = state._replace(
        rounds=state.rounds + (record,),
        trick=(),
        winner=None,
        prizes=(),
        acquired=(),
        peek=None,
        round=state.round + 1,
    )
    if state.round < state.settings.hand_size:
        return _start_round(state, leader)
    if state.phase == 1:
        # RULES.md 5: follower piles become hands; the last round's leader rule carries over.
        state = state._replace(
            phase=2,
            round=0,
            hands=tuple(tuple(sorted(pile)) for pile in state.follower_piles),
            follower_piles=((),) * state.players,
        )
        return _start_round(state, leader)
    return state._replace(to_act=None, leader=leader)


def _start_round(state: State, leader: int) -> State:
    """Set the leader and, in phase 1, turn up the prizes (RULES.md 4)."""
    if state.phase == 2:
        return state._replace(leader=leader, to_act=leader)
    count = 1 if state.players == 2 else 2
    return state._replace(
        leader=leader,
        to_act=leader,
        prizes=state.draw_pile[:count],
        draw_pile=state.draw_pile[count:],
    )
