"""The process runtime: what starts, supervises and serves the processes of `claim`.

- `serve`: `claim serve`, the supervisor of gunicorn, the RQ worker and the embedded Redis.
- `http_worker`: the gunicorn worker that serves the API.
- `embedded_redis`: the redis-server that `claim serve` runs when `REDIS_URL` is unset.
- `processes`: what every process started has in common (none outlives its parent).
- `local_cluster`: Redis nodes and clusters on this host, for tests, benches and
  `claim cluster`.
"""
