"""What concerns the server rather than one game: the lobby, whether the store answers,
and the requests counted per client address for the API's rate limit."""

from __future__ import annotations

from service.events import LobbyPage

from .claim import Claim
from .errors import use_case


@use_case
def lobby(claim: Claim, status: str, offset: int = 0, limit: int = 20) -> LobbyPage:
    """Games with `status` (open, running, finished, aborted), newest first."""
    return claim.lobby.page(status, offset, limit)


@use_case
def health(claim: Claim) -> None:
    """Raise StoreUnavailable unless the store answers."""
    claim.store.ping()


@use_case
def count_request(claim: Claim, address: str, window_ms: int) -> tuple[int, int]:
    """Count one request from `address` in its window of `window_ms`: the requests of
    the window so far, this one included, and the milliseconds left in it."""
    return claim.request_counts.count(address, window_ms)
