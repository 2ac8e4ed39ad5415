"""Hidden information over the API (RULES.md 8): every read endpoint, read with each
seat's token and with none, shows the reader only what it may see, at every step of
random games of 2, 3 and 4 players; once the game has ended, everything.

The main check is differential, because copies of a card repeat and searching the
responses for card codes proves little. At step n a reader has not seen the cards at
some positions of the deck: the other hands, the draw pile, the cards other seats drew
or took from it, another seat's Seer peek. Shuffling the cards among exactly those
positions gives a twin deck; a game over the twin deck with the same n decisions must
answer that reader exactly as the game itself does (its legal decisions and the reasons
it may not play its other cards included), once game ids, commitments, heads, event ids and
times are set aside. A response that depends in any way on a card the reader
has not seen can tell the twins apart. Besides, direct checks at every step say
plainly what went wrong when something obvious leaks: the deck, another seat's draw
or peek, a token that opens the wrong seat, a refusal naming a card.
"""

from __future__ import annotations

import copy
import random
import re
from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations

import pytest

from service.domain import (
    Card,
    Decision,
    IllegalDecision,
    Settings,
    State,
    apply,
    is_over,
    legal_decisions,
    legal_faction_sets,
    new_game,
    shuffled_deck,
)
from service.domain.cards import SEERS
from service.domain.state import PRIZE, RoundRecord
from service.events import HUMAN, DecisionMade, SeatSpec, digest
from tests.api.factories import INVITE, Table

GAMES = [
    pytest.param(players, game, id=f"{players}-players-game-{game}")
    for players in (2, 3, 4)
    for game in range(2)
]
TWIN_STEPS = 8  # steps of each game at which twins are built, at least
SHUFFLES = 3  # free shuffles of the unseen cards tried before keeping factions in place
SWAPS = 20  # swaps across factions tried on top of a shuffle within factions
# Keys whose values differ between two games by nature; event ids are derived from
# the game id (moves) or random.
# A head's hash, as the commitment, is a digest over the salt: it differs by nature.
VOLATILE = {"commitment", "hash", "created_at", "updated_at", "deadline_at", "at", "id"}
CARD_CODE = re.compile(r"\b[A-Z]{2}[0-9]\b")
PROBLEM = "application/problem+json"
NOT_A_TOKEN = {"Authorization": "Bearer not-a-token-of-any-seat"}


@dataclass(frozen=True)
class Played:
    """A random game played by the engine: its deck, its state after each step (0: the
    deal) and its decisions as (seat, move)."""

    settings: Settings
    deck: tuple[Card, ...]
    states: tuple[State, ...]
    decisions: tuple[tuple[int, str], ...]

    def version(self, step: int) -> int:
        """The game's version after `step` decisions: its creation, the seats, the steps."""
        return 1 + self.settings.players + step


# What a reader is shown is drawn from the game's fold, the same on either kind of
# Redis: the store's own tests run on the cluster.
@pytest.mark.single_redis
@pytest.mark.parametrize(("players", "game"), GAMES)
def test_every_reader_sees_only_what_it_may_at_every_step(client, store, players, game):
    rng = random.Random(1000 * players + game)
    played = a_random_game(players, rng, with_seers=game == 0)
    table = a_table_over(client, store, played.settings, played.deck)
    stranger = a_table_over(client, store, played.settings, played.deck)  # another game
    twin_at = twin_steps(played, rng)
    twins = 0
    moved: dict = {}
    for step, state in enumerate(played.states):
        if step:
            seat, move = played.decisions[step - 1]
            response = table.post_move(seat, move, played.version(step - 1))
            assert response.status_code == 201, response.json
            moved = response.json
        if is_over(state):
            check_the_end(table, played, rng)
            continue
        check_a_running_step(table, stranger, played, step, rng)
        if step in twin_at:
            twins += check_twins(client, store, table, played, step, moved, rng)
    # A twin needs two different unseen cards that the past decisions allow to swap;
    # late in phase 2 a reader may have none, but not at most sampled steps.
    readers = players + 1
    assert twins >= len(twin_at) * readers * 3 // 4, f"only {twins} twins were built"


# The game, and the API games over its deck and its twins


def a_random_game(players: int, rng: random.Random, with_seers: bool) -> Played:
    """A random legal deck (with Seers if asked) played by random legal decisions."""
    choices = [f for f in legal_faction_sets(players) if (SEERS in f) == with_seers]
    settings = Settings(players, rng.choice(choices), first_leader=rng.randrange(players))
    deck = shuffled_deck(settings.factions, rng)
    state = new_game(settings, deck)
    states, decisions = [state], []
    while not is_over(state):
        decision = rng.choice(legal_decisions(state))
        decisions.append((state.to_act, str(decision)))
        state = apply(state, decision)
        states.append(state)
    return Played(settings, state.deck, tuple(states), tuple(decisions))


