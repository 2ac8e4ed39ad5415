"""Derived ids keep the formulas that stored games and sent notifications carry: a
move re-sent, or a job run again, across a deploy must still count once."""

from service.games import Notice, ids

# Each as the server gave it before the application layer (commit accd6e8).
BEFORE = {
    "a move of seat 1 with the key key-7": "d73d09d2-7a6b-5913-83ab-0d56672c39a6",
    "the AI turn at version 12": "c1d2c580-98eb-5c89-a031-be0cb26ee33a",
    "the second event of the deadline at version 12": "4aaa1aff-c49a-59dd-ab6a-c9be173c702a",
    "your-turn to p1 at version 12": "e0036b7b-f995-5da8-96d5-b7e8ff28e685",
}


def test_derived_ids_are_those_given_before():
    now = {
        "a move of seat 1 with the key key-7": ids.derived_id("abc", ids.MOVE, "1/key-7"),
        "the AI turn at version 12": ids.derived_id("abc", ids.AI_TURN, "12"),
        "the second event of the deadline at version 12": ids.derived_ids(
            "abc", ids.DEADLINE, "12", 2
        )[1],
        "your-turn to p1 at version 12": Notice("your-turn", "abc", 12, "p1").delivery_id,
    }
    assert {what: str(value) for what, value in now.items()} == BEFORE


def test_each_cause_derives_its_own_ids():
    causes = (ids.MOVE, ids.AI_TURN, ids.DEADLINE, ids.NOTICE)
    assert len({ids.derived_id("abc", cause, "12") for cause in causes}) == len(causes)
