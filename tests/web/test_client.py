"""The web client, clicked through in headless Chromium: games against the AI, two
people live through an invite link, teams, replays, the inbox, keyboard
play, hidden information, and screenshots of it all."""

from __future__ import annotations

import json
import re
import time

from service.domain import Faction
from tests.web.conftest import (
    PHONE,
    assert_accessible,
    card_codes,
    card_label,
    game_id_of,
    play,
    play_until_over,
    screenshot,
    take_seat,
    version_of,
    wait_for_my_turn,
    wait_for_version,
)

CARD_CODE = re.compile(r"\b[A-Z]{2}\d\b")


def create_in_page(page, players=2, seats=None, name=None, **choices) -> dict[int, str]:
    """Create a game with the "New game" form, as `name` (a guest; None: the player
    signed in) at the first seat: `seats` maps another seat to "human" or "ai:<level>"
    (default: a person). The page is at the table after; the invite link of each other
    person's seat, by seat, as the table shows them."""
    page.goto("/new")
    page.select_option("#players", str(players))
    for seat in range(1, players):
        page.select_option(f"#seat-{seat}", (seats or {}).get(seat, "human"))
    for field, value in choices.items():
        page.select_option(f"#{field}", value)
    if name:
        page.fill("#your-name", name)
    page.click("text=Create the game")
    page.wait_for_selector("text=You are seat 1")
    links = page.locator("input[aria-label^='invite link of seat']")
    labels = [links.nth(n).get_attribute("aria-label") for n in range(links.count())]
    seats = [int(label.rsplit(" ", 1)[1]) - 1 for label in labels]  # "seat 2": the API's seat 1
    return {seat: links.nth(n).input_value() for n, seat in enumerate(seats)}


# Everything the page shows or reads out: its text, labels and tips.
SHOWN = """() => [document.querySelector("main").innerText,
  ...[...document.querySelectorAll("main [aria-label], main [title]")]
    .map((e) => `${e.getAttribute("aria-label")} ${e.getAttribute("title")}`)].join("\\n")"""


def readable(line: str) -> str:
    """A step's account as the page words it, in a game of two random AIs."""
    line = re.sub(r"\bseat (\d)\b", lambda seat: f"AI {int(seat[1]) + 1} (random)", line)
    return CARD_CODE.sub(lambda code: f"{Faction.parse(code[0][:2]).title} {code[0][2]}", line)


def test_a_whole_game_against_the_ai_by_clicking_on_desktop_and_phone(new_page, site):
    page = new_page()
    links = create_in_page(page, seats={1: "ai:random"}, name="Ann")
    assert links == {}  # nobody to invite: the game is on
    game_id = game_id_of(page)
    assert page.locator("ul[aria-label='your hand'] button").count() == 13
    wait_for_my_turn(page)
    assert page.locator(".hand-area button.playable").count() >= 1
    assert_accessible(page)
    screenshot(page, "game-desktop")
    for _ in range(3):
        play(page)
    page.set_viewport_size(PHONE)
    screenshot(page, "game-phone")
    play_until_over(page)
    view = site.call("GET", f"/games/{game_id}")
    assert view["status"] == "finished"
    winners = view["ending"]["winning_seats"]
    result = page.locator("section[aria-labelledby='p-result']")
    expected = "Winner: nobody" if not winners else ("You won!" if winners == [0] else "You lost.")
    assert expected in result.inner_text() and "Winner: You" not in result.inner_text()
    for faction, side in view["result"]["faction_winners"].items():
        assert result.locator("tr", has_text=Faction.parse(faction).title).count() == 1, side
    page.click("text=Rematch")  # the next game, seats moved on by one: Ann sits down at once
    page.wait_for_selector(".turn-bar .who:text-is('You are seat 2.')", state="attached")  # phone
    assert page.locator(".felt .seat-name").all_inner_texts() == ["AI (random)"]
    assert site.call("GET", f"/games/{game_id}")["rematch"] == game_id_of(page)


def test_two_browsers_play_each_other_live_through_an_invite_and_see_nothing_hidden(new_page, site):
    ann, bo = new_page(), new_page()
    received = []  # the JSON bodies Ann's browser got, read as they come

    def keep(response):
        if "json" in response.headers.get("content-type", ""):
            received.append(response.text())

    ann.on("response", keep)
    links = create_in_page(ann, name="Ann")
    assert list(links) == [1]
    take_seat(bo, links[1], "Bo")
    game_id = game_id_of(ann)
    wait_for_my_turn(ann)  # seat 0 leads
    moves = 0
    while moves < 8:  # decisions each, every one seen live by the other
        for page, other in ((ann, bo), (bo, ann)):
            if page.locator(".turn-bar.mine").count():
                before = version_of(other)
                play(page)
                wait_for_version(other, before)
                moves += 1
    bo_token = json.loads(bo.evaluate("localStorage.getItem('claim.seats')"))[game_id]["token"]
    bo_view = site.call("GET", f"/games/{game_id}", token=bo_token)
    ann_token = json.loads(ann.evaluate("localStorage.getItem('claim.seats')"))[game_id]["token"]
    ann_view = site.call("GET", f"/games/{game_id}", token=ann_token)
    hidden = set(bo_view["you"]["hand"]) - card_codes(json.dumps(ann_view))
    assert hidden, "Bo holds cards Ann may not see"
    for text in [ann.evaluate("JSON.stringify(localStorage)"), *received]:  # as codes
        assert not hidden & card_codes(text)
    shown = ann.evaluate(SHOWN)  # as the page names cards: "Goblins 3"
    assert not [card for card in hidden if card_label(card) in shown]
    assert card_label(ann_view["you"]["hand"][0]) in shown  # (the page does name cards so)
    play_until_over(ann, bo)
    assert site.call("GET", f"/games/{game_id}")["status"] == "finished"


