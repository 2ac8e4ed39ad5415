"""rules.py's fast paths build tuples field by field (the private draft of a State, a
round's record): a slip in the field order would scramble every round end."""

from service.domain import Acquisition, Play, RoundRecord, parse_cards
from service.domain.rules import _Draft
from service.domain.state import DECK, PRIZE, State

from .factories import SEVEN, a_game, codes, play


def test_a_draft_freezes_back_into_the_state_it_copied():
    values = tuple(f"value of {name}" for name in State._fields)
    state = State(*values)
    draft = _Draft(state)
    assert all(getattr(draft, name) == f"value of {name}" for name in State._fields)
    assert draft.freeze() == state
    assert type(draft.freeze()) is State


def test_changing_a_draft_leaves_the_state_it_copied_alone():
    state = State(*(object() for _ in State._fields))
    before = tuple(state)
    draft = _Draft(state)
    draft.hands = "changed"
    assert tuple(state) == before
    assert draft.freeze().hands == "changed"


def test_a_finished_round_is_recorded_field_by_field():
    """rules.py builds each RoundRecord as a plain tuple, in field order."""
    state = a_game(3, SEVEN, hands={0: "SE9", 1: "SE1", 2: "SE2"}, draw="GO1 GO2 GO3")
    state = play(state, "play SE9", "play SE1", "play SE2", "take deck", "take GO1")
    go1, go2, go3, se9, se1, se2 = parse_cards(["GO1", "GO2", "GO3", "SE9", "SE1", "SE2"])
    assert state.rounds == (
        RoundRecord(
            phase=1,
            number=0,
            leader=0,
            plays=(Play(0, se9), Play(1, se1), Play(2, se2)),
            winner=0,
            prizes=(go1, go2),
            acquired=(
                Acquisition(0, go3, DECK),
                Acquisition(2, go1, PRIZE),
                Acquisition(1, go2, PRIZE),
            ),
            peek=Play(0, go3),
            removed=(),
        ),
    )


def test_a_card_is_found_in_a_hand_out_of_code_order():
    """rules.py finds a played card by bisection on code order, and falls back to a
    scan for a hand that is not in that order (a state built by hand in a test)."""
    state = a_game(2, hands={0: "GO1 KN9 UN5"})
    state = state._replace(hands=(tuple(reversed(state.hands[0])), state.hands[1]))
    after = play(state, "play KN9")
    assert codes(p.card for p in after.trick) == ["KN9"]
    assert "KN9" not in codes(after.hands[0]) and len(after.hands[0]) == 12
