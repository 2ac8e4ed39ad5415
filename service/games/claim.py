"""`Claim`: what every use case works with, made once per process from the `Config`.

    claim = Claim.connect(Config.from_env())            # claim serve, claim worker
    claim = Claim.connect(config, client=redis_client, clock=clock, jobs=False)  # tests

The event store and each projection own their Redis keys; the job queues are RQ's,
on the Redis `CLAIM_QUEUE_URL` names when it is set (required when the games' Redis is
a cluster, which RQ does not support).
With `jobs=False` nothing is enqueued (the API's tests run no workers); the
projections are written all the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import redis

from service.config import Config, ConfigError
from service.events import (
    AiTurns,
    Analyses,
    Archive,
    Challenges,
    GameStore,
    Lobby,
    PlayerGames,
    PlayerStore,
    Ratings,
    Rematches,
    RequestCounts,
    Seals,
    SigningKey,
    SignIns,
    Timers,
    VapidKey,
    Watchers,
    WatchLeases,
    connect,
    utc_now,
)

from .jobs import Jobs
from .webhooks import Allowlist

DEADLINES = "deadlines"  # the kinds of timers
REMINDERS = "reminders"
ARCHIVES = "archives"  # an ended game's move to the archive
CHALLENGES = "challenges"  # an open challenge's expiry (keyed by the challenge's id)


@dataclass(frozen=True, slots=True)
class Claim:
    """The settings, the event store, the projections, the job queues and the clock."""

    config: Config
    store: GameStore
    archive: Archive  # the ended games moved out of Redis (the store reads them there too)
    players: PlayerStore
    lobby: Lobby
    player_games: PlayerGames
    ai_turns: AiTurns
    analyses: Analyses  # the expert's analyses of ended games
    deadlines: Timers
    reminders: Timers
    archives: Timers
    ratings: Ratings
    rematches: Rematches
    challenges: Challenges
    challenge_timers: Timers
    request_counts: RequestCounts
    sign_ins: SignIns
    seals: Seals  # of ended games
    signing_key: SigningKey  # the server's, which makes them
    watchers: Watchers  # this process's long-polls and live streams, by game
    watch_leases: WatchLeases
    jobs: Jobs | None
    allowlist: Allowlist  # where webhooks may go (`WEBHOOK_ALLOW`, parsed once)
    push_allowlist: Allowlist  # where Web Push may go (`CLAIM_PUSH_ALLOW`)
    vapid_key: VapidKey  # the server's, which signs its Web Push requests
    clock: Callable[[], datetime]

    @classmethod
    def connect(
        cls,
        config: Config,
        *,
        client: redis.Redis | None = None,
        clock: Callable[[], datetime] = utc_now,
        jobs: bool = True,
    ) -> Claim:
        """The application on `client` (default: a client of the Redis of `config`)."""
        client = client if client is not None else connect(config)
        prefix = config.prefix
        archive = Archive.open(config.archive)
        store = GameStore(client, prefix, clock, replicas=config.replicas, archive=archive)
        return cls(
            config=config,
            store=store,
            archive=archive,
            players=PlayerStore(client, prefix, clock),
            lobby=Lobby(client, prefix),
            player_games=PlayerGames(client, prefix),
            ai_turns=AiTurns(client, prefix),
            analyses=Analyses(client, prefix),
            deadlines=Timers(client, prefix, DEADLINES),
            reminders=Timers(client, prefix, REMINDERS),
            archives=Timers(client, prefix, ARCHIVES),
            ratings=Ratings(client, prefix),
            rematches=Rematches(client, prefix),
            challenges=Challenges(client, prefix),
            challenge_timers=Timers(client, prefix, CHALLENGES),
            request_counts=RequestCounts(client, prefix),
            sign_ins=SignIns(client, prefix),
            seals=Seals(client, prefix, archive),
            signing_key=SigningKey(config),
            watchers=Watchers(client, prefix, store),
            watch_leases=WatchLeases(client, prefix, clock),
            jobs=Jobs(queues(config, client), prefix) if jobs else None,
            allowlist=Allowlist.parse(config.webhook_allow),
            push_allowlist=Allowlist.parse(config.push_allow, public_names=True),
            vapid_key=VapidKey(config),
            clock=clock,
        )

    def close(self) -> None:
        """Stop what runs in the background of this process (the watchers' listener,
        the renewer of its watch leases)."""
        self.watchers.close()
        self.watch_leases.close()
        self.archive.close()

    def timers(self, kind: str) -> Timers:
        """The timers of `kind`: `deadlines`, `reminders` or `archives`."""
        return {DEADLINES: self.deadlines, REMINDERS: self.reminders, ARCHIVES: self.archives}[kind]


def queues(config: Config, games: redis.Redis | redis.RedisCluster) -> redis.Redis:
    """The Redis of the job queues: `CLAIM_QUEUE_URL`'s, else the games' unless that
    is a cluster (RQ does not support one)."""
    if not config.queue_url:
        if isinstance(games, redis.RedisCluster):
            raise ConfigError("CLAIM_QUEUE_URL is required: the games' Redis is a cluster")
        return games
    client = connect(config, config.queue_url)
    if isinstance(client, redis.RedisCluster):
        raise ConfigError("CLAIM_QUEUE_URL names a cluster's node: RQ needs a single Redis")
    return client
