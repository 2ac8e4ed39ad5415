"""AI turns: an AI seat's decision made and appended, the turn enqueued after each
change that leaves an AI to act, and the sweep for turns whose job was lost (the use
cases around them are in `background.py`).

Exactly once: a turn's event id is derived from the game and the version it is
decided at (`ids.py`), so the same turn decided twice (a doubled or retried job) is
appended once.
"""

from __future__ import annotations

import logging
import random
import time
from datetime import timedelta

from service import ai
from service.domain import Decision, observe
from service.events import AI, AI_LEVELS, TAKEOVER, DecisionMade, Event, Game, StaleVersion

from . import ids, jobs
from .claim import Claim

log = logging.getLogger(__name__)

# The player of each AI level a seat may name.
PLAYERS: dict[str, ai.Player] = {
    "random": ai.random_player,
    "greedy": ai.greedy,
    "expert": ai.Expert(),
}
assert tuple(PLAYERS) == AI_LEVELS, "every level a seat may name has its player"


def searches(level: str) -> bool:
    """Whether the AI of `level` searches (the expert): its turns wait for a worker
    that has its search loaded."""
    return isinstance(PLAYERS[level], ai.Expert)


def decide(game: Game, seat: int, level: str, seconds: float | None = None) -> Decision:
    """The decision of an AI of `level` for `seat` now, from the seat's observation;
    seeded by the turn, so that a doubled job decides the same move. `seconds`: the
    expert's time (None: its fixed work budget, the same move every time)."""
    rng = random.Random(f"{game.id}/{game.version}")
    player, observation = PLAYERS[level], observe(game.state, seat)
    if isinstance(player, ai.Expert) and seconds is not None:
        return player(observation, rng, ai.Budget(seconds, time.monotonic))
    return player(observation, rng)


def take(claim: Claim, game_id: str, version: int) -> tuple[Event, ...]:
    """Decide and append the AI's move of `game_id` at `version`; answer the events
    appended, none if there was nothing to do (the game moved on, or no AI acts)."""
    game = claim.store.load(game_id)
    seat = game.acting_ai
    if game.version != version or seat is None:
        return ()
    spec = game.seats[seat]
    policy = None if spec.kind == AI else f"{TAKEOVER}:{spec.takeover}"
    decision = decide(game, seat, spec.ai_level, claim.config.expert_seconds)
    event = DecisionMade(seat, decision, timeout_policy=policy)
    event_ids = [ids.derived_id(game_id, ids.AI_TURN, str(version))]
    try:
        claim.store.append(game_id, [event], version, ids=event_ids)
    except StaleVersion:
        return ()  # someone else acted at this version: nothing left to do
    return (event,)


def follow(claim: Claim, game: Game) -> str | None:
    """After a change of `game`: enqueue its AI turn if an AI decides now, and mark
    the game as waiting on an AI (for the sweep); answer the job id."""
    if game.acting_ai is None:
        if game.ai_may_act:  # else it never waited on an AI: a round trip saved a move
            claim.ai_turns.done(game.id)
        return None
    searching = searches(game.seats[game.acting_ai].ai_level)
    job = None if claim.jobs is None else claim.jobs.ai_turn(game.id, game.version, searching)
    # Marked after the job is queued: on a cluster the mark may be on a master that is
    # failing over, which must not hold up the turn.
    claim.ai_turns.waiting(game.id, game.updated_at)
    return job


def sweep(claim: Claim, stuck_after: float) -> list[str]:
    """Enqueue again the turn of every game waiting on an AI for more than
    `stuck_after` seconds whose job is in no queue (lost with a crashed worker);
    answer their ids."""
    stuck = claim.ai_turns.waiting_since(claim.clock() - timedelta(seconds=stuck_after))
    if not stuck or claim.jobs is None:
        return []
    queued = claim.jobs.queued_ai_turns()
    again = []
    for game_id in stuck:
        game = claim.store.load(game_id)
        if game.acting_ai is None:
            claim.ai_turns.done(game_id)
        elif not jobs.waits(queued, jobs.ai_turn_job(game.id, game.version)):
            claim.ai_turns.waiting(game.id, claim.clock())  # as long again before a retry
            searching = searches(game.seats[game.acting_ai].ai_level)
            claim.jobs.ai_turn(game.id, game.version, searching, again=True)
            log.warning("game %s: AI turn at version %s enqueued again", game.id, game.version)
            again.append(game.id)
    return again
