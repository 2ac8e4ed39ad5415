"""Every page: accessible (axe-core finds nothing, of any impact) and as wide as a phone
at most; and the small things: lobby filters and live lobby, a readable inbox, rated
games for registered players only, an AI standing in for a player, rematches seen
live, every hand in the replay of a finished game."""

from __future__ import annotations

import json

import pytest

from service.events import HUMAN, TurnTimedOut
from service.games.changes import Change, follow_up
from tests.web.conftest import (
    DESKTOP,
    OVER,
    PHONE,
    arranged_deck,
    assert_accessible,
    assert_fits,
    invite_link,
    take_seat,
    wait_for_my_turn,
)
from tests.web.test_devices import register

FACTIONS = ("GN", "GI", "UN", "DO", "DW")


@pytest.fixture(scope="module")
def pages(site):
    """A path of every page type, with what it needs to show something: a game being
    played (a person's seat and an AI), a finished game."""
    game_id, invites = site.game(FACTIONS, [HUMAN, "random"], arranged_deck(FACTIONS, 2, {}))
    site.join(game_id, 0, invites[0], "Lou")
    open_id, open_invites = site.game(FACTIONS, [HUMAN, "random"], arranged_deck(FACTIONS, 2, {}))
    finished = site.finished_ai_game()
    return {
        "lobby": "/",
        "new": "/new",
        "join": invite_link(site, open_id, 0, open_invites[0]),
        "play": f"/play/{game_id}",
        "replay": f"/replay/{finished}",
        "finished": f"/play/{finished}",
        "inbox": "/inbox",
        "leaderboard": "/leaderboard",
        "rules": "/rules",
        "sign-in": "/sign-in",
        "confirm-email": "/confirm-email",
    }


LOADED = {  # what each page shows once drawn
    "lobby": "#lobby-finished ~ ul, #lobby-finished ~ p",
    "new": "text=Create the game",
    "join": "text=Take the seat",
    "play": ".felt",
    "replay": "#proof-verdict",
    "finished": "section[aria-labelledby='p-result']",
    "inbox": "#reg-name",
    "leaderboard": "h1",
    "rules": "#r-factions",
    "sign-in": "#key",
    "confirm-email": "text=Confirm your email address",
}


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_page_is_accessible_and_fits_a_phone(new_page, pages, viewport):
    page = new_page(viewport=viewport)
    for name, path in pages.items():
        page.goto(path)
        page.wait_for_selector(LOADED[name])
        assert_fits(page)
        if viewport is DESKTOP:
            assert_accessible(page)
    register(page, "Gus")  # the inbox and the table of a registered player too
    assert_fits(page)
    if viewport is DESKTOP:
        assert_accessible(page)
    page.goto(pages["play"])
    page.wait_for_selector(".felt")
    assert_fits(page)


def test_the_lobby_filters_and_updates_live(site, new_page):
    page = new_page()
    page.goto("/?players=3")
    page.wait_for_selector("#lobby-open ~ ul, #lobby-open ~ p")
    assert page.locator("#filter-players").input_value() == "3"
    ai = {"kind": "ai", "level": "random"}
    two = site.call(
        "POST", "/games", {"players": 2, "public": True, "seats": [{"kind": "human"}, ai]}
    )
    three = site.call(
        "POST", "/games", {"players": 3, "public": True, "seats": [{"kind": "human"}, ai, ai]}
    )
    waiting = page.locator("#lobby-open ~ ul")
    waiting.locator(f"li[data-game='{three['game_id']}']").wait_for()  # live, no reload
    assert waiting.locator(f"li[data-game='{two['game_id']}']").count() == 0
    page.select_option("#filter-players", "")
    waiting.locator(f"li[data-game='{two['game_id']}']").wait_for()
    assert page.url.endswith("/")
    page.select_option("#filter-rated", "true")
    page.wait_for_selector(f"#lobby-open ~ :is(ul, p):not(:has(li[data-game='{two['game_id']}']))")
    assert page.url.endswith("/?rated=true")


