"""`CLAIM_QUEUE_URL`: RQ's queues on a Redis of their own, the games where they were."""

from __future__ import annotations

from dataclasses import replace

import pytest
import redis

from service.config import Config, ConfigError
from service.games import Claim
from tests.games.factories import a_game
from tests.rq_keys import delete_rq_keys


def another_database(client: redis.Redis) -> str:
    """The URL of database 1 of the test's Redis (the games use database 0)."""
    where = client.connection_pool.connection_kwargs
    if "path" in where:
        return f"unix://{where['path']}?db=1"
    return f"redis://{where['host']}:{where['port']}/1"


def test_jobs_go_to_the_queue_redis_and_games_stay_in_the_store(
    redis_client, queue_url, config, clock, rq_cleanup, prefix
):
    url = queue_url or another_database(redis_client)  # on a cluster, the queues' own
    claim = Claim.connect(replace(config, queue_url=url), client=redis_client, clock=clock)
    queues = redis.Redis.from_url(url)
    try:
        game = a_game(claim, kinds=("random", "random"))  # an AI is to act: a job
        queued = queues.lrange(f"rq:queue:{claim.jobs.ai.name}", 0, -1)
        assert queued and all(job_id.startswith(b"ai-") for job_id in queued)
        assert not redis_client.exists(f"rq:queue:{claim.jobs.ai.name}")
        assert redis_client.exists(f"{prefix}:game:{{{game.id}}}:events")
        assert not queues.exists(f"{prefix}:game:{{{game.id}}}:events")
    finally:
        delete_rq_keys(queues, prefix)
        queues.close()
        claim.close()


@pytest.mark.single_redis  # a cluster of the test's own making: no [cluster] copy
def test_on_a_cluster_the_queues_must_be_on_a_redis_of_their_own(
    cluster_url, single_redis_url, prefix, rq_cleanup
):
    config = Config(redis_url=cluster_url, prefix=prefix)
    with pytest.raises(ConfigError, match="CLAIM_QUEUE_URL is required"):
        Claim.connect(config)
    with pytest.raises(ConfigError, match="a cluster's node"):
        Claim.connect(replace(config, queue_url=cluster_url))
    claim = Claim.connect(replace(config, queue_url=single_redis_url))
    games = redis.RedisCluster.from_url(cluster_url)
    try:
        game = a_game(claim, kinds=("random", "random"))
        assert games.exists(f"{prefix}:game:{{{game.id}}}:events")  # found the cluster
        assert claim.jobs.ai.count == 1  # and the queues on the other Redis
    finally:
        claim.close()
        games.delete(*games.scan_iter(match=f"{prefix}:*"))
        games.close()
