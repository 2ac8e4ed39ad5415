"""The expert of another git revision, as a level of bench/ladder.py (`--baseline REF`):
how strong the expert is now against itself at REF, at equal time.

The revision is checked out once into a worktree of its own (`.bench/baselines/<commit>`,
kept, so that its compiled code is cached there too), and its expert plays in a
process of its own started there (this file run with `--serve`, the revision's
`service` first on its path): each decision is asked with the deal and the decisions
so far, which that process replays through the revision's own rules and observes from
the seat, as the ladder does with the current code. Only `Settings`, `new_game`,
`apply`, `observe`, `Card`, `Decision`, `Faction` and `service.ai`'s `Expert` and `Budget` are
asked of the revision.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINES = ROOT / ".bench" / "baselines"


def checkout(ref: str) -> Path:
    """The worktree of the commit `ref` names (made the first time it is asked for)."""
    commit = _git("rev-parse", "--verify", f"{ref}^{{commit}}")
    tree = BASELINES / commit
    if not (tree / "service").is_dir():
        BASELINES.mkdir(parents=True, exist_ok=True)
        _git("worktree", "add", "--detach", str(tree), commit)
    return tree


class Baseline:
    """The expert of the worktree `tree`, asked decision by decision (its process
    started at the first, one per ladder process)."""

    def __init__(self, tree: Path):
        self.tree = tree
        self._process: subprocess.Popen | None = None

    def warm(self) -> None:
        """Load (the first time: compile) the revision's expert, once, before the
        ladder's processes fork: their baselines then start from its cache."""
        subprocess.run(self._command("--warm"), check=True, env=self._env())

    def decide(self, game: dict, seat: int, rng: str, seconds: float | None, clock: str):
        """The revision's decision at the seat of `game` (settings, deck and decisions
        so far), with the random generator named `rng` and `seconds` of `clock` (None:
        its fixed work budget); and the CPU seconds it took."""
        if self._process is None:
            self._process = subprocess.Popen(
                self._command("--serve"),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=self._env(),
                text=True,
            )
        asked = {**game, "seat": seat, "rng": rng, "seconds": seconds, "clock": clock}
        self._process.stdin.write(json.dumps(asked) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"the baseline's process at {self.tree} ended")
        answer = json.loads(line)
        return answer["decision"], answer["cpu"]

    def _command(self, what: str) -> list[str]:
        return [sys.executable, str(Path(__file__).resolve()), what]

    def _env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(self.tree)}


def serve(lines, out) -> None:
    """The baseline's process: answer each request line with the revision's decision."""
    from service.ai import Budget, Expert
    from service.domain import Card, Decision, Faction, Settings, apply, new_game, observe

    expert, rngs = Expert(), {}
    clocks = {"cpu": time.process_time, "wall": time.monotonic}
    for line in lines:
        asked = json.loads(line)
        factions = tuple(Faction(code) for code in asked["factions"])
        settings = Settings(asked["players"], factions, asked["leader"])
        state = new_game(settings, tuple(Card.parse(code) for code in asked["deck"]))
        for seat, text in asked["decisions"]:
            state = apply(state, Decision.parse(text), seat)
        rng = rngs.setdefault(asked["rng"], random.Random(asked["rng"]))
        budget = asked["seconds"] and Budget(asked["seconds"], clocks[asked["clock"]])
        cpu = time.process_time()
        decision = expert(observe(state, asked["seat"]), rng, budget or None)
        cpu = time.process_time() - cpu
        out.write(json.dumps({"decision": str(decision), "cpu": cpu}) + "\n")
        out.flush()


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


if __name__ == "__main__":
    import service.ai as ai

    if not Path(ai.__file__).is_relative_to(os.environ["PYTHONPATH"]):
        raise SystemExit(f"the baseline imported {ai.__file__}, not its revision's")
    if sys.argv[1:] == ["--warm"]:
        getattr(ai, "warm", lambda: None)()  # older revisions compile nothing
    elif sys.argv[1:] == ["--serve"]:
        serve(sys.stdin, sys.stdout)
    else:
        raise SystemExit(f"bench/baseline.py --warm or --serve, not {' '.join(sys.argv[1:])}")
