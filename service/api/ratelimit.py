"""Rate limits per client address: a fixed window of requests, counted in Redis
(`service.games.count_request`).

One Lua call counts the request and answers the count and the time left in the
window, so the limit costs each request one round trip, `X-RateLimit-*` headers
included. Flask-Limiter needed three (the hit, then `GET` and `TTL` for the headers):
without those two, bench/api.py went from 578 to 865 `/healthz` and from 290 to 525
moves a second at 8 clients.

The limit is written as `limits` parses it: `1200 per minute`, `3/second`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import limits
from flask import Flask, Response, g, request

from service import games

from .problems import Problem


@dataclass(frozen=True, slots=True)
class Window:
    """Where a client stands in its window: the limit, the requests counted in it
    (this one included) and the Unix time it ends."""

    limit: int
    count: int
    ends_at: float

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.count)

    @property
    def exceeded(self) -> bool:
        return self.count > self.limit


def limit_requests(app: Flask, claim: games.Claim, limit: str) -> None:
    """Count every request of `app` per client address against `limit` ("1200 per
    minute"), answering one over it with the rate-limited problem; every answer
    carries the client's `X-RateLimit-Limit`, `-Remaining` and `-Reset` (Unix time)."""
    try:
        (item,) = limits.parse_many(limit)
    except ValueError as error:  # not a limit, or more than one
        raise ValueError(
            f"one rate limit such as '1200 per minute', not {limit!r}: {error}"
        ) from None
    window_ms = item.get_expiry() * 1000

    @app.before_request
    def count() -> None:
        # Per address, not per token: tokens are not checked before the limit is, so
        # counting per token would let made-up tokens escape it.
        counted, left_ms = games.count_request(claim, request.remote_addr, window_ms)
        g.rate_window = window = Window(item.amount, counted, time.time() + left_ms / 1000)
        if window.exceeded:
            raise Problem("rate-limited", f"more than {item} from one address")

    @app.after_request
    def tell(response: Response) -> Response:
        window = g.get("rate_window")
        if window is not None:
            reset = math.ceil(window.ends_at)
            response.headers["X-RateLimit-Limit"] = str(window.limit)
            response.headers["X-RateLimit-Remaining"] = str(window.remaining)
            response.headers["X-RateLimit-Reset"] = str(reset)
            if window.exceeded:
                wait = math.ceil(window.ends_at - time.time())
                response.headers["Retry-After"] = str(max(1, wait))
        return response
