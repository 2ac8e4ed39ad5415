"""The random player: any legal decision, each as likely."""

from __future__ import annotations

import random

from service.domain import Decision, Observation


def random_player(observation: Observation, rng: random.Random) -> Decision:
    """A legal decision drawn uniformly with `rng` from `observation.legal`."""
    return rng.choice(observation.legal)
