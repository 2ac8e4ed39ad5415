"""The RQ jobs: each carries ids only and calls one use case of `service.games`.

Every job of a process uses the process's `Claim`: the one `claim worker` made before
it started working (`use`), or else one made from the environment (under RQ's own
`rq worker`, say, which runs these jobs but fires no timer: only `claim worker`'s
clock thread does).
"""

from __future__ import annotations

from rq import get_current_job

from service import games
from service.config import Config

_claim: games.Claim | None = None


def use(claim: games.Claim) -> None:
    """Run this process's jobs with `claim`."""
    global _claim
    _claim = claim


def _current() -> games.Claim:
    if _claim is None:
        use(games.Claim.connect(Config.from_env()))
    return _claim


def ai_turn(game_id: str, version: int) -> int | None:
    """Play the AI turn of `game_id` at `version`."""
    return games.play_ai_turn(_current(), game_id, version)


def deliver(
    channel: str,
    kind: str,
    game_id: str,
    version: int,
    player_id: str,
    new_game_id: str | None = None,
) -> str | None:
    """Send one notification by `channel` ("webhook" or "email"); answer the outcome.
    Raises when the attempt failed, so that RQ tries again later."""
    job = get_current_job()
    attempt = games.Jobs.delivery_attempt(job.retries_left if job else None)
    notice = games.Notice(kind, game_id, version, player_id, new_game_id)
    delivery = games.deliver(_current(), channel, notice, attempt)
    return None if delivery is None else delivery.outcome


def sign_in(player_id: str, request: str) -> bool:
    """Email sign-in links to the player's address, with codes of their own; answer
    whether it went. Raises when it failed, so that RQ tries again soon."""
    return games.send_sign_in(_current(), player_id, request)


def confirm_email(player_id: str, request: str) -> bool:
    """Email the player's address links to confirm it; answer whether it went. Raises
    when it failed, so that RQ tries again soon."""
    return games.send_confirmation(_current(), player_id, request)


def analyse(game_id: str, version: int, start: int) -> int | None:
    """Judge a part of the analysis of `game_id`, and enqueue the next."""
    job = get_current_job()
    last_try = job is None or not job.retries_left
    return games.analyse_part(_current(), game_id, version, start, last_try)
