"""The AI players: legal decisions only, from the observation only (issue 7)."""

import random

import numpy as np
import pytest

from service import ai
from service.ai import compiled, compiled_endgame, expert
from service.ai.codes import CODES, DECISIONS
from service.ai.compiled_endgame import DRAW, LOSS, WIN, Solution
from service.ai.determinize import sample_state, states, worlds
from service.ai.knowledge import outstanding_counts
from service.domain import (
    Settings,
    apply,
    legal_decisions,
    legal_faction_sets,
    new_game,
    observe,
    result,
    shuffled_deck,
)
from tests.ai.oracles import endgame
from tests.ai.oracles.compact import CompactGame
from tests.ai.oracles.endgame import exploit, outcome, solve
from tests.domain.factories import in_phase2


def random_states(games: int, seed: int):
    """Every state (with its seat to act) of `games` random games of 2, 3 and 4
    players over random legal decks, played with random legal decisions."""
    rng = random.Random(seed)
    for number in range(games):
        players = (2, 3, 4)[number % 3]
        factions = rng.choice(legal_faction_sets(players))
        settings = Settings(players, factions, rng.randrange(players))
        state = new_game(settings, shuffled_deck(factions, rng))
        while state.to_act is not None:
            yield state
            state = apply(state, rng.choice(legal_decisions(state)))


def observations(games: int, seed: int):
    for state in random_states(games, seed):
        yield observe(state, state.to_act)


PLAYERS = {"random": ai.random_player, "greedy": ai.greedy, "expert": ai.Expert(steps=60)}


@pytest.mark.parametrize("level", ["random", "greedy"])
def test_a_player_returns_only_legal_decisions(level):
    decide = PLAYERS[level]
    rng = random.Random(level)
    seen = 0
    for view in observations(games=45, seed=1):
        assert decide(view, rng) in view.legal
        seen += 1
    assert seen > 3000  # thousands of observations, all phases and player counts


def test_the_expert_returns_only_legal_decisions():
    """On a small budget over many observations, and its default on a few."""
    small, default = ai.Expert(steps=60, endgame_positions=300), ai.Expert()
    rng = random.Random(3)
    for number, view in enumerate(observations(games=3, seed=2)):
        assert small(view, rng) in view.legal
        if number % 60 == 0:
            assert default(view, rng) in view.legal


def hide_differently(state, seat):
    """The same game as `seat` may know it, other cards hidden elsewhere: each other
    seat's hand swaps a card with the draw pile, whose order turns."""
    draw_pile = list(reversed(state.draw_pile))
    hands = [list(hand) for hand in state.hands]
    for other in range(state.players):
        if other != seat and hands[other] and draw_pile:
            hands[other][0], draw_pile[0] = draw_pile[0], hands[other][0]
    return state._replace(hands=tuple(map(tuple, hands)), draw_pile=tuple(draw_pile))


@pytest.mark.parametrize("level", PLAYERS)
def test_a_player_decides_alike_whatever_the_hidden_cards_are(level):
    """A player gets the seat's observation and nothing else: changing what the seat
    cannot see changes neither its input nor its decision."""
    decide = PLAYERS[level]
    compared = 0
    for number, state in enumerate(random_states(games=4, seed=4)):
        if number % 7:
            continue
        seat = state.to_act
        twin = hide_differently(state, seat)
        view = observe(twin, seat)
        if twin == state or view != observe(state, seat):
            continue  # nothing hidden to change, or the change showed
        assert decide(view, random.Random(number)) == decide(
            observe(state, seat), random.Random(number)
        )
        compared += 1
    assert compared > 20


def test_sampled_states_agree_with_everything_the_seat_knows():
    """The expert's determinization: a sampled state looks to the seat exactly like
    the observation it came from, and deals the hidden cards differently."""
    rng = random.Random(5)
    differed = 0
    for number, state in enumerate(random_states(games=12, seed=6)):
        if number % 3:
            continue
        seat = state.to_act
        view = observe(state, seat)
        sampled = sample_state(view, rng)
        assert observe(sampled, seat) == view
        differed += sampled.hands != state.hands
    assert differed > 50


