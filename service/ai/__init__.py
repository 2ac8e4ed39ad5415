"""Pure AI players (DESIGN.md: `domain <- ai`).

A player is a function of one seat's observation (RULES.md 8) and a `random.Random`,
returning one of `observation.legal`. It never sees the state, other hands or the
draw pile's order; it does no I/O and reads no clock, so its play depends on its
inputs only.

    >>> import random
    >>> from service.domain import Settings, new_game, observe, shuffled_deck
    >>> settings = Settings(players=2, factions=("GO", "KN", "UN", "DO", "DW"))
    >>> state = new_game(settings, shuffled_deck(settings.factions, random.Random(7)))
    >>> view = observe(state, state.to_act)
    >>> all(player(level)(view, random.Random(1)) in view.legal for level in LEVELS)
    True
"""

from __future__ import annotations

import random
from collections.abc import Callable

from service.domain import Decision, Observation

from . import greedy, random_player
from .expert import Expert

Player = Callable[[Observation, random.Random], Decision]
"""A player: (observation, rng) -> one of `observation.legal`."""

LEVELS = ("random", "greedy", "expert")


def player(level: str) -> Player:
    """The player of a level in `LEVELS`, with its default budget."""
    players: dict[str, Player] = {
        "random": random_player.random_player,
        "greedy": greedy.greedy,
        "expert": Expert(),
    }
    try:
        return players[level]
    except KeyError:
        raise ValueError(f"unknown AI level {level!r}: choose one of {', '.join(LEVELS)}") from None


__all__ = ["LEVELS", "Expert", "Player", "player"]