def a_table_over(client, store, settings: Settings, deck) -> Table:
    """A running game of human seats over `deck` in this order, every seat joined
    (`a_table_with_deck` for any settings)."""
    seats = [SeatSpec(HUMAN, invite_hash=digest(INVITE))] * settings.players
    game = store.create(settings, seats, deck=deck)
    table = Table(client, game.id)
    for seat in range(settings.players):
        response = client.post(
            f"/games/{game.id}/seats/{seat}", json={"invite": INVITE, "name": f"p{seat}"}
        )
        assert response.status_code == 201, response.json
        table.tokens[seat] = response.json["token"]
    return table


def replay(store, table: Table, played: Played, steps: int) -> dict:
    """The game's first `steps` decisions made on `table`; the last move's answer.

    All but the last are appended in one go, which gives the same events as moves
    over the API (bar their ids) at a fraction of the time; the last is a move over
    the API, whose answer is the mover's to compare."""
    if steps > 1:
        events = [DecisionMade(seat, Decision.parse(move)) for seat, move in played.decisions]
        store.append(table.game_id, events[: steps - 1], played.version(0))
    if not steps:
        return {}
    seat, move = played.decisions[steps - 1]
    response = table.post_move(seat, move, played.version(steps - 1))
    assert response.status_code == 201, (steps, move, response.json)
    return response.json


def twin_steps(played: Played, rng: random.Random) -> set[int]:
    """Steps to build twins at: the deal, both phases, round ends, a prize choice and a
    Seer choice and what follows it if the game has one, and random others."""
    states = played.states
    # Steps at which something is still hidden from everybody: late in phase 2 every
    # card left may be a prize, public.
    running = [
        n
        for n in range(1, len(states) - 1)
        if len({played.deck[p] for p in hidden_positions(states[n], None)}) > 1
    ]

    def round_ended(n: int) -> bool:
        return len(states[n].rounds) > len(states[n - 1].rounds)

    kinds = [
        [0],
        [n for n in running if states[n].phase == 1 and states[n].trick],
        [n for n in running if states[n].phase == 1 and round_ended(n)],
        [n for n in running if states[n].takers and not states[n].seer_choice],
        [n for n in running if states[n].seer_choice],
        [n for n in running if states[n - 1].seer_choice],
        [n for n in running if states[n].phase == 2 and states[n - 1].phase == 1],
        [n for n in running if states[n].phase == 2 and states[n].trick],
        [n for n in running if states[n].phase == 2 and round_ended(n)],
    ]
    chosen = {rng.choice(steps) for steps in kinds if steps}
    while len(chosen) < TWIN_STEPS:
        chosen.add(rng.choice(running))
    return chosen


# What a reader has seen


def readers(settings: Settings) -> list[int | None]:
    return [None, *range(settings.players)]


def who(reader: int | None) -> str:
    return "the public" if reader is None else f"seat {reader}"


def hidden_positions(state: State, reader: int | None) -> frozenset[int]:
    """The positions of the deck whose card `reader` (a seat, or None for anybody) has
    not seen in `state`: the deal gives seat s positions s*size.., the draw pile is the
    rest, top first, consumed by the prizes turned up, the draws and the Seer takes."""
    settings, deck = state.settings, state.deck
    size = settings.hand_size
    hands = [list(range(seat * size, (seat + 1) * size)) for seat in range(settings.players)]
    follower_piles: list[list[int]] = [[] for _ in range(settings.players)]
    seen = set(hands[reader]) if reader is not None else set()

    def played(seat: int, card: Card, positions: list[int]) -> None:
        # Copies are interchangeable: a card played shows at a position that holds it,
        # preferably one seen already (a prize), so the unseen ones stay unseen.
        holding = [p for p in positions if deck[p] == card]
        position = next((p for p in holding if p in seen), holding[0])
        positions.remove(position)
        seen.add(position)

    top = settings.players * size
    for record in (*state.rounds, current_round(state)):
        if record.phase == 2:
            for play in record.plays:
                played(play.seat, play.card, follower_piles[play.seat])
            continue
        prizes = list(range(top, top + len(record.prizes)))
        assert tuple(deck[p] for p in prizes) == record.prizes
        seen.update(prizes)
        top += len(prizes)
        for play in record.plays:
            played(play.seat, play.card, hands[play.seat])
        if record.peek is not None:
            assert deck[top] == record.peek.card
            if record.peek.seat == reader:
                seen.add(top)
        for acquisition in record.acquired:
            if acquisition.source == PRIZE:
                position = next(p for p in prizes if deck[p] == acquisition.card)
                prizes.remove(position)
            else:
                position, top = top, top + 1
                assert deck[position] == acquisition.card
                if acquisition.seat == reader:
                    seen.add(position)
            follower_piles[acquisition.seat].append(position)
    assert top == len(deck) - len(state.draw_pile)
    return frozenset(range(len(deck))) - seen


