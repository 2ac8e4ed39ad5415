"""Each player's games, newest joined first (unit tests on fakeredis)."""

from datetime import timedelta

from service.events import PlayerGames
from tests.events.factories import START


def test_a_players_games_are_listed_newest_joined_first_each_once(fake_redis):
    games = PlayerGames(fake_redis, "test")
    games.add("ann", "g1", START)
    games.add("ann", "g2", START + timedelta(minutes=1))
    games.add("ann", "g1", START)  # written again, by a rebuild
    games.add("bo", "g3", START)
    assert games.of("ann") == ["g2", "g1"]
    assert games.of("bo") == ["g3"]
