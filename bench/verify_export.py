"""A finished game's export verified in the browser, as the replay page does it: how long.

    .venv/bin/python bench/verify_export.py [--games 5] [--runs 20] [--chromium /usr/bin/chromium]

Starts `claim serve` with its AI worker as bench/api.py does (REDIS_URL if set, else an
embedded Redis), has it play `--games` games of random AIs of 2, 3 and 4 players to their
end, then in the machine's headless Chromium (`--chromium`, default CLAIM_CHROMIUM or
/usr/bin/chromium) runs `verifyExport` of service/api/web/verify.js on each game's
export in a fresh page: once cold (the page's first call, as a replay page makes it),
then `--runs` times more. It checks the chain (WebCrypto SHA-256 of every line's
canonical bytes), the seal (WebCrypto Ed25519), the deck's commitment, and folds every
event through the browser's own rules engine (rules.js). The export and the keys are
fetched before; the time is the page's `performance.now()` around the call. Beside it,
the rules alone (the deck dealt and the decisions replayed by rules.js) and the import
of the modules.

Prints figures only, never judges them (the browser, the server and its worker share the
machine's CPUs: the load average is printed too).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import requests
from api import serving
from common import add_chromium
from playwright.sync_api import sync_playwright
from tqdm import tqdm

# Runs in a fresh page: the modules imported, the export verified once cold (the page's
# first call, as a replay page makes it) then `runs` times more, and its decisions
# replayed by the rules alone as many times; the times in ms, and what the verdict said.
MEASURE = """async ({ gameId, runs }) => {
  let started = performance.now();
  const { verifyExport } = await import("/web/verify.js");
  const { Replay } = await import("/web/rules.js");
  const imported = performance.now() - started;
  const keys = await (await fetch("/.well-known/claim-keys")).json();
  const exported = new Uint8Array(await (await fetch(`/games/${gameId}/export`)).arrayBuffer());
  const verify = [];
  let verdict;
  for (let run = 0; run <= runs; run++) {
    started = performance.now();
    verdict = await verifyExport(exported, keys, { gameId });
    verify.push(performance.now() - started);
  }
  const { settings: { players, factions, first_leader: firstLeader }, deck } = verdict.creation;
  const decisions = verdict.log.filter((event) => event.type === "DecisionMade");
  const rules = [];
  for (let run = 0; run < runs; run++) {
    started = performance.now();
    const replay = new Replay({ players, factions, firstLeader }, deck);
    for (const { data } of decisions) replay.apply(data.decision, data.seat);
    rules.push(performance.now() - started);
  }
  const { ok, reason, events } = verdict;
  return { gameId, ok, reason, events, bytes: exported.length, imported, verify, rules };
}"""


def finished_games(url: str, players: int, count: int) -> list[str]:
    """`count` games of random AIs of `players` players, played to their end."""
    seats = [{"kind": "ai", "level": "random"}] * players
    ids = [
        requests.post(f"{url}/games", json={"players": players, "seats": seats}, timeout=30).json()[
            "game_id"
        ]
        for _ in range(count)
    ]
    for game_id in ids:
        give_up = time.monotonic() + 300
        while requests.get(f"{url}/games/{game_id}", timeout=30).json()["status"] != "finished":
            if time.monotonic() > give_up:
                sys.exit(f"game {game_id} did not end in 300 s")
            time.sleep(0.2)
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5, help="finished games per player count")
    parser.add_argument("--runs", type=int, default=20, help="verifications of each export")
    add_chromium(parser)
    args = parser.parse_args()
    busy = os.getloadavg()[0]
    results = {}
    with serving(workers=1, connections=100, rq_worker=True) as server, sync_playwright() as pw:
        url = f"http://127.0.0.1:{server.port}"
        browser = pw.chromium.launch(executable_path=args.chromium)
        for players in tqdm((2, 3, 4), desc="player counts", leave=False, file=sys.stderr):
            results[players] = []
            for game_id in finished_games(url, players, args.games):
                page = browser.new_context().new_page()
                page.goto(f"{url}/rules")
                measure = {"gameId": game_id, "runs": args.runs}
                results[players].append(page.evaluate(MEASURE, measure))
                page.context.close()
        version = browser.version
        browser.close()
    report(args, version, (busy, os.getloadavg()[0]), results)


def report(args, version: str, busy: tuple[float, float], results: dict) -> None:
    print(
        f"headless Chromium {version}, {os.cpu_count()} CPUs shared by the browser, the server"
        f" and its worker; load average {busy[0]:.1f} at the start, {busy[1]:.1f} at the end"
    )
    print(
        f"{args.games} finished games of random AIs per player count, each export verified in a"
        f" fresh page: once cold (the page's first call), then {args.runs} times warm"
    )
    print()
    print(
        f"{'players':>7} {'events':>11} {'KB':>6}   {'cold ms p50':>11} {'max':>6}"
        f"   {'warm ms p50':>11} {'p90':>6}   {'rules alone p50':>15}   {'import ms p50':>13}"
    )
    for players, measured in results.items():
        for bad in (m for m in measured if not m["ok"]):
            print(f"{players:>7}  NOT VERIFIED: {bad['gameId']}: {bad['reason']}")
        events = [m["events"] for m in measured]
        cold = [m["verify"][0] for m in measured]
        warm = sorted(t for m in measured for t in m["verify"][1:])
        print(
            f"{players:>7} {min(events):>5}-{max(events):<5}"
            f" {statistics.median(m['bytes'] for m in measured) / 1024:>6.1f}"
            f"   {statistics.median(cold):>11.1f} {max(cold):>6.1f}"
            f"   {statistics.median(warm):>11.1f} {warm[int(0.9 * (len(warm) - 1))]:>6.1f}"
            f"   {statistics.median(t for m in measured for t in m['rules']):>15.2f}"
            f"   {statistics.median(m['imported'] for m in measured):>13.1f}"
        )


if __name__ == "__main__":
    main()
