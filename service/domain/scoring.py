"""Who wins each faction and the game (RULES.md section 7)."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card, Faction
from .state import State


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of a finished game. Sides are seats, or teams 0+2 and 1+3 with 4
    players."""

    faction_winners: tuple[tuple[Faction, int | None], ...]  # in the settings' order
    side_keys: tuple[tuple[int, int, int], ...]  # factions won, their cards, their values
    winner: int | None  # the winning side, or None for a draw

    def faction_winner(self, faction: Faction) -> int | None:
        return dict(self.faction_winners)[faction]


def faction_winner(piles: list[list[Card]], faction: Faction) -> int | None:
    """The side with most cards of `faction`; ties go to the higher values compared
    from the top; still equal, or nobody has any: None."""
    keys = [sorted((c.value for c in pile if c.faction is faction), reverse=True) for pile in piles]
    ranked = [(len(values), values) for values in keys]
    best = max(ranked)
    if best[0] == 0 or ranked.count(best) > 1:
        return None
    return ranked.index(best)


def result(state: State) -> Result:
    """The result of a finished game."""
    if state.to_act is not None:
        raise ValueError("the game is not over")
    sides = state.settings.sides
    piles = [[card for seat in side for card in state.score_piles[seat]] for side in sides]
    winners = tuple((f, faction_winner(piles, f)) for f in state.settings.factions)
    keys = []
    for side, pile in enumerate(piles):
        won = {f for f, w in winners if w == side}
        cards = [card for card in pile if card.faction in won]
        keys.append((len(won), len(cards), sum(card.value for card in cards)))
    return Result(faction_winners=winners, side_keys=tuple(keys), winner=winning_side(keys))


def winning_side(keys) -> int | None:
    """The side whose (factions won, their cards, their values) is best, or None if
    two sides share the best: a draw."""
    best = max(keys)
    return keys.index(best) if keys.count(best) == 1 else None
