"""The server's refusals (RFC 9457 problems) as one exception type, and a server that
cannot be reached as another."""

from __future__ import annotations

import httpx


class ProblemError(Exception):
    """An answer of 4xx or 5xx: `kind` is the problem's stable type without its path
    (`"stale-version"`, `"illegal-move"`, `"not-your-turn"`...), `problem` its whole body."""

    def __init__(self, status: int, problem: dict):
        self.status = status
        self.problem = problem
        self.kind = str(problem.get("type", "")).rsplit("/", 1)[-1] or f"http-{status}"
        super().__init__(f"{status} {self.kind}: {problem.get('detail', '')}")

    @property
    def current_version(self) -> int | None:
        """stale-version: the game's version now."""
        return self.problem.get("current_version")

    @classmethod
    def of(cls, response: httpx.Response) -> ProblemError:
        try:
            problem = response.json()
        except ValueError:  # not JSON: a proxy's page
            problem = {"detail": response.text[:200]}
        return cls(response.status_code, problem if isinstance(problem, dict) else {})


class Unreachable(ConnectionError):
    """No connection could be made to `url`: a wrong URL, or no server started there.
    `reason` is httpx's error (raised from None: the message says it, in one line)."""

    def __init__(self, url: str, reason: Exception):
        self.url = url
        self.reason = reason
        super().__init__(
            f"no Claim server answers at {url} ({reason or type(reason).__name__}):"
            " is it running (`claim serve`), and is that its address?"
        )
