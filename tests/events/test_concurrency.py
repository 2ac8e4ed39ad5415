"""Writers racing to append to one game, against a real Redis (docs/design.md, Events).

Every writer is a thread with its own Redis client and `GameStore` on the test's
prefix, unless a test shares one store. Barriers make them append at the same moment.
"""

import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

import pytest

from service.events import DecisionMade, Game, GameStore, StaleVersion, Watchers, fold
from tests.events.factories import a_move, ids_key, new_game, stream_key

WRITERS = 16
BARRIER_TIMEOUT = 60  # seconds; only a hung writer ever waits this long


@dataclass
class Attempt:
    """One append by one writer, and what it answered."""

    writer: int
    event_id: uuid.UUID
    event: DecisionMade
    expected: int
    version: int | None = None  # the answer of an accepted append
    conflict: StaleVersion | None = None
    error: Exception | None = None  # anything else, which must never happen
    resent_version: int | None = None  # the answers to the same event sent again
    resent_conflict: StaleVersion | None = None


def _send(store: GameStore, game_id: str, attempt: Attempt, again: bool = False) -> None:
    """Append the attempt's event with its id; record the answer, whatever it is."""
    try:
        version = store.append(game_id, [attempt.event], attempt.expected, ids=[attempt.event_id])
    except StaleVersion as conflict:
        if again:
            attempt.resent_conflict = conflict
        else:
            attempt.conflict = conflict
    except Exception as error:
        attempt.error = error
    else:
        if again:
            attempt.resent_version = version
        else:
            attempt.version = version


def _run_writers(writer: Callable[[int], list[Attempt]], barrier: threading.Barrier):
    """Run `writer(0)` ... `writer(WRITERS - 1)` at once; their attempts, all together.
    A writer that fails breaks the barrier so that the others stop too."""

    def guarded(number: int) -> list[Attempt]:
        try:
            return writer(number)
        except BaseException:
            barrier.abort()
            raise

    with ThreadPoolExecutor(WRITERS) as pool:
        return [attempt for attempts in pool.map(guarded, range(WRITERS)) for attempt in attempts]


@contextmanager
def _own_store(new_redis_client, prefix: str) -> Iterator[GameStore]:
    """A store on a client of its own, closed after the block."""
    client = new_redis_client()
    try:
        yield GameStore(client, prefix)
    finally:
        client.close()


def _race_in_rounds(
    new_redis_client,
    prefix: str,
    game_id: str,
    choose: Callable[[int, Game], tuple[uuid.UUID, DecisionMade]],
) -> list[Attempt]:
    """Every writer reads the game, then all append at once, round after round until
    the game is over; `choose(writer, game)` gives the event id and decision to send."""
    barrier = threading.Barrier(WRITERS, timeout=BARRIER_TIMEOUT)

    def writer(number: int) -> list[Attempt]:
        attempts = []
        with _own_store(new_redis_client, prefix) as store:
            while True:
                barrier.wait()  # the last round's appends are all done
                game = store.load(game_id)
                if game.state.to_act is None:
                    return attempts  # every writer read the same version: all stop here
                attempt = Attempt(number, *choose(number, game), expected=game.version)
                attempts.append(attempt)
                barrier.wait()  # every writer read the same version: now race
                _send(store, game_id, attempt)

    return _run_writers(writer, barrier)


def _check_the_stream_holds_exactly_the_accepted(redis_client, prefix, game_id, attempts):
    """The stream has versions 1..N, one per accepted append, each once, with its id
    and event, and nothing else; the game folds the same from a fresh store."""
    assert [attempt.error for attempt in attempts if attempt.error] == []
    accepted = [attempt for attempt in attempts if attempt.version is not None]
    conflicts = [attempt for attempt in attempts if attempt.conflict is not None]
    assert len(accepted) + len(conflicts) == len(attempts)
    written = {attempt.event_id: attempt for attempt in accepted}  # one per id

    store = GameStore(redis_client, prefix)  # no cached fold
    entries = redis_client.xrange(stream_key(prefix, game_id))
    last = len(entries)
    assert [entry_id for entry_id, _ in entries] == [f"{v}-0".encode() for v in range(1, last + 1)]
    assert sorted(attempt.version for attempt in written.values()) == list(range(2, last + 1))

    records = store.read(game_id)
    for record in records[1:]:
        attempt = written[record.id]
        assert (record.version, record.event) == (attempt.version, attempt.event)
    ids = {
        uuid.UUID(event_id.decode()): int(version)
        for event_id, version in redis_client.hgetall(ids_key(prefix, game_id)).items()
    }
    assert ids == {record.id: record.version for record in records}

    for attempt in conflicts:
        assert attempt.conflict.expected == attempt.expected
        assert attempt.expected < attempt.conflict.current <= last
        assert attempt.event_id not in ids

    game = store.load(game_id)
    assert game == fold(game_id, records)
    assert game.state.to_act is None
    assert game.decisions == last - 1


