"""rules.py's private draft must copy a State field for field, whatever the field
order: a slip would scramble every round end."""

from service.domain.rules import _Draft
from service.domain.state import State


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
