"""`claim worker`: RQ jobs (`jobs.py`), each a few lines calling the application layer
(`service.games`), and the worker process that runs them (`worker.py`): AI turns on
the queue `ai`, notifications on the queue `webhooks`, and, in a thread of its own,
the timers (deadlines, reminders) and the sweep for lost AI turns.
"""
