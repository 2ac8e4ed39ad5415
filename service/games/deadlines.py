"""Move deadlines and join deadlines: the game's timer of the kind `deadlines`.

When a game's deadline passes, its timer fires `expire(game id, version)`: if the game
is still at that version, it appends, at that version and with event ids derived from
it (`ids.py`: a timer fired twice lands once), what the game's timeout policy comes to
now (`Game.on_timeout`): `TurnTimedOut` and, for `ai:<level>` (a takeover policy
before its limit too), the AI's decision for the seat; a game still open when its join
time runs out is aborted.
"""

from __future__ import annotations

from service.events import (
    AI_DECIDES,
    OPEN,
    DecisionMade,
    Event,
    Game,
    GameAborted,
    StaleVersion,
    TurnTimedOut,
    policy_parts,
)

from . import ids, turns
from .claim import Claim

JOIN_EXPIRED = "seats not taken within the join time limit"


def expire(claim: Claim, game_id: str, version: int) -> tuple[Event, ...]:
    """Apply the game's timeout policy if it is at `version` and its deadline has
    passed; answer the events appended, none when there was nothing to do."""
    game = claim.store.load(game_id, version)  # if it moved on since, the append tells
    deadline = game.deadline
    if deadline is None or claim.clock() < deadline:
        return ()
    if game.status == OPEN:
        events = [GameAborted(JOIN_EXPIRED)]
    else:
        seat, policy = game.state.to_act, game.on_timeout
        events = [TurnTimedOut(seat, policy)]
        mode, level = policy_parts(policy)
        if mode == AI_DECIDES:
            events.append(DecisionMade(seat, turns.decide(game, seat, level), policy))
    event_ids = ids.derived_ids(game_id, ids.DEADLINE, str(version), len(events))
    try:
        claim.store.append(game_id, events, version, ids=event_ids)
    except StaleVersion:
        return ()  # the seat moved just in time
    return tuple(events)


def follow(claim: Claim, game: Game, reset: bool = False) -> None:
    """After a change of `game`: set its deadline timer (or clear it, if it has no
    deadline).

    A game without a move time limit has no timer once a decision is made, as the
    change that started it cleared its join timer: its moves spend no round trip on
    clearing it again. `reset`: the timer may hold anything (it has just fired, or the
    projections are written again), so it is set from the game whatever the game."""
    if not reset and game.decisions and game.creation.move_time_limit is None:
        return
    claim.deadlines.set(game.id, game.version, game.deadline)
