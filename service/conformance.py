"""Checking the engine against games in the conformance format
(tests/conformance/README.md): one JSON object per line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from .domain import ClaimError, Decision, Settings, apply, legal_decisions, new_game, result


def read_games(path: str | Path) -> Iterator[dict]:
    """The games of a conformance file, in order, skipping blank lines."""
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as error:
                    yield {"id": f"line {number}", "error": f"not JSON: {error}"}


def first_difference(game: dict) -> str | None:
    """Where the engine first departs from a recorded game, in words; None if nowhere."""
    if "error" in game:
        return game["error"]
    try:
        settings = Settings(game["players"], tuple(game["factions"]), game["first_leader"])
        state = new_game(settings, game["deck"])
        for number, step in enumerate(game["steps"]):
            legal = [str(decision) for decision in legal_decisions(state)]
            if state.to_act != step["seat"]:
                return f"step {number}: seat {state.to_act} acts, the record says {step['seat']}"
            if legal != step["legal"]:
                return f"step {number}: legal decisions {legal}, the record says {step['legal']}"
            state = apply(state, Decision.parse(step["move"]))
        if state.to_act is not None:
            return f"after {len(game['steps'])} steps the game is not over"
        outcome = result(state)
        engine = {
            "round_leaders": list(state.round_leaders),
            "score_piles": [sorted(card.code for card in pile) for pile in state.score_piles],
            "faction_winner": {f.code: side for f, side in outcome.faction_winners},
            "side_keys": [list(keys) for keys in outcome.side_keys],
            "winner": outcome.winner,
        }
    except ClaimError as error:
        return f"{type(error).__name__}: {error}"
    except (KeyError, TypeError, ValueError) as error:
        return f"malformed record: {type(error).__name__}: {error}"
    for field, value in engine.items():
        if game.get(field) != value:
            return f"{field}: engine {value}, the record says {game.get(field)}"
    return None
