"""The expert's analysis of an ended game (`service/ai/analysis.py`), asked for once
per game and analysis version, computed by the workers, kept as a projection
(`service/events/analyses.py`).

An analysis is asked for with a player key; a player has at most
`Config.analyses_queued` under way of their asking (TooManyAnalyses). It is a chain of
jobs of `CHUNK` decisions each, every one enqueueing the next at the front of its
queue, so that the analyses are served first come, first served; the asks of the
game's own players go on a queue served before the others' (one of them asking for
an analysis that another asked for moves it there), so that theirs wait for their
own only. The workers run them in a lane of their own, apart from the AI turns
(`workers/worker.py`). A job carries the game id, the analysis version and its first
decision: nothing hidden. Each decision's judgement depends on the game and the
analysis version only, so a job run twice writes the same again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import orjson

from service.ai.analysis import ANALYSIS_VERSION, MARKS, Judged, analyse
from service.events import DecisionMade, Game, Recorded, fold
from service.events.analyses import DONE, FAILED, RUNNING

from .access import me
from .claim import Claim
from .errors import GameNotOver, TooManyAnalyses, UnknownGame, use_case
from .history import dealt_at

NONE = "none"  # the status of an analysis nobody asked for
CHUNK = 4  # decisions a job judges: about a second of a worker's time
STALE = 300  # seconds an analysis under way may go without a decision judged (its job lost)
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Analysis:
    """An analysis as far as it went: `judged` holds each decision judged so far (in
    order), as `judgement` writes it."""

    game_id: str
    version: int  # of the analysis
    status: str  # none (never asked for), queued, running, done, failed
    total: int  # the game's decisions
    judged: tuple[dict, ...]

    @property
    def thresholds(self) -> dict[str, float]:
        return {name: threshold for threshold, name in MARKS}


@use_case
def ask_analysis(claim: Claim, key: str | None, game_id: str) -> Analysis:
    """The player whose key this is asks for the analysis of the ended game `game_id`
    (queued unless it was asked for before and has not failed, nor stood still for
    `STALE` seconds); the analysis as far as it went. GameNotOver while the game runs
    (its deck is secret: nothing to judge a decision by)."""
    holder = me(claim, key)
    game, total = _ended(claim, game_id)
    own = any(seat.player == holder.id for seat in game.seats)
    now = claim.clock().timestamp()
    if claim.analyses.under_way(game_id, ANALYSIS_VERSION, now, STALE):
        if own:
            _hurry(claim, game_id)
        return analysis(claim, game_id)
    most = claim.config.analyses_queued
    if not claim.analyses.reserve(holder.id, game_id, ANALYSIS_VERSION, most, now, STALE):
        raise TooManyAnalyses(
            f"you have {most} analyses under way, the most (CLAIM_ANALYSES_QUEUED):"
            " ask again once one is done"
        )
    _queue(claim, game_id, total, own)
    return analysis(claim, game_id)


@use_case
def _ended(claim: Claim, game_id: str) -> tuple[Game, int]:
    """The ended game and its number of decisions; GameNotOver while it runs."""
    records = claim.store.read(game_id)
    game = fold(game_id, records)
    if game.ending is None:
        raise GameNotOver(f"game {game_id} has not ended: it cannot be analysed yet")
    return game, len(_decisions(records))


def _queue(claim: Claim, game_id: str, total: int, own: bool) -> None:
    """Ask for the analysis and enqueue its first part, unless it is under way."""
    now = claim.clock().timestamp()
    asked = claim.analyses.ask(game_id, ANALYSIS_VERSION, total, now, STALE, own)
    if asked and total and claim.jobs:
        claim.jobs.analyse(game_id, ANALYSIS_VERSION, 0, own)


def _hurry(claim: Claim, game_id: str) -> None:
    """A player of the game asked for its analysis under way: its part waiting on the
    queue of others' asks moves to the players'."""
    part = claim.analyses.hurry(game_id, ANALYSIS_VERSION)
    if part is not None and claim.jobs:
        claim.jobs.hurry_analysis(game_id, ANALYSIS_VERSION, part)


@use_case
def analysis(claim: Claim, game_id: str) -> Analysis:
    """The analysis of `game_id` as far as it went; status "none" if never asked for
    (UnknownGame if there is no such game)."""
    stored = claim.analyses.read(game_id, ANALYSIS_VERSION)
    if stored is None:
        total = len(_decisions(claim.store.read(game_id)))
        return Analysis(game_id, ANALYSIS_VERSION, NONE, total, ())
    judged = tuple(orjson.loads(stored.judged[index]) for index in sorted(stored.judged))
    return Analysis(game_id, ANALYSIS_VERSION, stored.status, stored.total, judged)


@use_case
def analyse_part(
    claim: Claim, game_id: str, version: int, start: int, last_try: bool = True
) -> int | None:
    """Judge the decisions `start` to `start + CHUNK` of the analysis of `game_id`,
    then enqueue the next part, or mark the analysis done once every decision is
    judged (a part of an analysis dropped by `claim rebuild` and asked for again may
    still run: it writes the same); answer where the next part starts (None: nothing
    to do, the analysis dropped or of another version). A failure on the `last_try`
    marks the analysis failed: asked for again, it starts anew."""
    stored = claim.analyses.read(game_id, version)
    if version != ANALYSIS_VERSION or stored is None or stored.status == DONE:
        return None
    try:
        claim.analyses.set_status(game_id, version, RUNNING, claim.clock().timestamp())
        records = claim.store.read(game_id)
        game = fold(game_id, records)
        decisions = _decisions(records)
        stop = min(start + CHUNK, len(decisions))
        settings, deck = game.creation.settings, game.creation.deck
        moves = [(record.event.seat, record.event.decision) for record in decisions]
        dealt = dealt_at(records)
        seed = f"{game_id}/analysis-{version}"
        for judged in analyse(settings, deck, moves, seed, start, stop):
            record = decisions[judged.index]
            kept = judgement(judged, record.version - dealt)
            claim.analyses.judged(game_id, version, judged.index, kept, claim.clock().timestamp())
        if stop < len(decisions):
            claim.analyses.queued_part(game_id, version, stop)
            claim.jobs.analyse(game_id, version, stop, stored.own, next_part=True)
            if not stored.own and (again := claim.analyses.read(game_id, version)) and again.own:
                claim.jobs.hurry_analysis(game_id, version, stop)  # a player asked meanwhile
        elif (now := claim.analyses.read(game_id, version)) and len(now.judged) == stop:
            claim.analyses.set_status(game_id, version, DONE, claim.clock().timestamp())
        return stop
    except Exception:
        if last_try:
            claim.analyses.set_status(game_id, version, FAILED, claim.clock().timestamp())
        raise


def requeue_analyses(claim: Claim) -> int:
    """`claim rebuild`: drop every stored analysis (of any analysis version) and ask
    for each game's again, at this version: the workers compute it anew. Answer the
    number of games asked for (a game gone, or not ended, is left out)."""
    stored = list(claim.analyses.every())
    for game_id, version in stored:
        claim.analyses.drop(game_id, version)
    asked = 0
    for game_id in dict.fromkeys(game_id for game_id, _ in stored):
        try:
            _queue(claim, game_id, _ended(claim, game_id)[1], own=False)
            asked += 1
        except (UnknownGame, GameNotOver):
            log.warning("game %s: its analysis dropped, not asked again: no ended game", game_id)
    return asked


def judgement(judged: Judged, step: int) -> bytes:
    """One decision's judgement as stored and answered (figures to 4 places)."""
    return orjson.dumps(
        {
            "index": judged.index,
            "step": step,
            "seat": judged.seat,
            "phase": judged.phase,
            "side": judged.side,
            "move": str(judged.played),
            "before": round(judged.before, 4),
            "after": round(judged.after, 4),
            "chances": [round(chance, 4) for chance in judged.chances],
            "best": str(judged.best),
            "loss": round(judged.loss, 4),
            "mark": judged.mark,
            "exact": judged.exact,
            "method": judged.method,
        }
    )


def _decisions(records: list[Recorded]) -> list[Recorded]:
    return [record for record in records if isinstance(record.event, DecisionMade)]