def test_sampled_games_are_the_sampled_states_on_the_compiled_engine():
    """The rollouts' deals (`worlds`) are the deals `states` samples from the same
    random numbers, as game arrays: the same position, and each seat's unseen cards
    those of its observation of the sampled state."""
    compared = 0
    for number, state in enumerate(random_states(games=6, seed=7)):
        if number % 5:
            continue
        view = observe(state, state.to_act)
        game = next(worlds(view, random.Random(number)))
        sampled = next(states(view, random.Random(number)))
        assert compiled.position(game) == CompactGame.from_state(sampled).position()
        for seat in range(state.players):
            unseen = outstanding_counts(observe(sampled, seat))
            assert {card.index: n for card, n in unseen.items()} == {
                card: n for card, n in enumerate(compiled.unseen(game, seat)) if n
            }
        compared += 1
    assert compared > 50


def test_the_expert_evaluates_every_legal_decision_from_the_observation_alone():
    """`evaluate` answers a win chance for each legal decision, in legal order; the
    same for the same seed; and the same when the cards the seat cannot see change."""
    compared = 0
    for number, state in enumerate(random_states(games=3, seed=8)):
        if number % 9:
            continue
        seat = state.to_act
        view = observe(state, seat)
        chances = expert.evaluate(view, f"game/{number}", budget=3)
        assert list(chances) == list(view.legal)
        assert all(0.0 <= chance <= 1.0 for chance in chances.values())
        assert expert.evaluate(view, f"game/{number}", budget=3) == chances
        twin = hide_differently(state, seat)
        if twin != state and observe(twin, seat) == view:
            assert expert.evaluate(observe(twin, seat), f"game/{number}", budget=3) == chances
            compared += 1
    assert compared > 5


def greedy_to_the_end(state):
    while state.to_act is not None:
        state = apply(state, ai.greedy(observe(state, state.to_act), None))
    return state


@pytest.mark.parametrize("seed", range(4))
def test_a_2_player_endgame_is_evaluated_by_playing_each_decision_out(seed):
    """With 2 players in phase 2 nothing is hidden: each decision's chance is the
    outcome of greedy at both seats after it, played here through the domain."""
    state = three_rounds_left(seed)
    side = state.to_act
    chances = expert.evaluate(observe(state, side), "seed")
    for decision, chance in chances.items():
        assert chance == outcome(result(greedy_to_the_end(apply(state, decision))).winner, side)


def minimax(state, side):
    """The value of a position for `side` by plain search, for small positions."""
    if state.to_act is None:
        return outcome(result(state).winner, side)
    values = [minimax(apply(state, d), side) for d in legal_decisions(state)]
    mine = (state.to_act % 2) == (side % 2)
    return max(values) if mine else min(values)


def last_rounds(hands):
    """A 2-player game's last three rounds, with these hands."""
    state = in_phase2(hands=hands)
    return state._replace(round=state.settings.hand_size - 3)


@pytest.mark.parametrize(
    "hands",
    [
        {0: "GN1 GI5 DR3", 1: "TR2 SE9 GN3"},
        {0: "DR9 TR0 SE1", 1: "GI3 GI7 GN5"},
        {0: "SE0 SE4 TR7", 1: "DR1 GI9 GN7"},
    ],
)
def test_the_endgame_solver_agrees_with_plain_search(hands):
    """The oracle's, on positions built by hand (the compiled searches read a state by
    replaying its deal and history: real games' states, below)."""
    state = last_rounds(hands)
    solution = solve(state, state.to_act)
    assert solution is not None
    assert solution.value in (WIN, DRAW, LOSS)
    assert solution.value == minimax(state, state.to_act)
    assert minimax(apply(state, solution.decision), state.to_act) == solution.value


def test_a_game_the_solver_calls_decided_goes_that_way_however_it_is_played():
    """`_decided` names a winner between rounds of phase 2 only when no play changes
    it: every game it names a winner in, played on at random, ends with that winner;
    and it names one early enough to spare the search."""
    rng = random.Random(5)
    named = early = 0
    for _ in range(300):
        factions = rng.choice(legal_faction_sets(2))
        game = CompactGame.deal(Settings(2, factions), shuffled_deck(factions, rng))
        calls = []
        while game.to_act is not None:
            if game.phase == 2 and not game.trick_cards:
                calls.append((endgame._decided(game), len(game.hands[0])))
            game.apply(rng.choice(game.legal_decisions()))
        for decided, cards_left in calls:
            if decided is not None:
                assert decided == game.winner()
                named += 1
                early += cards_left >= 3
    assert named and early


