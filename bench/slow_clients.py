"""Slow clients against `claim serve`: many connections from one address that each
start a request body and send no more, and `/healthz` asked from another address
meanwhile.

    .venv/bin/python bench/slow_clients.py [--slow 20000] [--workers 2] [--body-timeout 30]

Starts `claim serve` as bench/api.py does (REDIS_URL if set, else an embedded Redis),
then opens `--slow` connections from 127.0.0.2, at most 500 waiting for an answer at
a time, each `POST /players` with a chunked body of one byte; meanwhile a client of
127.0.0.1 asks `GET /healthz` on a new connection every 20 ms. Prints how the slow
ones were answered (429: over the address's cap of connections still sending; 408:
their body's deadline), the most held at once, and /healthz's latencies.

Target (issue "The edge"): 20,000 slow bodies from one address, /healthz p99 under
200 ms for others, no 5xx.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from api import percentile, serving
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.slow_clients
from tests.slow_clients import under_slow_bodies

ATTACKER = "127.0.0.2"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", type=int, default=20_000, help="slow connections to open")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--body-timeout", type=float, default=30.0, help="CLAIM_BODY_TIMEOUT")
    args = parser.parse_args()
    settings = {"CLAIM_BODY_TIMEOUT": f"{args.body_timeout:g}"}
    with serving(args.workers, 10_000, **settings) as server:
        started = time.perf_counter()
        with tqdm(total=args.slow, desc="slow bodies answered", unit="conn") as bar:
            outcome, health = under_slow_bodies(server.port, ATTACKER, args.slow, bar.update)
        seconds = time.perf_counter() - started
    answers = ", ".join(f"{status}: {n}" for status, n in sorted(outcome.answers.items(), key=str))
    print(f"slow bodies from {ATTACKER}: {args.slow} in {seconds:.1f} s; answered {answers}")
    print(f"  most waiting for an answer at once (client side): {outcome.most_held}")
    latencies = health.latencies
    statuses = ", ".join(f"{status}: {n}" for status, n in health.statuses.items())
    print(
        f"/healthz from 127.0.0.1 meanwhile: {len(latencies)} asked ({statuses}); "
        f"p50 {percentile(latencies, 0.5):.1f} ms, p99 {percentile(latencies, 0.99):.1f} ms, "
        f"max {1000 * max(latencies, default=0):.1f} ms"
    )


if __name__ == "__main__":
    main()