def test_the_inbox_reads_as_words_and_gives_finished_games_their_result(site, new_page):
    page = new_page()
    register(page, "Hal")
    key = json.loads(page.evaluate("localStorage.getItem('claim.player')"))["key"]
    deck = arranged_deck(FACTIONS, 2, {})
    game_id, invites = site.game(FACTIONS, [HUMAN, "random"], deck, first_leader=1)
    site.join(game_id, 0, invites[0], "Hal", key)
    over_id, over_invites = site.game(FACTIONS, [HUMAN, "random"], arranged_deck(FACTIONS, 2, {}))
    token = site.join(over_id, 0, over_invites[0], "Hal", key)
    site.call("POST", f"/games/{over_id}/resign", token=token)
    site.wait(game_id, lambda view: view["table"]["to_act"] == 0)
    page.goto("/inbox")
    mine = page.locator(f"li[data-game='{game_id}']")
    mine.wait_for()
    text = mine.inner_text()
    assert "Your turn" in text and "last: AI (random) played" in text
    assert "seat" not in text and not any(code in text for code in ("GN", "GI", "UN", "DO", "DW"))
    assert "You lost" in page.locator(f"li[data-game='{over_id}']").inner_text()
    assert page.title() == "(1) Your turn — Claim"


def test_rated_games_are_offered_to_registered_players_only(site, new_page):
    guest = new_page()
    guest.goto("/new")
    assert guest.locator("#rated").is_disabled()
    assert guest.locator("#rated-note a[href='/inbox']").count() == 1
    seats = [{"kind": "human"}, {"kind": "ai", "level": "random"}]
    rated = site.call("POST", "/games", {"players": 2, "rated": True, "seats": seats})
    guest.goto(invite_link(site, rated["game_id"], 0, rated["invites"][0]["invite"]))
    guest.wait_for_selector("text=This game is rated")
    guest.fill("#reg-name", "Ida")  # registering here takes the seat as the player
    guest.click("button:text-is('Register')")
    guest.wait_for_selector("#key-title")
    guest.click("text=Take the seat")
    wait_for_my_turn(guest)
    player = new_page()
    register(player, "Jo")
    player.goto("/new")
    assert player.locator("#rated").is_enabled()


def test_what_happens_when_a_move_time_runs_out_is_asked_only_with_a_time_limit(new_page):
    page = new_page()
    page.goto("/new")
    assert page.locator("#limit").input_value() == "" and page.locator("#policy").is_disabled()
    assert page.locator("#timeout-rule").inner_text() == "No time per move: nobody's time runs out."
    page.select_option("#limit", str(3 * 86400))
    assert page.locator("#policy").is_enabled()
    page.select_option("#policy", "takeover:greedy")
    page.select_option("#timeout-limit", "2")
    page.select_option("#final-policy", "forfeit")
    assert page.locator("#timeout-rule").inner_text() == (
        "3 days a move. When a player's time runs out, an AI (greedy) makes that move and"
        " their time starts again; at 2 timeouts in a row, their side loses the game."
    )


def test_a_rated_game_states_that_a_seat_out_of_time_loses_before_it_is_made(new_page):
    page = new_page()
    register(page, "Jo")
    page.goto("/new")
    page.select_option("#limit", str(86400))
    page.check("#rated")
    assert page.locator("#policy").input_value() == "forfeit"
    assert page.locator("#timeout-rule").inner_text() == (
        "1 day a move. A player whose time runs out loses the game (a rated game: no AI plays"
        " a rated seat)."
    )
    assert page.locator(".takeover").is_hidden()