def test_the_endgame_solver_gives_up_over_its_budget():
    state = last_rounds({0: "GN1 GI5 DR3", 1: "TR2 SE9 GN3"})
    assert solve(state, state.to_act, budget=1) is None


def test_the_search_against_greedys_replies_gives_up_over_its_budget_or_time():
    hands = {0: "GN1 GI5 DR3 TR8 SE2 GN7 DR9 TR0", 1: "TR2 SE9 GN3 DR7 GI1 SE5 DR1 GI9"}
    state = in_phase2(hands=hands)
    assert exploit(state, 0, budget=1) is None
    assert exploit(state, 0, time_up=lambda: True) is None
    assert exploit(state, 0, time_up=lambda: False) is not None


def test_the_endgame_solver_gives_up_when_told_its_time_is_up():
    hands = {0: "GN1 GI5 DR3 TR8 SE2 GN7 DR9 TR0", 1: "TR2 SE9 GN3 DR7 GI1 SE5 DR1 GI9"}
    state = in_phase2(hands=hands)  # thousands of positions to search
    asked = []
    assert solve(state, 0, time_up=lambda: asked.append(1) or True) is None
    assert asked == [1]  # asked once, after its first few hundred positions
    assert solve(state, 0, time_up=lambda: False) is not None


def three_rounds_left(seed):
    """A real 2-player game, played by greedy until its last three rounds."""
    rng = random.Random(seed)
    factions = rng.choice(legal_faction_sets(2))
    state = new_game(Settings(2, factions), shuffled_deck(factions, rng))
    while state.phase == 1 or state.trick or len(state.hands[state.to_act]) > 3:
        state = apply(state, ai.greedy(observe(state, state.to_act), rng))
    return state


# The endgame searches: the Python oracle's and the compiled one the expert plays (in
# real games' states: the compiled one reads a state by replaying its deal and history).
SOLVERS = {"oracle": solve, "compiled": compiled_endgame.solve}
EXPLOITERS = {"oracle": exploit, "compiled": compiled_endgame.exploit}


@pytest.mark.parametrize("engine", SOLVERS)
@pytest.mark.parametrize("seed", range(4, 12))
def test_the_endgame_solver_agrees_with_plain_search_through_the_domain_in_real_games(seed, engine):
    """The solvers play in their own engines; plain search here plays `apply`."""
    state = three_rounds_left(seed)
    solution = SOLVERS[engine](state, state.to_act)
    assert solution.value == minimax(state, state.to_act)
    assert minimax(apply(state, solution.decision), state.to_act) == solution.value


@pytest.mark.parametrize("seed", range(4))
def test_the_expert_on_a_time_budget_plays_a_small_endgame_exactly(seed):
    """With 2 players in phase 2 it solves what its seconds allow: its decision keeps
    the game's value."""
    state = three_rounds_left(seed)
    side = state.to_act
    budget = ai.Budget(0.2, Ticking(0.0001))
    chosen = ai.Expert()(observe(state, side), random.Random(1), budget)
    assert minimax(apply(state, chosen), side) == minimax(state, side)


def against_greedy(state, side):
    """The best outcome for `side` against an opponent playing greedy, by plain search
    through the domain, for small positions."""
    if state.to_act is None:
        return outcome(result(state).winner, side)
    if state.to_act % 2 != side % 2:
        return against_greedy(apply(state, ai.greedy(observe(state, state.to_act), None)), side)
    return max(against_greedy(apply(state, d), side) for d in legal_decisions(state))


@pytest.mark.parametrize("engine", EXPLOITERS)
@pytest.mark.parametrize("seed", range(12))
def test_the_search_against_greedys_replies_agrees_with_plain_search(seed, engine):
    """`exploit` plays greedy's replies in its own engine; plain search here plays
    `ai.greedy` on `apply`. Its decision secures the value it tells."""
    state = three_rounds_left(seed)
    side = state.to_act
    line = EXPLOITERS[engine](state, side)
    assert line.value == against_greedy(state, side)
    assert against_greedy(apply(state, line.decision), side) == line.value


