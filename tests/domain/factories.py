"""Small builders so that a test shows only the cards that matter to it."""

from collections import Counter

from service.domain import Settings, State, apply, full_deck, new_game, parse_cards
from service.domain.cards import CODE_ORDER

CLAIM = ("GO", "KN", "UN", "DO", "DW")
CLAIM2 = ("GN", "GI", "DR", "TR", "SE")
SEVEN = ("GO", "KN", "UN", "DO", "DW", "DR", "SE")
SEVEN2 = ("GN", "GI", "UN", "DO", "DW", "DR", "TR")


def a_game(players=2, factions=CLAIM, hands=None, draw="", first_leader=0) -> State:
    """A new game whose seats hold at least `hands` ({seat: "GO3 KN5"}) and whose
    draw pile starts with `draw`; every other card is dealt in code order."""
    settings = Settings(players, factions, first_leader)
    size = settings.hand_size
    rest = Counter(full_deck(settings.factions))
    wanted = {seat: list(parse_cards(codes.split())) for seat, codes in (hands or {}).items()}
    top = list(parse_cards(draw.split()))
    for card in [c for cards in wanted.values() for c in cards] + top:
        rest[card] -= 1
        assert rest[card] >= 0, f"{card} used too often"
    spare = sorted(rest.elements(), key=CODE_ORDER)
    deck = []
    for seat in range(players):
        hand = wanted.get(seat, [])
        filler = size - len(hand)
        deck += hand + spare[:filler]
        spare = spare[filler:]
    return new_game(settings, deck + top + spare)


def in_phase2(players=2, factions=CLAIM2, hands=None, leader=0, last_round=False) -> State:
    """A game in phase 2 whose seats hold exactly `hands`; the last round if asked."""
    state = a_game(players, factions)
    cards = tuple(
        tuple(sorted(parse_cards((hands or {}).get(seat, "").split()), key=CODE_ORDER))
        for seat in range(players)
    )
    empty = ((),) * players
    return state._replace(
        phase=2,
        round=state.settings.hand_size - 1 if last_round else 0,
        leader=leader,
        to_act=leader,
        hands=cards,
        follower_piles=empty,
        draw_pile=(),
        prizes=(),
    )


def play(state: State, *decisions: str) -> State:
    """The state after these decisions, in order."""
    for decision in decisions:
        state = apply(state, decision)
    return state


def codes(cards) -> list[str]:
    """Card codes, sorted: for comparing piles."""
    return sorted(card.code for card in cards)
