"""What concerns the server rather than one game: the lobby, whether the store answers
(and the job queues and their workers), and the requests counted per client address
for the API's rate limit."""

from __future__ import annotations

from dataclasses import dataclass

import redis

from service.events import (
    ABORTED,
    FINISHED,
    GameSummary,
    LobbyFilter,
    LobbyPage,
    StoreError,
)

from .claim import Claim
from .errors import use_case
from .jobs import EXPERTS, WORKERS


@use_case
def lobby(claim: Claim, status: str, offset: int, limit: int, only: LobbyFilter) -> LobbyPage:
    """Games with `status` (open, running, finished, aborted) that `only` keeps (of a
    count of players, rated or not, public or not), newest first, `limit` of them from
    `offset`. Ended games are listed from Redis and from the archive, merged."""
    if status not in (FINISHED, ABORTED):
        return claim.lobby.page(status, offset, limit, only)
    count = offset + limit
    total, listed = claim.lobby.listing(status, count, only)
    archived_total, archived = claim.archive.listing(status, only.facets(), 0, count)
    in_redis = {game_id for _, game_id in listed}
    in_archive = {game.id for game in archived}
    merged = listed + [(game.created_at, game.id) for game in archived if game.id not in in_redis]
    page = [game_id for _, game_id in sorted(merged, reverse=True)[offset:count]]
    summaries = claim.lobby.summaries([game_id for game_id in page if game_id in in_redis])
    # Listed from the archive, or archived since the lobby's listing was read (a game
    # gone from both was deleted by a rebuild meanwhile: left out).
    archived_ids = [i for i in page if i not in summaries and i in in_archive]
    summaries |= {game.id: GameSummary.of(game) for game in claim.store.load_many(archived_ids)}
    total += archived_total - len(in_redis & in_archive)  # those being moved, counted once
    return LobbyPage(total, tuple(summaries[i] for i in page if i in summaries))


@use_case
def health(claim: Claim) -> None:
    """Raise StoreUnavailable unless the store answers."""
    claim.store.ping()


@dataclass(frozen=True, slots=True)
class Readiness:
    store: bool  # the game store answers
    queues: bool | None  # the job queues' Redis answers; None: this process has none
    workers: int  # workers whose heartbeat has not run out (`Jobs.beat`)
    experts: int = 0  # of them, those whose expert lane has its search loaded

    @property
    def ready(self) -> bool:
        """Whether this process can serve: the store answers. The queues' Redis down
        holds up AI turns and notifications, not moves: it is reported, not refused."""
        return self.store


@use_case
def readiness(claim: Claim) -> Readiness:
    """The store, the queues and the workers alive, as this process sees them."""
    try:
        claim.store.ping()
        store = True
    except StoreError:
        store = False
    if claim.jobs is None:
        return Readiness(store, None, 0)
    try:
        workers, experts = claim.jobs.alive(WORKERS), claim.jobs.alive(EXPERTS)
    except redis.RedisError:
        return Readiness(store, False, 0)
    return Readiness(store, True, workers, experts)


@use_case
def count_request(claim: Claim, address: str, window_ms: int) -> tuple[int, int]:
    """Count one request from `address` in its window of `window_ms`: the requests of
    the window so far, this one included, and the milliseconds left in it."""
    return claim.request_counts.count(address, window_ms)
