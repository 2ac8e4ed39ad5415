"""What concerns the server rather than one game: the lobby, whether the store answers
(and the job queues and their workers), and the requests counted per client address
for the API's rate limit."""

from __future__ import annotations

from dataclasses import dataclass

import redis

from service.events import LobbyFilter, LobbyPage, StoreError

from .claim import Claim
from .errors import use_case


@use_case
def lobby(claim: Claim, status: str, offset: int, limit: int, only: LobbyFilter) -> LobbyPage:
    """Games with `status` (open, running, finished, aborted) that `only` keeps (of a
    count of players, rated or not, public or not), newest first, `limit` of them from
    `offset`."""
    return claim.lobby.page(status, offset, limit, only)


@use_case
def health(claim: Claim) -> None:
    """Raise StoreUnavailable unless the store answers."""
    claim.store.ping()


@dataclass(frozen=True, slots=True)
class Readiness:
    store: bool  # the game store answers
    queues: bool | None  # the job queues' Redis answers; None: this process has none
    workers: int  # workers whose heartbeat has not run out (`Jobs.beat`)

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
        workers = claim.jobs.workers_alive()
    except redis.RedisError:
        return Readiness(store, False, 0)
    return Readiness(store, True, workers)


@use_case
def count_request(claim: Claim, address: str, window_ms: int) -> tuple[int, int]:
    """Count one request from `address` in its window of `window_ms`: the requests of
    the window so far, this one included, and the milliseconds left in it."""
    return claim.request_counts.count(address, window_ms)
