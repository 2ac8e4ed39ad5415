"""The conformance games (tests/conformance/games.jsonl, and the games of the file that
`CLAIM_CONFORMANCE` names, if set), loaded once."""

import json
import os
from pathlib import Path

CONFORMANCE = Path(__file__).resolve().parent / "conformance" / "games.jsonl"


def _games(path: Path) -> list[dict]:
    # A missing file fails the run at collection: it must never pass silently.
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


GAMES = _games(CONFORMANCE)
if os.environ.get("CLAIM_CONFORMANCE"):  # a test-suite setting, not the service's
    GAMES += _games(Path(os.environ["CLAIM_CONFORMANCE"]))
