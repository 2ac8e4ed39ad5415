"""The greedy player on the compact engine decides as the greedy player does
(`compact_greedy.decide` against `greedy.greedy` of the seat's `observe`), and so does
the compiled one (`compiled.decide`, its game array played alongside); a knowing
game's knowledge, and the compiled game's, is the seat's. bench/differential.py
--greedy compares more positions with progress."""

import random
from collections import Counter

import numpy as np

from service.ai import compiled
from service.ai.codes import DECISIONS
from service.ai.greedy import greedy
from service.ai.knowledge import outstanding_counts
from service.domain import Settings, apply, legal_faction_sets, new_game, observe, shuffled_deck
from tests.ai.oracles.compact_greedy import KnowingGame, decide
from tests.sizes import sized

CLAIM_1 = frozenset(("GO", "KN", "UN", "DO", "DW"))
CLAIM_2 = frozenset(("GN", "GI", "DR", "TR", "SE"))


def deck_kind(settings: Settings) -> str:
    """claim1 or claim2 when every faction is of that box, else mixed."""
    codes = {faction.value for faction in settings.factions}
    return "claim1" if codes <= CLAIM_1 else "claim2" if codes <= CLAIM_2 else "mixed"


def compared_games(games: int, seed: int):
    """Games of 2, 3 and 4 players in turn, over Claim 1, Claim 2 and mixed decks,
    each played by greedy with some random decisions (a share drawn per game) so that
    the positions are not greedy's alone. Yields, at every decision of every game,
    (settings, state, knowing game, compiled game array) in the same position, and
    once more when the game is over."""
    rng = random.Random(seed)
    for number in range(games):
        players = 2 + number % 3
        sets = legal_faction_sets(players)
        if players == 2:  # a Claim 1, a Claim 2 and a mixed deck in turn
            kind = ("claim1", "claim2", "mixed")[number // 3 % 3]
            sets = [f for f in sets if deck_kind(Settings(2, f)) == kind]
        settings = Settings(players, rng.choice(sets), rng.randrange(players))
        deck = shuffled_deck(settings.factions, rng)
        state, game = new_game(settings, deck), KnowingGame.deal(settings, deck)
        indexes = np.array([card.index for card in deck], dtype=np.int64)
        array = compiled.deal(compiled.settings_array(settings), indexes, settings.first_leader)
        explore = rng.random()
        while state.to_act is not None:
            yield settings, state, game, array
            legal = game.legal_decisions()
            code = rng.choice(legal) if rng.random() < explore else decide(game)
            state = apply(state, DECISIONS[code])
            game.apply(code)
            compiled.apply(array, code)
        yield settings, state, game, array


def test_the_compact_and_compiled_greedy_decide_as_greedy_over_a_hundred_thousand_positions():
    """And the compiled engine keeps the compact one's position, legal decisions and,
    at the end, side keys. (The suite plays a fifth of them: `--full` plays them all.)"""
    positions, kinds = 0, Counter()
    legal = np.empty(100, dtype=np.int64)
    games, least = sized((280, 20_000), (1_400, 100_000))
    for settings, state, game, array in compared_games(games=games, seed=1):
        where = f"{settings} phase {state.phase} round {state.round} seat {state.to_act}"
        assert compiled.position(array) == game.position(), where
        if state.to_act is None:
            assert tuple(map(tuple, compiled.side_keys(array).tolist())) == game.side_keys()
            continue
        view = observe(state, state.to_act)
        assert DECISIONS[decide(game)] == greedy(view, random.Random(0)), where
        assert compiled.decide(array) == decide(game), where
        assert legal[: compiled.legal(array, legal)].tolist() == game.legal_decisions(), where
        positions += 1
        kinds[settings.players, deck_kind(settings), state.phase, len(view.legal) > 1] += 1
    assert positions >= least
    for players, kind in [(2, "claim1"), (2, "claim2"), (2, "mixed"), (3, "mixed"), (4, "mixed")]:
        for phase in (1, 2):
            assert kinds[players, kind, phase, True] > least // 100, (players, kind, phase)


def test_each_seat_of_a_knowing_game_has_not_seen_what_its_observation_has_not():
    """The kept knowledge is `knowledge.outstanding` of each seat's observation at
    every step (Seer peeks, prizes, draws and the phase change included), and a game
    read from a domain state by its history (`from_state`) keeps the same."""
    compared = 0
    for number, (_, state, game, array) in enumerate(compared_games(games=60, seed=2)):
        replayed = KnowingGame.from_state(state) if number % 7 == 0 else None
        for seat in range(state.players):
            outstanding = outstanding_counts(observe(state, seat))
            expected = Counter({card.index: n for card, n in outstanding.items()})
            for knowing in filter(None, (game, replayed)):
                unseen = Counter({card: n for card, n in enumerate(knowing.unseen[seat]) if n})
                assert unseen == expected
                assert knowing.unseen_total[seat] == expected.total()
            unseen = Counter({card: n for card, n in enumerate(compiled.unseen(array, seat)) if n})
            assert unseen == expected
            assert array[compiled.UNSEEN_TOTAL + seat] == expected.total()
            compared += 1
    assert compared > 10_000
