"""Move deadlines and join deadlines: timers (`timers.py`) of the kind `deadlines`.

When a game's deadline passes, its timer fires `fire(game id, version)`: if the game
is still at that version, it appends, at that version and with event ids derived from
it (so a timer fired twice lands once), what the game's timeout policy says:
`TurnTimedOut` and, for `ai:<level>`, the AI's decision for the seat; a game still
open when its join time runs out is aborted.
"""

from __future__ import annotations

import uuid

from rq import Queue

from service.events import (
    AI_DECIDES,
    OPEN,
    DecisionMade,
    Game,
    GameAborted,
    GameStore,
    StaleVersion,
    TurnTimedOut,
    policy_parts,
)

from . import timers, turns

DEADLINES = uuid.UUID("4b7f2d0e-8a41-4f5c-9f0b-2c6e1d8a7b35")
JOIN_EXPIRED = "seats not taken within the join time limit"
KIND = "deadlines"


def due_key(store: GameStore) -> str:
    """Games by the moment their deadline falls due: a projection, for the timers."""
    return timers.due_key(store, KIND)


def expire(store: GameStore, game_id: str, version: int) -> int | None:
    """Apply the game's timeout policy if it is at `version` and its deadline has
    passed; answer the new version, or None when there was nothing to do."""
    game = store.load(game_id, version)  # if it moved on since, the append tells
    deadline = game.deadline
    if deadline is None or store.clock() < deadline:
        return None
    if game.status == OPEN:
        events = [GameAborted(JOIN_EXPIRED)]
    else:
        seat, policy = game.state.to_act, game.creation.timeout_policy
        events = [TurnTimedOut(seat, policy)]
        mode, level = policy_parts(policy)
        if mode == AI_DECIDES:
            decision = turns.decide(game, seat, level)
            events.append(DecisionMade(seat, decision, timeout_policy=policy))
    ids = [uuid.uuid5(DEADLINES, f"{game_id}/{version}/{n}") for n in range(len(events))]
    try:
        return store.append(game_id, events, version, ids=ids)
    except StaleVersion:
        return None  # the seat moved just in time


def schedule(queue: Queue, store: GameStore, game: Game, reset: bool = False) -> str | None:
    """Set the game's deadline timer (or clear it, if it has no deadline); answer the
    id of the job it scheduled, if any.

    A game without a move time limit has no timer once a decision is made, as the
    change that started it cleared its join timer: its moves spend no round trip on
    clearing it again. `reset`: the timer may hold anything (it has just fired, or the
    projections are written again), so it is set from the game whatever the game."""
    if not reset and game.decisions and game.creation.move_time_limit is None:
        return None
    return timers.set_timer(store, queue, KIND, game.id, game.version, game.deadline)