def test_an_ai_standing_in_is_told_and_the_seat_taken_back_until_the_game_ends(site, new_page):
    deck = arranged_deck(FACTIONS, 2, {})
    game_id, invites = site.game(
        FACTIONS, [HUMAN, HUMAN], deck, move_time_limit=3600, timeout_policy="takeover:random"
    )
    page = new_page()
    take_seat(page, invite_link(site, game_id, 0, invites[0]), "Kit")
    bo = site.join(game_id, 1, invites[1], "Bo")
    wait_for_my_turn(page)
    game = site.claim.store.load(game_id)  # Kit's time runs out, as the deadline timer says
    site.claim.store.append(game_id, [TurnTimedOut(0, "takeover:random")], game.version)
    follow_up(site.claim, Change(site.claim.store.load(game_id), None))
    page.wait_for_selector(
        "text=Your time ran out 1 time: an AI (random) plays your seat until you take it back;"
        " it has made 1 decision for you."
    )
    page.click("text=Play my seat again")
    page.wait_for_selector("text=Your seat is yours again.")
    while site.call("GET", f"/games/{game_id}")["table"]["to_act"] != 0:
        site.play_for(game_id, bo)  # Bo answers (and leads on while Bo wins)
    wait_for_my_turn(page)
    token = json.loads(page.evaluate("localStorage.getItem('claim.seats')"))[game_id]["token"]
    site.call("POST", f"/games/{game_id}/resign", token=token)
    page.wait_for_selector(OVER)
    page.wait_for_selector("text=Your time ran out 1 time: an AI made 1 decision for you.")
    assert page.locator("text=Play my seat again").count() == 0


def test_a_rematch_offered_is_seen_live_by_the_other_player(site, new_page):
    game_id, invites = site.game(FACTIONS, [HUMAN, HUMAN], arranged_deck(FACTIONS, 2, {}))
    ann, bo = new_page(), new_page()
    take_seat(ann, invite_link(site, game_id, 0, invites[0]), "Ann")
    take_seat(bo, invite_link(site, game_id, 1, invites[1]), "Bo")
    token = json.loads(ann.evaluate("localStorage.getItem('claim.seats')"))[game_id]["token"]
    site.call("POST", f"/games/{game_id}/resign", token=token)
    for page in (ann, bo):
        page.wait_for_selector("button:text-is('Rematch')")
    bo.click("button:text-is('Rematch')")
    bo.wait_for_selector("text=You are seat 1.")  # Bo sits down in it at once
    ann.wait_for_selector("button:text-is('Go to the rematch')")  # no reload
    ann.click("button:text-is('Go to the rematch')")
    ann.wait_for_selector("text=You are seat 2.")
    for page in (ann, bo):  # both seated: the rematch is on
        page.wait_for_selector(".felt")


def test_the_replay_of_a_finished_game_shows_every_hand(site, new_page):
    game_id = site.finished_ai_game()
    page = new_page()
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector("#proof-verdict")
    page.locator("#step").fill("5")
    page.wait_for_selector("text=step 5 of")
    shown = site.call("GET", f"/games/{game_id}/replay/5")["view"]
    for seat, hand in enumerate(shown["revealed"]["hands"]):
        faces = page.locator(f".felt .seat[data-seat='{seat}'] ul[aria-label^='hand of'] li")
        faces.first.wait_for()
        assert faces.count() == len(hand)
    assert page.locator(".felt button").count() == 0  # nothing to press in a replay


def test_the_replay_of_a_resigned_game_reaches_its_last_step(site, new_page):
    game_id, invites = site.game(FACTIONS, [HUMAN, "random"], arranged_deck(FACTIONS, 2, {}))
    token = site.join(game_id, 0, invites[0], "Lee")
    site.play_for(game_id, token)
    site.call("POST", f"/games/{game_id}/resign", token=token)
    last = site.call("GET", f"/games/{game_id}/replay/0")["last_step"]
    assert last > site.call("GET", f"/games/{game_id}")["decisions"]  # the resignation too
    page = new_page()
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector(f"text=step {last} of {last}")
    assert "resigned" in page.locator("#account").inner_text()
