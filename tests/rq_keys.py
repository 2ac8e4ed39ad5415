"""RQ's keys of a test's queues (named after its key prefix), to delete afterwards."""

from __future__ import annotations

import redis


def delete_rq_keys(client: redis.Redis, prefix: str) -> None:
    """Delete RQ's keys of the queues named after `prefix`: the queues, their
    registries, their jobs and the jobs' results, and the workers on them."""
    mine = prefix.encode()
    doomed, workers = [], []
    for key in client.scan_iter(match="rq:*"):
        if mine in key:
            doomed.append(key)
        elif client.type(key) == b"hash":
            origin, queues = client.hmget(key, "origin", "queues")
            if mine in (origin or b"") + (queues or b""):
                doomed.append(key)
                name = key.split(b":", 2)[2]
                doomed.append(b"rq:results:" + name)
                if key.startswith(b"rq:worker:"):
                    workers.append(name)
    if doomed:
        client.delete(*doomed)
    queues = [queue for queue in client.smembers("rq:queues") if mine in queue]
    if queues:
        client.srem("rq:queues", *queues)
    if workers:
        client.srem("rq:workers", *workers)
