"""The games of ../shared/conformance/games.jsonl (or `CLAIM_CONFORMANCE`), loaded once."""

import json
import os
from pathlib import Path

CONFORMANCE = Path(
    os.environ.get(
        "CLAIM_CONFORMANCE",
        Path(__file__).resolve().parents[2] / "shared" / "conformance" / "games.jsonl",
    )
)


def _games() -> list[dict]:
    # A missing file fails the run at collection: it must never pass silently.
    with CONFORMANCE.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


GAMES = _games()
