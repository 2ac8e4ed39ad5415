"""How soon a revoked key's streams end on `claim serve`: a stolen device key holds the
player's streams (`/me/stream` up to the cap, `/changes`), its device is removed (or
the key rotated), and each stream's end is timed from the answer to that request.

    .venv/bin/python bench/revocation.py [--players 50] [--workers 2]

Starts `claim serve` as bench/stream.py does (REDIS_URL if set, else an embedded Redis),
registers `--players` players, each with a second device holding three player streams
and a stream of changes; then, one player at a time, removes the device (every other
player: rotates the key instead) and waits for its four streams to end. Prints the
delay from the DELETE's (or POST's) answer to each stream's end, p50, p99 and max, and
how many of the players could open a stream of their own at once after (their places
freed).
"""

from __future__ import annotations

import argparse
import socket
import sys
import time

from api import Client, percentile, serving
from stream import SETTINGS
from tqdm import tqdm

STREAMS = ("/me/stream?max_seconds=3600", "/changes?lobby=true&max_seconds=3600")


def opened(port: int, path: str, key: str) -> socket.socket:
    """A stream of `path` opened with `key`, its head read (200)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    head = f"GET {path} HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer {key}\r\n\r\n"
    sock.sendall(head.encode())
    answer = sock.recv(65536)
    if not answer.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"{path}: {answer[:200]!r}")
    return sock


def ended(sock: socket.socket) -> float:
    """The monotonic time the server ended the stream (its chunked body's end, or the
    connection closed)."""
    while True:
        chunk = sock.recv(65536)
        if not chunk or chunk.endswith(b"0\r\n\r\n"):
            return time.monotonic()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2, help="claim serve --workers")
    args = parser.parse_args()
    delays, freed = [], 0
    with serving(args.workers, 2048, **SETTINGS) as server:
        client = Client(server.port)
        for n in tqdm(range(args.players), desc="players", unit=""):
            _, player, _ = client.call("POST", "/players", {"name": f"player {n}"})
            mine = {"Authorization": f"Bearer {player['key']}"}
            _, device, _ = client.call("POST", "/me/devices", {"name": "stolen"}, mine)
            stolen = {"Authorization": f"Bearer {device['key']}"}
            paths = [STREAMS[0]] * 3 + [STREAMS[1]]
            streams = [opened(server.port, path, device["key"]) for path in paths]
            if n % 2:
                status, _, _ = client.call("POST", "/me/key", None, stolen)
            else:
                device_path = f"/me/devices/{device['device_id']}"
                status, _, _ = client.call("DELETE", device_path, None, mine)
            answered = time.monotonic()
            if status not in (201, 204):
                raise RuntimeError(f"revoking: {status}")
            delays += [ended(sock) - answered for sock in streams]
            for sock in streams:
                sock.close()
            try:
                opened(server.port, STREAMS[0], player["key"]).close()
                freed += 1
            except RuntimeError:  # 429: a place still held
                pass
    print(
        f"claim serve --workers {args.workers}: {args.players} revoked keys, 4 streams each"
        f" (3 /me/stream, 1 /changes), half by DELETE /me/devices, half by POST /me/key"
    )
    print(
        f"answer to the stream's end, ms ({len(delays)}): p50 {percentile(delays, 0.5):.1f},"
        f" p99 {percentile(delays, 0.99):.1f}, max {max(delays) * 1000:.1f}; a stream of the"
        f" player's own opened at once after: {freed} of {args.players}"
    )


if __name__ == "__main__":
    sys.exit(main())