def test_four_players_in_teams_two_people_and_two_ais(new_page, site):
    ann, bo = new_page(), new_page()
    links = create_in_page(ann, players=4, seats={2: "ai:random", 3: "ai:random"}, name="Ann")
    assert sorted(links) == [1]
    take_seat(bo, links[1], "Bo")
    assert "Partner" in ann.locator(".felt .seat[data-seat='2'] .badges").inner_text()
    assert "Opponent" in ann.locator(".felt .seat[data-seat='1'] .badges").inner_text()
    play_until_over(ann, bo)
    view = site.call("GET", f"/games/{game_id_of(ann)}")
    assert view["status"] == "finished"
    result = ann.locator("section[aria-labelledby='p-result']").inner_text()
    expected = {
        (0,): "You won: your team (you & AI 3 (random))!",
        (1,): "You lost. Winner: team B (Bo & AI 4 (random))",
        (): "Winner: nobody (a draw)",
    }
    assert expected[tuple(view["ending"]["winners"])] in result


def test_a_replay_steps_forward_and_back_to_a_known_step(new_page, site):
    game_id = site.finished_ai_game()
    last = site.call("GET", f"/games/{game_id}")["decisions"]
    page = new_page()
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector("#proof-verdict")
    assert page.locator("#step-label").inner_text() == f"step {last} of {last}"
    for _ in range(3):
        page.click("button[aria-label='previous step']")
    page.locator("main h1").click()  # the arrow keys step when no control has the focus
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowRight")
    step = last - 4
    page.wait_for_selector(f"text=step {step} of {last}")
    shown = site.call("GET", f"/games/{game_id}/replay/{step}")
    expected = [readable(line) for line in shown["account"]]  # both seats: AI (random)
    assert any(re.search(r"\b[A-Z]{2}\d\b", line) for line in shown["account"])
    page.wait_for_function(
        "lines => [...document.querySelectorAll('#account li')].map(li => li.textContent)"
        ".join('\\n') === lines.join('\\n')",
        arg=expected,
    )
    page.locator("#step").fill("0")
    page.wait_for_selector(f"text=step 0 of {last}")
    assert_accessible(page)
    screenshot(page, "replay")


def test_the_inbox_after_registering_lists_the_game_joined(new_page):
    page = new_page()
    page.goto("/inbox")
    page.fill("#reg-name", "Cleo")
    page.click("button:text-is('Register')")
    page.wait_for_selector("text=Inbox of Cleo")
    player = json.loads(page.evaluate("localStorage.getItem('claim.player')"))
    assert player["name"] == "Cleo" and player["key"]
    page.goto("/new")
    page.wait_for_selector("text=Create the game")
    assert_accessible(page)
    create_in_page(page, seats={1: "ai:greedy"}, limit="3600")  # as Cleo, the player
    game_id = game_id_of(page)
    assert page.evaluate("localStorage.getItem('claim.seats')") in (None, "{}")  # her key opens it
    clock = page.locator("#countdown").inner_text()
    assert re.fullmatch(r"· (59:[0-5]\d|1:00:00) left for you", clock), clock
    page.goto("/inbox")
    row = page.locator(f"ul[aria-label='your games'] li[data-game='{game_id}']")
    row.wait_for()
    assert "Your turn" in row.inner_text()
    assert row.locator("a").first.get_attribute("href") == f"/play/{game_id}"


def test_keyboard_only_play_of_a_round(new_page, site):
    seats = [{"kind": "human"}, {"kind": "ai", "level": "random"}]
    game = site.call("POST", "/games", {"players": 2, "seats": seats})
    invite = game["invites"][0]["invite"]
    page = new_page()
    page.goto(f"/play/{game['game_id']}?seat=0#invite={invite}")
    page.wait_for_selector("#name:focus")
    page.keyboard.type("Kim")
    page.keyboard.press("Enter")
    wait_for_my_turn(page)
    for _ in range(80):
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.getAttribute('aria-label') || ''")
        if focused.startswith("Play ") and page.evaluate(
            "!document.activeElement.getAttribute('aria-disabled')"
        ):
            break
    else:
        raise AssertionError("no playable card took the focus")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('.turn-bar.mine')"
        " && document.querySelector('#last-round').textContent.includes('Last round:')"
    )
    assert page.evaluate("!!document.activeElement.closest(\"ul[aria-label='your hand']\")")
    view = site.call("GET", f"/games/{game['game_id']}")
    assert view["decisions"] >= 2 and view["table"]["rounds"][0]["plays"][0]["seat"] == 0


