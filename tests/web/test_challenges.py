"""Challenges and bots in the browser: the inbox shows an open challenge as it comes
(from the player's stream), with accept and decline, or cancel for one's own; a bot is
marked in the inbox, on the table and on the leaderboard."""

from __future__ import annotations

from tests.web.conftest import DESKTOP, PHONE, assert_accessible, assert_fits
from tests.web.test_devices import register


def test_a_challenge_comes_live_is_accepted_and_its_bot_is_marked(site, new_page, tmp_path):
    page = new_page(viewport=DESKTOP)
    ann = register(page, "Ann")
    robo = site.call("POST", "/players", {"name": "Robo", "bot": True})
    page.wait_for_selector("text=No open challenge.")
    site.call("POST", "/challenges", {"to": ann["id"], "factions": "claim"}, robo["key"])
    item = page.wait_for_selector("li.challenge")  # told by the stream, not a reload
    assert "Robo" in item.inner_text() and "challenges you" in item.inner_text()
    assert item.query_selector(".badge.bot") is not None
    assert_accessible(page)
    page.screenshot(path=str(tmp_path / "inbox-challenge.png"), full_page=True)
    page.click("li.challenge button:text-is('Accept')")
    page.wait_for_url("**/play/*")
    seat = page.wait_for_selector(".seat[data-seat='0']")  # Robo challenged: seat 0
    assert seat.query_selector(".badge.bot") is not None
    assert "Bot" in seat.inner_text()
    page.goto("/inbox")
    game = page.wait_for_selector("li:has-text('last:')").inner_text()
    assert "last: Ann joined the game" in game  # not "Ann took Ann"


def test_a_challenge_made_before_the_stream_is_live_is_shown_when_it_is(site, new_page):
    page = new_page(viewport=DESKTOP)
    robo = site.call("POST", "/players", {"name": "Robo", "bot": True})

    def challenge_first(route):  # the player's stream is live only once it is made
        key = route.request.headers["authorization"].removeprefix("Bearer ")
        ann = site.call("GET", "/me", token=key)["player_id"]
        site.call("POST", "/challenges", {"to": ann, "factions": "claim"}, robo["key"])
        route.continue_()

    page.route("**/me/stream", challenge_first, times=1)
    register(page, "Ann")
    assert "Robo" in page.wait_for_selector("li.challenge").inner_text()


def test_an_inbox_that_cannot_look_again_says_so_and_keeps_its_challenges(site, new_page):
    page = new_page(viewport=DESKTOP)
    ann = register(page, "Ann")
    robo = site.call("POST", "/players", {"name": "Robo", "bot": True})
    site.call("POST", "/challenges", {"to": ann["id"], "factions": "claim"}, robo["key"])
    page.wait_for_selector("li.challenge")
    problem = {"status": 503, "detail": "the game store cannot be reached; try again"}
    unavailable = {"status": 503, "content_type": "application/problem+json", "json": problem}
    page.route("**/me/games*", lambda route: route.fulfill(**unavailable))
    other = site.call("POST", "/players", {"name": "Robo Two", "bot": True})  # one open a pair
    site.call("POST", "/challenges", {"to": ann["id"], "factions": "claim2"}, other["key"])
    assert "cannot be reached" in page.wait_for_selector(".notice.error").inner_text()
    assert len(page.query_selector_all("li.challenge")) == 1  # as last seen, not lost


def test_ones_own_challenge_may_be_cancelled_and_a_declined_one_goes(site, new_page):
    page = new_page(viewport=PHONE)
    register(page, "Bea")
    other = site.call("POST", "/players", {"name": "Cyd"})
    page.fill("#challenge-to", other["player_id"])
    page.click("form[aria-label='challenge a player'] button:text-is('Send')")
    item = page.wait_for_selector("li.challenge:has-text('You challenged Cyd')")
    assert_fits(page)
    item.query_selector("button:text-is('Cancel')").click()
    page.wait_for_selector("text=No open challenge.")
    mine = site.call("GET", "/me/challenges", token=other["key"])
    assert mine["challenges"] == []


def test_a_refused_challenge_is_told_under_the_form_on_a_phone(site, new_page, tmp_path):
    page = new_page(viewport=PHONE)
    register(page, "Eve")
    page.fill("#challenge-to", "nosuchplayer1234")
    page.click("form[aria-label='challenge a player'] button:text-is('Send')")
    told = page.wait_for_selector("form[aria-label='challenge a player'] + div > .notice.error")
    assert told.is_visible() and told.bounding_box()["height"] > 10
    assert "no player 'nosuchplayer1234'" in told.inner_text()
    assert_fits(page)
    page.screenshot(path=str(tmp_path / "inbox-refused.png"))
    page.fill("#challenge-to", "ai:greedy")
    page.click("form[aria-label='challenge a player'] button:text-is('Send')")
    page.wait_for_url("**/play/*")  # an AI accepts at once: to the table


def test_the_inbox_pages_older_games_and_says_how_many_challenges_wait(site, new_page):
    """`/me/games` answers 50 games at most and the 10 oldest open challenges: the inbox
    shows those, a button for the older games, and how many challenges wait."""
    page = new_page(viewport=DESKTOP)
    ann = register(page, "Ann")
    for _ in range(51):  # Ann leads each: no AI turn to play
        site.call("POST", "/challenges", {"to": "ai:random", "factions": "claim"}, ann["key"])
    for n in range(12):
        other = site.call("POST", "/players", {"name": f"Challenger {n}"})
        site.call("POST", "/challenges", {"to": ann["id"], "factions": "claim"}, other["key"])
    page.reload()
    page.wait_for_selector("#older-games")
    games = page.locator("ul[aria-label='your games'] > li")
    assert games.count() == 50
    assert page.locator("li.challenge").count() == 10
    assert "The oldest 10 of 12 open challenges" in page.inner_text("#more-challenges")
    page.click("#older-games")
    page.wait_for_selector("ul[aria-label='your games'] > li:nth-child(51)")
    assert games.count() == 51
    assert page.locator("#older-games").count() == 0
    assert_accessible(page)


def test_the_leaderboard_filters_bots(site, new_page):
    page = new_page(viewport=DESKTOP)
    page.goto("/leaderboard?players=2&bots=only")
    page.wait_for_selector("nav[aria-label='bots'] a[aria-current='page']:text-is('Bots only')")
    assert_accessible(page)
