"""The jobs the application asks of the workers, through RQ: AI turns (queue `ai`, and
`ai-expert` for the expert's, served by a lane of each worker that has its search
loaded: the other levels play while it loads), notifications and the mail of sign-in
links and confirmations (queue `webhooks`), the expert's analyses of ended games
(queues `analysis`, asked for by a player of the game, and `analysis-others`, served
after it by a lane of each worker of their own: an AI turn never waits for one).

Each `claim worker` also says every `BEAT` seconds that it is alive, on a key of its
own that Redis forgets `ALIVE` seconds later, and deletes it when it stops, and its
expert lane likewise once the expert's search is loaded (`WORKERS`, `EXPERTS`):
`/readyz` counts these (RQ's own heartbeat of an idle worker comes every 7 minutes only).

A job carries ids only, `(game id, version)`, and for a notification the kind, the
player and the channel, for a mail of sign-in links or of a confirmation the player
and the request's id, for an analysis the game id, the analysis version and the first
decision to judge: never a card, a hand, a deck or a secret. A job is named by the
string of its function (`workers.jobs.*`), so this package imports nothing of
`workers`. RQ runs a job at least once; the event store makes it count once (`ids.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

import redis
from rq import Queue, Retry

from service.config import DEFAULT_PREFIX
from service.events import CONFIRMATION, SIGN_IN

from . import ids

AI = "ai"  # the turns of the levels that search nothing (random, greedy)
EXPERT_AI = "ai-expert"  # the expert's turns
WEBHOOKS = "webhooks"
ANALYSIS = "analysis"  # asked for by one of the game's players
ANALYSIS_OTHERS = "analysis-others"  # asked for by anybody else
ANALYSIS_RETRY = Retry(max=2, interval=[5, 30])
AI_RETRY = Retry(max=5, interval=[1, 2, 4, 8, 16])  # seconds
# Four times longer each time: the last try comes about 1.4 hours after the first.
DELIVERY_RETRY = Retry(max=5, interval=[15, 60, 240, 960, 3840])
# A sign-in link is asked for by someone waiting for it: soon, or not at all.
SIGN_IN_RETRY = Retry(max=2, interval=[15, 60])
MAIL_JOBS = {SIGN_IN: "workers.jobs.sign_in", CONFIRMATION: "workers.jobs.confirm_email"}
AGAIN = "-again"  # the end of the id of a job that a sweep enqueued again
BEAT = 2  # seconds between two heartbeats of a worker
ALIVE = 3 * BEAT  # seconds a heartbeat counts: a worker missing three is not counted
WORKERS, EXPERTS = "workers", "experts"  # who beats: a worker, or its expert lane once loaded


def ai_turn_job(game_id: str, version: int) -> str:
    """The id of the job of an AI turn (RQ's job ids hold no ':')."""
    return f"ai-{game_id}-{version}"


def analysis_job(game_id: str, version: int, start: int) -> str:
    """The id of the job of a part of a game's analysis."""
    return f"analysis-{game_id}-{version}-{start}"


def waits(queued: frozenset[str], job_id: str) -> bool:
    """Whether the job, or the copy a sweep enqueued again, is among `queued`."""
    return job_id in queued or job_id + AGAIN in queued


def queue_name(name: str, key_prefix: str) -> str:
    """`ai`, `webhooks`, `analysis`; prefixed when the keys are (tests use a prefix each)."""
    return name if key_prefix == DEFAULT_PREFIX else f"{key_prefix}.{name}"


@dataclass(frozen=True, slots=True)
class Notice:
    """What one player is told about one game at one version (a notification's job
    carries it); `new_game_id` for a rematch."""

    kind: str
    game_id: str
    version: int
    player_id: str
    new_game_id: str | None = None

    @property
    def delivery_id(self) -> str:
        key = f"{self.version}/{self.kind}/{self.player_id}"
        return str(ids.derived_id(self.game_id, ids.NOTICE, key))


class Jobs:
    """The queues of one key prefix on one Redis."""

    def __init__(self, connection: redis.Redis, prefix: str):
        self.connection = connection
        self.ai = Queue(queue_name(AI, prefix), connection=connection)
        self.expert_ai = Queue(queue_name(EXPERT_AI, prefix), connection=connection)
        self.webhooks = Queue(queue_name(WEBHOOKS, prefix), connection=connection)
        self.analysis = Queue(queue_name(ANALYSIS, prefix), connection=connection)
        self.analysis_others = Queue(queue_name(ANALYSIS_OTHERS, prefix), connection=connection)
        self._prefix = prefix

    @property
    def queues(self) -> list[Queue]:
        """Every queue, in the order a worker serves them."""
        return [self.ai, self.expert_ai, self.webhooks, *self.analysis_queues]

    @property
    def turn_queues(self) -> list[Queue]:
        """The queues of a worker's main lane: AI turns first, then notifications."""
        return [self.ai, self.webhooks]

    @property
    def analysis_queues(self) -> list[Queue]:
        """The queues of a worker's analysis lane: a game's own players' asks first."""
        return [self.analysis, self.analysis_others]

    def ai_turn(self, game_id: str, version: int, searching: bool, again: bool = False) -> str:
        """Enqueue the AI turn of `game_id` at `version`, on the expert's queue if the
        AI `searching` is the expert (`again`: a sweep's copy of a job that was lost);
        answer the job id."""
        job_id = ai_turn_job(game_id, version) + (AGAIN if again else "")
        (self.expert_ai if searching else self.ai).enqueue(
            "workers.jobs.ai_turn",
            game_id,
            version,
            job_id=job_id,
            retry=AI_RETRY,
            result_ttl=60,
        )
        return job_id

    def queued_ai_turns(self) -> frozenset[str]:
        """The ids of the AI turns' jobs in the queue: not lost, only not run yet. (A
        job's status does not tell: a worker killed just after taking a job from the
        queue leaves it `queued` but nowhere.)"""
        return frozenset(self.ai.get_job_ids()) | frozenset(self.expert_ai.get_job_ids())

    def deliver(self, channel: str, notice: Notice) -> str:
        """Enqueue one notification by `channel`; answer the job id (the same for the
        same notice, so that a notice enqueued twice is one job)."""
        job_id = f"{channel}-{notice.delivery_id}"
        self.webhooks.enqueue(
            "workers.jobs.deliver",
            channel,
            notice.kind,
            notice.game_id,
            notice.version,
            notice.player_id,
            notice.new_game_id,
            job_id=job_id,
            retry=DELIVERY_RETRY,
            result_ttl=600,
        )
        return job_id

    def mail(self, kind: str, player_id: str, request: str) -> str:
        """Enqueue a mail of `kind` (sign-in links, a confirmation) to the player's
        address (`request`: an id of the asking, no secret: the worker draws the codes);
        answer the job id."""
        job_id = f"{kind}-{player_id}-{request}"
        self.webhooks.enqueue(
            MAIL_JOBS[kind],
            player_id,
            request,
            job_id=job_id,
            retry=SIGN_IN_RETRY,
            result_ttl=60,
        )
        return job_id

    def analyse(
        self, game_id: str, version: int, start: int, own: bool, next_part: bool = False
    ) -> str:
        """Enqueue a part of the analysis of `game_id` at analysis `version`, from its
        decision `start`, on the queue of the game's players' asks if `own`: a first
        part last (first come, first served), a `next_part` first (an analysis under
        way goes on before the next starts); answer the job id."""
        job_id = analysis_job(game_id, version, start)
        (self.analysis if own else self.analysis_others).enqueue(
            "workers.jobs.analyse",
            game_id,
            version,
            start,
            job_id=job_id,
            retry=ANALYSIS_RETRY,
            result_ttl=60,
            at_front=next_part,
        )
        return job_id

    def hurry_analysis(self, game_id: str, version: int, start: int) -> bool:
        """Move the part of the analysis from `start`, if it waits on the queue of
        others' asks, to the end of the game's players': whether it was there."""
        job_id = analysis_job(game_id, version, start)
        if not self.analysis_others.remove(job_id):
            return False  # under way, or on the players' queue already
        self.analyse(game_id, version, start, own=True)
        return True

    def beat(self, worker: str, role: str = WORKERS) -> None:
        """Say that `worker` (a name of its own) is alive in `role`, for `ALIVE`
        seconds; forget those whose heartbeat has run out (one that beats again
        meanwhile is counted again at its next beat)."""
        beating = self._beating(role)
        with self.connection.pipeline() as pipeline:
            pipeline.set(f"{beating}:{worker}", 1, ex=ALIVE)
            pipeline.sadd(beating, worker)
            pipeline.expire(beating, ALIVE)  # gone once every one is
            pipeline.smembers(beating)
            names = [name.decode() for name in pipeline.execute()[-1]]
        with self.connection.pipeline() as pipeline:
            for name in names:
                pipeline.exists(f"{beating}:{name}")
            alive = pipeline.execute()
        if dead := [name for name, beats in zip(names, alive, strict=True) if not beats]:
            self.connection.srem(beating, *dead)

    def stopped(self, worker: str, role: str = WORKERS) -> None:
        """Say that `worker` stopped (in `role`): it is counted no more."""
        beating = self._beating(role)
        with self.connection.pipeline() as pipeline:
            pipeline.delete(f"{beating}:{worker}")
            pipeline.srem(beating, worker)
            pipeline.execute()

    def alive(self, role: str = WORKERS) -> int:
        """How many workers (or expert lanes) have a heartbeat that has not run out."""
        beating = self._beating(role)
        names = [name.decode() for name in self.connection.smembers(beating)]
        return self.connection.exists(*(f"{beating}:{name}" for name in names)) if names else 0

    def _beating(self, role: str) -> str:
        """The set of the names that beat in `role` (each one's key: the set's, `:name`)."""
        return f"{self._prefix}:{role}"

    @staticmethod
    def delivery_attempt(retries_left: int | None) -> int:
        """Which attempt of a delivery a job with `retries_left` is: 1 for the first."""
        return 1 if retries_left is None else DELIVERY_RETRY.max - retries_left + 1
