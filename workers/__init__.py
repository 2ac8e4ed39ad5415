"""RQ jobs (DESIGN.md, Workers): AI turns (queue `ai`), deadlines and reminders
(queue `deadlines`), notifications by webhook and email (queue `webhooks`).

Jobs carry ids only, `(game id, version)`, never a card. RQ runs a job at least once;
the event store makes it count once: a job re-reads the game, does nothing if the game
moved on, and appends with that expected version and an event id derived from
`(game id, version)`, so a doubled or retried job lands once.

`claim worker` runs a worker with its scheduler and a sweeper that re-enqueues the
turn of any game left waiting on an AI seat (a job lost with a crashed worker).
"""
