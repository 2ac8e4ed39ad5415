"""Pure AI players (docs/design.md: `domain <- ai`).

A player is a function of one seat's observation (RULES.md 8) and a `random.Random`,
returning one of `observation.legal`. It never sees the state, other hands or the
draw pile's order; it does no I/O and reads no clock, so its play depends on its
inputs only (the expert may be given a `Budget` of seconds on a clock its caller
passes: then it plays as well as that time allows). Which player plays which AI
level a seat names is the application's choice (`service.games.turns.PLAYERS`).

    >>> import random
    >>> from service.domain import Settings, new_game, observe, shuffled_deck
    >>> settings = Settings(players=2, factions=("GO", "KN", "UN", "DO", "DW"))
    >>> state = new_game(settings, shuffled_deck(settings.factions, random.Random(7)))
    >>> view = observe(state, state.to_act)
    >>> all(play(view, random.Random(1)) in view.legal for play in (random_player, greedy))
    True
"""

from __future__ import annotations

import random
from collections.abc import Callable

from service.domain import Decision, Observation

from .expert import Budget, Expert, evaluate, warm
from .greedy import greedy
from .random_player import random_player

Player = Callable[[Observation, random.Random], Decision]
"""A player: (observation, rng) -> one of `observation.legal`."""

__all__ = ["Budget", "Expert", "Player", "evaluate", "greedy", "random_player", "warm"]