def test_racing_writers_append_one_after_another_and_the_others_conflict(
    new_redis_client, redis_client, prefix, store
):
    game = new_game(store, players=2, seed=5)
    rngs = [random.Random(number) for number in range(WRITERS)]

    def choose(writer: int, game: Game) -> tuple[uuid.UUID, DecisionMade]:
        return uuid.uuid4(), a_move(game.state, rngs[writer])

    attempts = _race_in_rounds(new_redis_client, prefix, game.id, choose)

    _check_the_stream_holds_exactly_the_accepted(redis_client, prefix, game.id, attempts)
    last = store.version(game.id)
    assert len(attempts) == WRITERS * (last - 1)
    for expected in range(1, last):
        round_ = [attempt for attempt in attempts if attempt.expected == expected]
        assert len(round_) == WRITERS
        assert [attempt.version for attempt in round_ if attempt.version] == [expected + 1]
        conflicts = [attempt.conflict for attempt in round_ if attempt.conflict]
        assert len(conflicts) == WRITERS - 1
        assert {conflict.current for conflict in conflicts} == {expected + 1}


def test_writers_sending_one_event_id_at_once_all_get_the_version_it_was_written_at(
    new_redis_client, redis_client, prefix, store
):
    game = new_game(store, players=3, seed=6)
    group_size = 4  # writers 0-3 send one event id, 4-7 another, ...

    def choose(writer: int, game: Game) -> tuple[uuid.UUID, DecisionMade]:
        group = writer // group_size
        name = f"{game.id} {game.version} {group}"
        return uuid.uuid5(uuid.NAMESPACE_URL, name), a_move(game.state, random.Random(name))

    attempts = _race_in_rounds(new_redis_client, prefix, game.id, choose)

    _check_the_stream_holds_exactly_the_accepted(redis_client, prefix, game.id, attempts)
    last = store.version(game.id)
    for expected in range(1, last):
        round_ = [attempt for attempt in attempts if attempt.expected == expected]
        written = {attempt.event_id for attempt in round_ if attempt.version is not None}
        assert len(written) == 1, "one event id is written per round"
        for attempt in round_:
            if attempt.event_id in written:
                assert attempt.version == expected + 1
            else:
                assert attempt.conflict.current == expected + 1
        assert Counter(attempt.version for attempt in round_)[expected + 1] == group_size


@pytest.mark.parametrize("shared", [False, True], ids=["a-store-each", "one-shared-store"])
def test_writers_appending_freely_each_resend_their_event_and_nothing_is_written_twice(
    new_redis_client, redis_client, prefix, store, shared
):
    game = new_game(store, players=4, seed=7)
    barrier = threading.Barrier(WRITERS, timeout=BARRIER_TIMEOUT)

    def writer(number: int) -> list[Attempt]:
        rng = random.Random(number)
        attempts = []
        with nullcontext(store) if shared else _own_store(new_redis_client, prefix) as own:
            barrier.wait()
            while (current := own.load(game.id)).state.to_act is not None:
                attempt = Attempt(number, uuid.uuid4(), a_move(current.state, rng), current.version)
                attempts.append(attempt)
                _send(own, game.id, attempt)
                _send(own, game.id, attempt, again=True)  # as a client would on a timeout
        return attempts

    attempts = _run_writers(writer, barrier)

    _check_the_stream_holds_exactly_the_accepted(redis_client, prefix, game.id, attempts)
    assert sum(attempt.conflict is not None for attempt in attempts) > 0, "the writers raced"
    for attempt in attempts:
        if attempt.version is not None:
            assert (attempt.resent_version, attempt.resent_conflict) == (attempt.version, None)
        else:  # never written, so sent again it is still a conflict, and still not written
            assert attempt.resent_version is None
            assert attempt.resent_conflict.current >= attempt.conflict.current


def test_a_watcher_outlasting_its_clients_socket_timeout_is_woken_by_an_append(
    new_redis_client, prefix, store
):
    game = new_game(store)
    client = new_redis_client(socket_timeout=1.5)
    watchers = Watchers(client, prefix, GameStore(client, prefix))
    try:
        assert watchers.ready(10)
        with watchers.watching(game.id) as waiter:
            while waiter.wait(0.2):  # news of the creation, heard late
                pass
            time.sleep(2)  # the listener has been waiting longer than its socket allows
            store.append(game.id, [a_move(game.state)], 1)
            assert waiter.wait(10) and waiter.game().version == 2
    finally:
        watchers.close()
        client.close()