def test_the_lobby_lists_games_to_watch_and_replay(new_page, site):
    finished = site.finished_ai_game()
    page = new_page()
    page.goto("/")
    finished_list = page.locator("section[aria-labelledby='lobby-finished']")
    finished_list.locator(f"li[data-game='{finished}']").wait_for()
    assert finished_list.locator(f"a[href='/replay/{finished}']").count() == 1
    seats = [{"kind": "human"}, {"kind": "ai", "level": "random"}]
    public = site.call("POST", "/games", {"players": 2, "seats": seats, "public": True})
    page.reload()
    waiting = page.locator("section[aria-labelledby='lobby-open']")
    waiting.locator(f"li[data-game='{public['game_id']}']").wait_for()
    screenshot(page, "lobby")
    waiting.locator(f"a[href='/play/{public['game_id']}?seat=0']").click()
    page.wait_for_selector("text=Take seat 1.")
    page.fill("#name", "Passer-by")
    page.click("text=Take the seat")
    page.wait_for_selector("text=You are seat 1.")


def test_pages_load_nothing_from_another_host_and_are_small(new_page, site):
    page = new_page()
    requested, responses = [], []
    page.context.on("request", lambda request: requested.append(request.url))  # workers too
    page.on("response", lambda response: responses.append(response))
    page.goto("/")
    page.wait_for_selector("#lobby-finished ~ :is(ul, p):not(.muted:text-is('Loading…'))")
    assert requested and all(url.startswith(site.url) for url in requested)
    loaded = [r for r in responses if "/changes" not in r.url]  # the live stream never ends
    size = sum(len(response.body()) for response in loaded)
    assert size < 100_000, size
    assert page.locator("header nav a").count() == 5 and page.locator("main").count() == 1


def test_the_leaderboard_page_shows_the_ratings_of_each_player_count(new_page, site):
    seats = [{"kind": "ai", "level": "random"}, {"kind": "ai", "level": "greedy"}]
    game = site.call("POST", "/games", {"players": 2, "seats": seats, "rated": True})
    site.wait(game["game_id"], lambda view: view["status"] == "finished")
    give_up = time.monotonic() + 60
    while site.call("GET", f"/games/{game['game_id']}")["ratings"] is None:  # moments later
        assert time.monotonic() < give_up, "the ratings never took the game in"
        time.sleep(0.1)
    page = new_page()
    page.goto("/")
    page.click("header >> text=Ratings")
    page.wait_for_selector("h1:text-is('Ratings, 2 players')")
    rows = page.locator("main table tbody tr")
    rows.first.wait_for()
    names = {rows.nth(n).locator("td").nth(1).inner_text() for n in range(rows.count())}
    assert {"AI random (provisional)", "AI greedy (provisional)"} <= names
    assert_accessible(page)
    page.click("text=3 players")
    page.wait_for_selector("text=No rated game yet.")


# Every text the status line shows, kept in `window.said`.
RECORD_STATUS = """() => {
  const line = document.getElementById("status");
  window.said = [];
  new MutationObserver(() => window.said.push(line.textContent))
    .observe(line, { childList: true, characterData: true, subtree: true });
}"""


def test_a_move_stored_but_answered_unavailable_is_sent_again_and_counts_once(new_page, site):
    page = new_page()
    create_in_page(page, seats={1: "ai:random"}, name="Ann")
    game_id = game_id_of(page)
    keys = []

    def stored_but_unavailable(route):
        """The first move reaches the server, but the page hears 503 (as when a
        replica did not acknowledge it in time); the next go through."""
        keys.append(route.request.headers["idempotency-key"])
        answer = route.fetch()
        if len(keys) > 1:
            route.fulfill(response=answer)
            return
        problem = {"status": 503, "detail": "the game store cannot be reached; try again"}
        route.fulfill(status=503, content_type="application/problem+json", json=problem)

    page.route(f"**/games/{game_id}/moves", stored_but_unavailable)
    page.evaluate(RECORD_STATUS)  # the retry's notice lasts a second: recorded, not raced
    play(page)
    page.wait_for_selector("text=/^You (played|took)/")
    assert any("Sending it again in 1 s" in line for line in page.evaluate("window.said"))
    assert len(keys) == 2 and keys[0] == keys[1]  # sent again, the same
    events = site.call("GET", f"/games/{game_id}/events")["events"]
    ann = [e for e in events if e["type"] == "DecisionMade" and e["data"]["seat"] == 0]
    assert len(ann) == 1  # stored once