@pytest.mark.parametrize("seed", [499, 1215, 1392])  # found among the first 2,000
def test_the_expert_plays_a_lost_endgame_for_the_greedy_opponents_mistake(seed):
    """When every decision loses against perfect play, it plays a line that greedy's
    replies lose, where there is one (a greedy opponent is likelier than a perfect
    one), though greedy in its seat would not find it."""
    state = three_rounds_left(seed)
    side = state.to_act
    assert minimax(state, side) == LOSS
    greedys = apply(state, ai.greedy(observe(state, side), None))
    assert against_greedy(greedys, side) == LOSS < against_greedy(state, side)
    chosen = ai.Expert()(observe(state, side), random.Random(1))
    assert against_greedy(apply(state, chosen), side) > LOSS


@pytest.mark.parametrize("solved", [True, False])
def test_the_expert_plays_an_endgame_lost_to_greedy_too_for_the_best_playout(monkeypatch, solved):
    """When every decision loses against perfect play and against greedy's replies,
    or the game is too big to solve, it plays the one whose playout with greedy at
    both seats scores best: it looks for a line against greedy's replies only in a
    game known lost, not in place of perfect play."""
    state = three_rounds_left(0)
    legal = legal_decisions(state)
    assert len(legal) > 1
    codes = [CODES[decision] for decision in legal]
    asked = []
    monkeypatch.setattr(
        compiled_endgame, "solve", lambda *_: Solution(legal[0], LOSS, 1) if solved else None
    )
    monkeypatch.setattr(
        compiled_endgame, "exploit", lambda *_: asked.append(1) or Solution(legal[0], LOSS, 1)
    )
    monkeypatch.setattr(compiled, "rollout", lambda _, code, side, worths: codes.index(code))
    assert ai.Expert()(observe(state, state.to_act), random.Random(1)) == legal[-1]
    assert asked == ([1] if solved else [])


@pytest.mark.parametrize("rivals", [1, 4])
@pytest.mark.parametrize("gain", [0.5, 0.001])
def test_the_expert_plays_a_rival_of_greedys_choice_only_when_it_does_clearly_better(
    monkeypatch, rivals, gain
):
    """The search itself, with rollouts scripted by the decision searched: the best
    rival wins over greedy's choice when it beats it clearly, and only then."""
    factions = legal_faction_sets(3)[0]
    state = new_game(Settings(3, factions), shuffled_deck(factions, random.Random(2)))
    ranked = legal_decisions(state)[: rivals + 1]
    worth = {d: 0.0 for d in ranked} | {ranked[-1]: gain}
    noise = random.Random(1)
    monkeypatch.setattr(expert.greedy, "ranked", lambda _: list(ranked))

    def dealer(*_):
        def scores(codes, deals):
            return np.array(
                [
                    [worth[DECISIONS[code]] + noise.gauss(0, 0.3) for code in codes]
                    for _ in range(deals)
                ]
            )

        return scores

    monkeypatch.setattr(expert, "_dealer", dealer)
    chosen = ai.Expert(candidates=rivals + 1)(observe(state, state.to_act), random.Random(1))
    assert chosen == (ranked[-1] if gain > 0.1 else ranked[0])


class Ticking:
    """A clock that moves `tick` seconds each time it is read."""

    def __init__(self, tick: float):
        self.now, self.tick, self.reads = 0.0, tick, 0

    def __call__(self) -> float:
        self.now += self.tick
        self.reads += 1
        return self.now


def test_the_expert_on_a_time_budget_stops_when_its_clock_says_so():
    """It reads only the clock it is given; a budget of 20 ticks ends the search after
    about 20 reads, at least two deals per pass; a longer one searches longer."""
    views = [v for v in observations(games=3, seed=5) if len(v.legal) > 2 and v.phase == 1]
    expert = ai.Expert()
    for view in views[:10]:
        short, long = Ticking(0.01), Ticking(0.01)
        assert expert(view, random.Random(1), ai.Budget(0.2, short)) in view.legal
        assert expert(view, random.Random(1), ai.Budget(2.0, long)) in view.legal
        assert 20 <= short.reads <= 20 + 3 * 6  # the halving's passes, two deals each
        assert long.reads > 5 * short.reads