def current_round(state: State) -> RoundRecord:
    """The round in progress, as far as it has gone, as a record."""
    return RoundRecord(
        phase=state.phase,
        number=state.round,
        leader=state.leader,
        plays=state.trick,
        winner=-1,
        prizes=state.prizes,
        acquired=state.acquired,
        peek=state.peek,
    )


def a_twin_deck(
    played: Played, step: int, hidden: frozenset[int], rng: random.Random
) -> tuple[Card, ...] | None:
    """A deck that differs from the game's at some `hidden` positions and nowhere else,
    on which the game's first `step` decisions are all legal; None if there is none."""
    deck, positions = played.deck, sorted(hidden)

    def legal(cards: list[Card]) -> bool:
        try:
            state = new_game(played.settings, cards)
            for seat, move in played.decisions[:step]:
                state = apply(state, move, seat=seat)
        except IllegalDecision:
            return False
        return True

    def differs(cards: list[Card]) -> bool:
        return any(cards[p] != deck[p] for p in positions)

    if len({deck[p] for p in positions}) < 2:
        return None
    for _ in range(SHUFFLES):
        twin = list(deck)
        for position, card in zip(
            positions, rng.sample([deck[p] for p in positions], len(positions)), strict=True
        ):
            twin[position] = card
        if differs(twin) and legal(twin):
            return tuple(twin)
    # The follow rule sees factions only: a shuffle within each faction keeps every
    # decision legal. Then swap across factions wherever the decisions allow it.
    twin = list(deck)
    by_faction = defaultdict(list)
    for position in positions:
        by_faction[deck[position].faction].append(position)
    for group in by_faction.values():
        for position, card in zip(
            group, rng.sample([deck[p] for p in group], len(group)), strict=True
        ):
            twin[position] = card
    assert legal(twin)
    for _ in range(SWAPS):
        a, b = rng.sample(positions, 2)
        if twin[a].faction is not twin[b].faction:
            twin[a], twin[b] = twin[b], twin[a]
            if not legal(twin):
                twin[a], twin[b] = twin[b], twin[a]
    if differs(twin):
        return tuple(twin)
    for a, b in combinations(positions, 2):
        twin = list(deck)
        twin[a], twin[b] = twin[b], twin[a]
        if differs(twin) and legal(twin):
            return tuple(twin)
    return None


# Reading the game


def responses(
    table: Table, reader: int | None, step: int, probes: list[str], earlier: list[int]
) -> dict:
    """Everything `reader` reads of `table` at `step`, by request, normalised: the view,
    the replay of this step and of `earlier` ones, the event log, the audit, the legal
    decisions, and the problems answering the `probes`, moves it must be refused."""
    game = f"/games/{table.game_id}"
    headers = table.headers(reader)
    answers = {}

    def answer(response) -> dict:
        return {"status": response.status_code, "body": normalised(response.json, table)}

    for path in ("", *(f"/replay/{k}" for k in (*earlier, step)), "/events", "/audit", "/legal"):
        response = table.client.get(game + path, headers=headers)
        answers[f"GET /games/<game>{path}"] = {
            **answer(response),
            "etag": response.headers.get("ETag"),
        }
    version = 1 + len(table.tokens) + step
    tries = [(move, version) for move in probes] + [(probes[0], version - 1)] * bool(step)
    for number, (move, expected) in enumerate(tries):
        response = table.client.post(
            f"{game}/moves",
            json={"move": move, "expected_version": expected},
            headers={**headers, "Idempotency-Key": f"probe-{number}-{expected}"},
        )
        assert response.status_code != 201, f"the probe {move} was a legal move"
        answers[f"POST {move} at version {expected}"] = answer(response)
    return answers


def normalised(body, table: Table):
    """`body` without what differs between two games by nature: ids, commitments, times."""
    if isinstance(body, dict):
        return {
            key: f"<{key}>" if key in VOLATILE else normalised(value, table)
            for key, value in body.items()
        }
    if isinstance(body, list):
        return [normalised(value, table) for value in body]
    if isinstance(body, str):
        return body.replace(table.game_id, "<game>")
    return body


