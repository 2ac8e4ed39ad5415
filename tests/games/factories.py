"""Small builders of games through the application layer, for its tests."""

from __future__ import annotations

import random

from service import games
from service.domain import Settings, legal_decisions, shuffled_deck
from service.events import HUMAN, Game, SeatSpec, digest
from service.games import Change, Claim, changed
from tests.events.factories import FACTIONS, seats

INVITE = "invite-for-tests"


def a_game(claim: Claim, kinds=("human", "random"), seed=1, **options) -> Game:
    """A game as `games.create` makes it (its first change followed), over the deck
    of seed `seed`, each human seat's invite `INVITE`; `options`: the move time
    limit, the timeout policy..."""
    settings = Settings(len(kinds), FACTIONS[len(kinds)])
    specs = [
        SeatSpec(HUMAN, invite_hash=digest(INVITE)) if spec.kind == HUMAN else spec
        for spec in seats(*kinds)
    ]
    deck = shuffled_deck(settings.factions, random.Random(seed))
    game = claim.store.create(settings, specs, deck=deck, **options)
    changed(claim, Change(game, (game.creation,)))
    return game


def joined(claim: Claim, game: Game, keys: dict[int, str] | None = None) -> dict[int, str]:
    """Every human seat of `game` taken (by the registered player whose key `keys`
    gives for it, if any); the seat tokens."""
    keys = keys or {}
    return {
        seat: games.join(claim, game.id, seat, INVITE, f"p{seat}", keys.get(seat)).token
        for seat, spec in enumerate(game.seats)
        if spec.kind == HUMAN
    }


def moved(claim: Claim, game_id: str, tokens: dict[int, str], moves: int | None = None) -> Game:
    """`moves` decisions (None: to the end), each the first legal one, made through
    `games.move` by the seat to act, which must be a person's; the game after them."""
    game = claim.store.load(game_id)
    while game.state.to_act is not None and moves != 0:
        seat = game.state.to_act
        move = str(legal_decisions(game.state)[0])
        game = games.move(claim, game_id, tokens[seat], move, game.version, f"k{game.version}").game
        moves = None if moves is None else moves - 1
    return game
