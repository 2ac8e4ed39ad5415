"""`claim worker`'s parts in this process: its prompt scheduler and its worker class."""

import os
from datetime import timedelta

from rq.registry import ScheduledJobRegistry

from service.events.store import utc_now
from workers import queues
from workers.worker import PromptScheduler, Worker


def test_the_scheduler_moves_every_due_job_in_one_run(redis_client, prefix):
    """RQ's own moves 1,000 a queue and run: deadlines falling due together waited."""
    queue = queues.queue(queues.DEADLINES, redis_client, prefix)
    past, future = utc_now() - timedelta(seconds=5), utc_now() + timedelta(hours=1)
    with redis_client.pipeline() as pipeline:
        for n in range(1500):
            queue.enqueue_at(past, "os.getpid", job_id=f"due-{n}", pipeline=pipeline)
        queue.enqueue_at(future, "os.getpid", job_id="later", pipeline=pipeline)
        pipeline.execute()
    scheduler = PromptScheduler([queue], connection=redis_client)
    scheduler.acquire_locks()
    try:
        scheduler.enqueue_scheduled_jobs()
    finally:
        scheduler.release_locks()
    assert len(queue) == 1500
    assert ScheduledJobRegistry(queue=queue).get_job_ids() == ["later"]
    queue.delete(delete_jobs=True)


def test_the_worker_runs_jobs_in_its_own_process(redis_client, prefix):
    queue = queues.queue(queues.AI, redis_client, prefix)
    job = queue.enqueue("os.getpid")
    Worker([queue], connection=redis_client).work(burst=True)
    assert job.return_value() == os.getpid()
    queue.delete(delete_jobs=True)
