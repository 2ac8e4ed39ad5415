"""Challenges and a player's stream as use cases: racing answers land once, a timer
expires a challenge only once its time is up, a stream ends and gives its places back."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from service import games
from service.games import ChallengeNotOpen, ChallengeSettings, fire_due_timers


def registered(claim, name: str, bot: bool = False) -> tuple[str, str]:
    player, key = games.register(claim, name, bot=bot)
    return player.id, key


def test_racing_accepts_start_one_game_with_both_seated(claim):
    ann, ann_key = registered(claim, "Ann")
    bob, bob_key = registered(claim, "Bob")
    made = games.challenge(claim, ann_key, bob, ChallengeSettings(factions="claim")).challenge
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: games.accept(claim, bob_key, made.id), range(4)))
    assert len({answer.challenge.game_id for answer in answers}) == 1
    game = claim.store.load(answers[0].challenge.game_id)
    assert (game.version, game.status) == (3, "running")  # created, and two seats joined
    assert [seat.player for seat in game.seats] == [ann, bob]
    assert claim.player_games.of(ann) == [game.id] and claim.player_games.of(bob) == [game.id]


def test_an_answer_and_a_cancel_racing_leave_one_of_them(claim):
    _, ann_key = registered(claim, "Ann")
    bob, bob_key = registered(claim, "Bob")
    made = games.challenge(claim, ann_key, bob, ChallengeSettings()).challenge

    def answer(action):
        try:
            return action(claim, bob_key if action is games.decline else ann_key, made.id)
        except ChallengeNotOpen:
            return None

    with ThreadPoolExecutor(2) as pool:
        done = [a for a in pool.map(answer, (games.decline, games.cancel)) if a is not None]
    assert len(done) == 1
    assert claim.challenges.get(made.id).status == done[0].challenge.status


def test_a_challenge_expires_when_its_time_is_up_and_not_before(claim, clock):
    _, ann_key = registered(claim, "Ann")
    bob, _ = registered(claim, "Bob")
    made = games.challenge(claim, ann_key, bob, ChallengeSettings()).challenge
    clock.advance(claim.config.challenge_expires - 1)
    fire_due_timers(claim)
    assert claim.challenges.get(made.id).status == "open"
    clock.advance(2)
    assert fire_due_timers(claim) == 1
    assert claim.challenges.get(made.id).status == "expired"
    assert claim.challenge_timers.count() == 0
    assert fire_due_timers(claim) == 0


def test_an_open_challenge_past_its_time_is_expired_by_an_answer_too(claim, clock):
    _, ann_key = registered(claim, "Ann")
    bob, bob_key = registered(claim, "Bob")
    made = games.challenge(claim, ann_key, bob, ChallengeSettings()).challenge
    clock.advance(claim.config.challenge_expires)  # no worker fired its timer yet
    with pytest.raises(ChallengeNotOpen):
        games.accept(claim, bob_key, made.id)
    assert claim.challenges.get(made.id).status == "expired"


def test_a_player_stream_ends_after_its_seconds_and_gives_its_places_back(claim):
    _, ann_key = registered(claim, "Ann")
    player = games.profile(claim, ann_key).id
    events = games.player_stream(claim, ann_key, "10.0.0.1", None, 0.3, 0.1)
    kinds = [event.type for event in events]
    assert kinds[0] == "state" and "keepalive" in kinds
    assert claim.watch_leases.held("10.0.0.1") == 0
    assert claim.watch_leases.held(f"player:{player}") == 0
    assert claim.watchers.count() == 0


def test_a_stream_tells_no_game_that_ended_before_it_when_news_come(claim, clock):
    _, ann_key = registered(claim, "Ann")
    bob, bob_key = registered(claim, "Bob")
    made = games.challenge(claim, ann_key, bob, ChallengeSettings(factions="claim")).challenge
    game_id = games.accept(claim, bob_key, made.id).challenge.game_id
    games.resign(claim, game_id, ann_key)
    clock.advance(2 * 3600)  # long before the stream: neither news nor a rematch to tell
    stream = games.player_stream(claim, bob_key, "10.0.0.2", None, 1.0, 5.0)
    assert next(stream).type == "state"
    fresh = games.challenge(claim, ann_key, bob, ChallengeSettings()).challenge
    told = next(stream)
    assert (told.type, told.data["challenge"]["id"]) == ("challenge", fresh.id)
    assert [event.type for event in stream] == []  # and nothing else until it ends
