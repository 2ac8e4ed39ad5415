"""Timers: the moment a game must be looked at again (its deadline, its reminder).

Each kind of timer keeps a sorted set, `<prefix>:{<kind>}:due`, of game id -> the Unix
time it falls due, and a hash of the game version each game's timer was last set (or
cleared) at: a timer is only ever set from a version as new as that, so that two
changes scheduling out of order cannot leave an older version's timer in place of a
newer one's. Both
are projections of the streams (`changes.rebuild` writes them again).

Setting the first timer of a given second also schedules one RQ job at that second,
on the queue `deadlines`. That job fires every timer of its kind then due, not only
those of its second, a chunk at a time: it claims up to `CHUNK` games (their score
becomes the end of a lease, so no other job takes them meanwhile), and fires each;
firing sets the game's timer anew from what the game is then. When it claims a whole
chunk, it first enqueues a helper job, so that with many timers falling due at once
every worker joins in, and no game waits behind a queue of RQ jobs of its own. A
game whose worker died keeps its lease until the lease runs out; the sweep enqueues a
job for any timer overdue for long with none in the queue.

Exactly once, as for AI turns: what a timer appends has event ids derived from the
game and the version it was appended at.
"""

from __future__ import annotations

import logging
import math
import re
import uuid
from collections.abc import Callable
from datetime import datetime

from redis.commands.core import Script
from rq import Queue

from service.events import GameStore

from . import queues

log = logging.getLogger(__name__)
CHUNK = 100  # games a job claims at a time
LEASE = 60.0  # seconds a claimed game is left to the job that claimed it

# KEYS: due, versions, the marker of the second.  ARGV: game id, version, score ("" to
# remove), the marker's lifetime in ms ("" when the score is past: no job to schedule).
# Answers 1 if the caller is to schedule the job of the second, else 0.
SET = """
local known = tonumber(redis.call('HGET', KEYS[2], ARGV[1]))
if known and known > tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
if ARGV[4] == '' then return 0 end
if redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[4]) then return 1 end
return 0
"""

# KEYS: due, versions.  ARGV: now, how many at most, the end of the lease.
# Answers game id, version, game id, version...
CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
local claimed = {}
for _, id in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[3], id)
  table.insert(claimed, id)
  table.insert(claimed, redis.call('HGET', KEYS[2], id) or '0')
end
return claimed
"""
_set, _claim = Script(None, SET.encode()), Script(None, CLAIM.encode())  # any client


def due_key(store: GameStore, kind: str) -> str:
    return f"{store.prefix}:{{{kind}}}:due"


def _key(store: GameStore, kind: str, name: str) -> str:
    return f"{store.prefix}:{{{kind}}}:{name}"


def _job_id(queue: Queue, kind: str, suffix: str) -> str:
    """`<kind>-<queue>-<suffix>`: RQ's job ids hold letters, digits, `_` and `-` only."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", f"{kind}-{queue.name}-{suffix}")


def set_timer(
    store: GameStore, queue: Queue, kind: str, game_id: str, version: int, at: datetime | None
) -> str | None:
    """Set the game's timer of `kind` to `at` (None: no timer), as of `version`;
    answer the id of the job it scheduled, if it was the first of its second."""
    second = None if at is None else math.ceil(at.timestamp())
    now = store.clock().timestamp()
    # RQ keeps a scheduled job's time in whole seconds, rounded down: the job is put
    # at the second after `at`, so that it cannot run before it.
    marker_ms = "" if second is None or second <= now else int((second - now + 60) * 1000)
    keys = [due_key(store, kind), _key(store, kind, "version"), _key(store, kind, f"at:{second}")]
    args = [game_id, version, "" if at is None else at.timestamp(), marker_ms]
    if not _set(keys=keys, args=args, client=store.redis):
        if at is not None and marker_ms == "":
            return enqueue(queue, kind, "now")  # already due
        return None
    job_id = _job_id(queue, kind, str(second))
    at_second = datetime.fromtimestamp(second, at.tzinfo)
    queue.enqueue_at(at_second, "workers.jobs.timer", kind, job_id=job_id, result_ttl=60)
    return job_id


def enqueue(queue: Queue, kind: str, why: str) -> str:
    """Enqueue a job to fire the due timers of `kind` now; answer its id."""
    job_id = _job_id(queue, kind, f"{why}-{uuid.uuid4().hex}")
    queue.enqueue("workers.jobs.timer", kind, job_id=job_id, result_ttl=60)
    return job_id


def fire_due(
    store: GameStore, queue: Queue, kind: str, fire: Callable[[GameStore, str, int], object]
) -> int:
    """Fire every due timer of `kind`, `CHUNK` at a time, with `fire(store, game id,
    version)`, `version` being the one the timer was set at; `fire` sets the game's
    timer anew. Answer how many fired."""
    fired, helped = 0, False
    while True:
        now = store.clock().timestamp()
        keys = [due_key(store, kind), _key(store, kind, "version")]
        claimed = _claim(keys=keys, args=[now, CHUNK, now + LEASE], client=store.redis)
        if not claimed:
            return fired
        if len(claimed) == 2 * CHUNK and not helped:
            enqueue(queue, kind, "more")  # another worker takes the next chunk meanwhile
            helped = True
        pairs = zip(claimed[::2], claimed[1::2], strict=True)  # game id, version
        chunk = [(raw.decode(), int(version)) for raw, version in pairs]
        try:
            store.load_many([game_id for game_id, _ in chunk])  # into the cache, at once
        except Exception:  # then each is loaded, and fails, on its own
            log.exception("the %s timers: loading a chunk of games failed", kind)
        for game_id, version in chunk:
            try:
                fire(store, game_id, version)
            except Exception:  # its lease runs out, and the sweep enqueues it again
                log.exception("game %s: the %s timer failed", game_id, kind)
                continue
            fired += 1


def sweep(store: GameStore, queue: Queue, kind: str, late_after: float) -> str | None:
    """Enqueue a job for the timers of `kind` if one is overdue by more than
    `late_after` seconds (its job was lost, or its lease ran out) and no job of that
    kind waits in the queue; answer its id."""
    oldest = store.redis.zrange(due_key(store, kind), 0, 0, withscores=True)
    if not oldest or oldest[0][1] >= store.clock().timestamp() - late_after:
        return None
    mine = _job_id(queue, kind, "")
    if any(job_id.startswith(mine) for job_id in queues.queued(queue)):
        return None  # not lost: behind others in the queue
    log.warning("%s timers overdue with no job in the queue: enqueued one", kind)
    return enqueue(queue, kind, "sweep")
