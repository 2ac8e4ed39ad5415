"""Random legal games, for `claim simulate` and the engine benchmark."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from .domain import (
    Replay,
    Settings,
    State,
    new_game,
    random_factions,
    result,
    shuffled_deck,
)


def random_game(settings: Settings, rng: random.Random) -> tuple[State, int]:
    """Play a shuffled deal with uniformly random legal decisions; the final state and
    the number of decisions made."""
    replay = Replay(new_game(settings, shuffled_deck(settings.factions, rng)))
    decisions = 0
    while replay.to_act is not None:
        replay.apply(rng.choice(replay.legal_decisions()))
        decisions += 1
    return replay.state(), decisions


@dataclass
class Tally:
    """Outcomes of many games: wins per side, draws, and who won each faction."""

    games: int = 0
    decisions: int = 0
    draws: int = 0
    wins: Counter = field(default_factory=Counter)
    factions: dict = field(default_factory=dict)  # faction code -> Counter of sides / None

    def add(self, state: State, decisions: int) -> None:
        outcome = result(state)
        self.games += 1
        self.decisions += decisions
        if outcome.winner is None:
            self.draws += 1
        else:
            self.wins[outcome.winner] += 1
        for faction, side in outcome.faction_winners:
            self.factions.setdefault(faction.code, Counter())[side] += 1


def simulate(players: int, games: int, seed: int, factions=None, first_leader: int = 0):
    """Yield (final state, decisions) for `games` random games; random legal factions
    for each game unless `factions` is given."""
    rng = random.Random(seed)
    for _ in range(games):
        chosen = factions or random_factions(players, rng)
        yield random_game(Settings(players, chosen, first_leader), rng)