def first_difference(a, b, path: str = "") -> str | None:
    """Where `a` and `b` first differ, and how; None if they are equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key}: only on {'the game' if key in a else 'the twin'}"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list | tuple) and isinstance(b, list | tuple) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {a!r} on the game, {b!r} on its twin"


def probe_moves(played: Played, step: int, reader: int | None, rng: random.Random) -> list[str]:
    """Moves `reader` may try at `step` that the server must refuse, naming cards the
    reader has not seen (another hand's, the draw pile's) as well as its own."""
    state = played.states[step]
    unseen = sorted({played.deck[p].code for p in hidden_positions(state, reader)})
    acting = [card.code for card in state.hands[state.to_act]]
    own = [card.code for card in state.hands[reader]] if reader is not None else []
    moves = [f"play {rng.choice(pool)}" for pool in (unseen, acting, own) if pool]
    moves += ["take deck", f"take {rng.choice(unseen or own or acting)}"]
    if reader == state.to_act:
        legal = {str(decision) for decision in legal_decisions(state)}
        moves += [f"play {code}" for code in own if f"play {code}" not in legal][:1]
        moves = [move for move in moves if move not in legal]
    return list(dict.fromkeys(moves))


# The checks


def check_twins(client, store, table, played: Played, step: int, moved: dict, rng) -> int:
    """For each reader, a game over a twin deck, brought to `step` by the same decisions,
    answers that reader exactly as the game does; answers the number of twins built."""
    built = 0
    for reader in readers(played.settings):
        twin_deck = a_twin_deck(played, step, hidden_positions(played.states[step], reader), rng)
        if twin_deck is None:
            continue
        probes = probe_moves(played, step, reader, rng)
        earlier = [rng.randrange(step)] if step else []
        expected = responses(table, reader, step, probes, earlier)
        twin = a_table_over(client, store, played.settings, twin_deck)
        last_move = replay(store, twin, played, step)
        actual = responses(twin, reader, step, probes, earlier)
        if step and played.decisions[step - 1][0] == reader:
            expected["the answer to the step's move"] = normalised(moved, table)
            actual["the answer to the step's move"] = normalised(last_move, twin)
        difference = first_difference(expected, actual)
        assert difference is None, f"{who(reader)} tells a twin apart at step {step}: {difference}"
        if reader is not None:
            # The twin's token for the same seat opens nothing on the game.
            refused = table.client.get(f"/games/{table.game_id}", headers=twin.headers(reader))
            assert refused.status_code == 401
        built += 1
    return built


def check_a_running_step(table: Table, stranger: Table, played: Played, step: int, rng) -> None:
    """While the game runs: each reader's view shows its own hand and no card it has
    not seen, nothing shows the deck or the salt, and the audit refuses."""
    state = played.states[step]
    game = f"/games/{table.game_id}"
    public = table.view()
    assert public["you"] is None
    other = step % played.settings.players
    for headers in (NOT_A_TOKEN, stranger.headers(other)):  # a made-up token, another game's
        refused = table.client.get(game, headers=headers)
        assert refused.status_code == 401, f"{headers} opens something at step {step}"
        assert set(refused.json) == {"type", "title", "status", "detail", "instance"}
    # The history endpoints fold the whole game: one reader in turn reads them here,
    # every reader at the steps with twins.
    everyone = readers(played.settings)
    turn = everyone[step % len(everyone)]
    for reader in everyone:
        view = public if reader is None else table.view(reader)
        assert_shows_only_what_the_reader_saw(view, state, reader, step)
        if reader == turn:
            latest = table.client.get(f"{game}/replay/{step}", headers=table.headers(reader))
            assert latest.json["view"] == view, f"replay {step} is not {who(reader)}'s view"
        probes = probe_moves(played, step, reader, rng)
        move = probes[step % len(probes)]
        response = table.client.post(
            f"{game}/moves",
            json={"move": move, "expected_version": played.version(step)},
            headers=table.headers(reader, key=f"probe-{step}"),
        )
        assert_refused_telling_nothing(response, state, reader, move)
    events = table.client.get(f"{game}/events", headers=table.headers(turn)).json["events"]
    created = events[0]["data"]
    assert "deck" not in created and "salt" not in created, (
        f"the event log shows the deck at step {step}"
    )
    assert not any("token_hash" in e["data"] or "invite_hash" in str(e["data"]) for e in events)
    audit = table.client.get(f"{game}/audit", headers=table.headers(turn))
    assert (audit.status_code, audit.json["type"]) == (409, "/problems/game-not-over")
    assert table.view()["version"] == played.version(step), "a refused move changed the game"


def assert_shows_only_what_the_reader_saw(view: dict, state: State, reader, step: int) -> None:
    """No deck; the reader's own hand and peek; other seats' draws and peeks hidden."""
    where = f"{who(reader)}'s view at step {step}"
    assert view["status"] == "running" and view["revealed"] is None, f"{where} reveals the deck"
    if reader is None:
        assert view["you"] is None, where
    else:
        you = view["you"]
        assert you["seat"] == reader, where
        assert you["hand"] == [card.code for card in state.hands[reader]], where
        own_peek = state.seer_choice and state.peek.seat == reader
        assert you["peek"] == (state.peek.card.code if own_peek else None), where
        # Why a card may not be played: of the reader's own cards, naming none.
        reasons = you["unplayable"]
        assert set(reasons) <= set(you["hand"]), f"{where}: {reasons}"
        assert not CARD_CODE.findall(" ".join(reasons.values())), f"{where}: {reasons}"
    rounds = view["table"]["rounds"]
    for record in [*rounds, {"acquired": view["table"]["acquired"], "peek": None}]:
        for acquisition in record["acquired"]:
            hidden = acquisition["source"] != PRIZE and acquisition["seat"] != reader
            assert (acquisition["card"] is None) == hidden, f"{where}: {acquisition}"
        assert record["peek"] is None or record["peek"]["seat"] == reader, f"{where}: {record}"


def assert_refused_telling_nothing(response, state: State, reader, move: str) -> None:
    """A refused move: unauthorized without a token, out of turn for a seat not to
    act, else the engine's reason, which names no card but the move's, the seat's own
    and the prizes."""
    problem = response.json
    assert response.content_type == PROBLEM, (move, problem)
    if reader is None:
        assert problem["type"] == "/problems/unauthorized", (move, problem)
    elif reader != state.to_act:
        assert problem["type"] == "/problems/not-your-turn", (move, problem)
        assert problem["detail"] == f"it is seat {state.to_act}'s turn, not seat {reader}'s"
    else:
        assert problem["type"] == "/problems/illegal-move", (move, problem)
        known = {card.code for card in (*state.hands[reader], *state.remaining_prizes)}
        named = set(CARD_CODE.findall(problem["detail"])) - known - set(CARD_CODE.findall(move))
        assert not named, f"refusing {move!r} to seat {reader} names {named}: {problem}"


def check_the_end(table: Table, played: Played, rng) -> None:
    """Once over, every reader sees everything and the same: the view with the deck,
    every replay step, the event log with deck and salt, and the audit."""
    game = f"/games/{table.game_id}"
    deck = [card.code for card in played.deck]
    last = len(played.decisions)
    everyone = [(who(reader), table.headers(reader)) for reader in readers(played.settings)]

    def same_for_everyone(path: str, own=lambda body: body) -> dict:
        bodies = {}
        for name, headers in everyone:
            response = table.client.get(game + path, headers=headers)
            assert response.status_code == 200, (path, name, response.json)
            bodies[name] = body = copy.deepcopy(response.json)
            own(body)
        first = next(iter(bodies.values()))
        for name, body in bodies.items():
            assert body == first, (
                f"GET {path} differs for {name} after the end: {first_difference(first, body)}"
            )
        return first

    def without_you(body: dict) -> None:
        view = body.get("view", body)
        view.pop("you")
        assert view["revealed"]["deck"] == deck

    for path in ("", f"/replay/{last}"):  # a made-up token is refused, not taken for none
        assert table.client.get(game + path, headers=NOT_A_TOKEN).status_code == 401
    view = same_for_everyone("", without_you)
    assert view["status"] == "finished" and view["result"] is not None
    for step in sorted({0, rng.randrange(last), last}):
        same_for_everyone(f"/replay/{step}", without_you)
    created = same_for_everyone("/events")["events"][0]["data"]
    assert created["deck"] == deck and created["salt"]
    audit = same_for_everyone("/audit")
    assert audit["deck"] == deck and audit["commitment_verified"] and audit["result_verified"]
    for reader in readers(played.settings):
        response = table.client.post(
            f"{game}/moves",
            json={"move": "take deck", "expected_version": played.version(last)},
            headers=table.headers(reader, key="after-the-end"),
        )
        kind = "unauthorized" if reader is None else "game-over"
        assert response.json["type"] == f"/problems/{kind}", response.json
