"""Your turn, wherever you are: the tab's title and icon, a notification when the page
is in the background, the move list with what happened since your last visit, and one
live connection for any number of tabs."""

from __future__ import annotations

import json
import struct
import time

from service.events import HUMAN
from service.games import push
from tests.web.conftest import (
    DECISIONS,
    arranged_deck,
    invite_link,
    play,
    take_seat,
    version_of,
    wait_for_my_turn,
    wait_for_version,
)

FACTIONS = ("GN", "GI", "UN", "DO", "DW")
SEATS = [{"kind": "human"}, {"kind": "ai", "level": "random"}]

# Stands in for the browser's Notification (a headless browser shows none): allowed,
# and every notification made is kept where the test can read it.
NOTIFICATIONS = """
window.shown = [];
window.Notification = class {
  static permission = "granted";
  static requestPermission() { return Promise.resolve("granted"); }
  constructor(title, options) { window.shown.push({ title, body: options.body }); }
  close() {}
};
"""

HIDDEN = """
Object.defineProperty(document, "hidden", { get: () => window.inBackground === true });
Object.defineProperty(document, "visibilityState",
  { get: () => (window.inBackground ? "hidden" : "visible") });
"""


def two_people(site, new_page, **options):
    deck = arranged_deck(FACTIONS, 2, {})
    game_id, invites = site.game(FACTIONS, [HUMAN, HUMAN], deck)
    ann, bo = new_page(**options), new_page()
    take_seat(ann, invite_link(site, game_id, 0, invites[0]), "Ann")
    take_seat(bo, invite_link(site, game_id, 1, invites[1]), "Bo")
    return game_id, ann, bo


def send_to_background(page) -> None:
    page.evaluate(
        "window.inBackground = true; document.dispatchEvent(new Event('visibilitychange'))"
    )


def test_the_tab_title_and_icon_say_your_turn_and_a_background_tab_notifies(site, new_page):
    game_id, ann, bo = two_people(site, new_page)
    ann.context.add_init_script(NOTIFICATIONS + HIDDEN)
    ann.reload()
    wait_for_my_turn(ann)
    assert ann.title() == "(1) Your turn — Claim"
    assert ann.locator("link[rel=icon]").get_attribute("data-turn") == "yours"
    assert bo.title() == f"Game {game_id[:8]} — Claim"
    play(ann)
    ann.wait_for_function("title => document.title === title", arg=f"Game {game_id[:8]} — Claim")
    assert ann.locator("link[rel=icon]").get_attribute("data-turn") == ""
    send_to_background(ann)
    play(bo)  # Bo plays: now it is Ann's turn, her tab in the background
    ann.wait_for_function("() => document.title === '(1) Your turn — Claim'")
    assert ann.locator("link[rel=icon]").get_attribute("data-turn") == "yours"
    assert "%3Ccircle" in ann.locator("link[rel=icon]").get_attribute("href")  # the red dot
    ann.wait_for_function("() => window.shown.length === 1")
    [note] = ann.evaluate("window.shown")
    assert note["title"] == "Your turn — Claim" and "Bo played" in note["body"]


def test_notifications_are_asked_for_on_a_press_never_on_load(site, new_page):
    asked = """window.asked = 0; window.Notification = class { static permission = "default";
      static requestPermission() {
        window.asked += 1; Notification.permission = "granted"; return Promise.resolve("granted");
      } };"""
    _, ann, _ = two_people(site, new_page)
    ann.context.add_init_script(asked)
    ann.reload()
    wait_for_my_turn(ann)
    assert ann.evaluate("window.asked") == 0
    ann.click("text=Notify me when it is my turn")
    ann.wait_for_selector("text=Notifications are on.")
    assert ann.evaluate("window.asked") == 1


def test_seven_tabs_of_one_game_share_one_connection_and_any_of_them_moves(site, new_page):
    """A browser opens six connections to a site at most: with a live stream per tab,
    the seventh tab's move would wait for ever."""
    deck = arranged_deck(FACTIONS, 2, {})
    game_id, invites = site.game(FACTIONS, [HUMAN, "random"], deck)
    first = new_page()
    take_seat(first, invite_link(site, game_id, 0, invites[0]), "Ann")
    tabs = [first] + [new_page(context=first.context) for _ in range(6)]
    for tab in tabs[1:]:
        tab.goto(f"/play/{game_id}")
        wait_for_my_turn(tab)
    before = version_of(tabs[-1])
    tabs[-1].locator(DECISIONS).first.click()  # the seventh tab's move goes through
    after = wait_for_version(tabs[-1], before)
    for tab in tabs:  # and every tab sees it, and the AI's answer, live
        wait_for_version(tab, after - 1)
        wait_for_my_turn(tab)


def test_the_move_list_marks_what_happened_since_your_last_visit(site, new_page):
    deck = arranged_deck(FACTIONS, 2, {})
    game_id, invites = site.game(FACTIONS, [HUMAN, "random"], deck)
    page = new_page()
    take_seat(page, invite_link(site, game_id, 0, invites[0]), "Ann")
    play(page)
    page.wait_for_selector(".history li.round:not(.current)")  # round 1 is over
    token = page.evaluate("JSON.parse(localStorage.getItem('claim.seats'))")[game_id]["token"]
    context = page.context
    page.close()  # Ann leaves; she plays three rounds from her phone meanwhile
    for _ in range(3):
        site.play_for(game_id, token)
    view = site.wait(game_id, lambda v: len(v["table"]["rounds"]) >= 4)
    page = context.new_page()
    page.goto(f"/play/{game_id}")
    page.wait_for_selector(".since-banner")
    rounds = len(view["table"]["rounds"])
    banner = page.locator(".since-banner").inner_text()
    assert f"Since your last visit: {rounds - 1} rounds played" in banner
    assert page.locator(".history li.round.new").count() == rounds - 1
    assert page.locator(".history li.round:not(.new):not(.current)").count() == 1
    assert page.locator("#since-last-visit").count() == 1
    page.click("text=See the moves")
    assert page.evaluate("location.hash") == "#since-last-visit"
    page.reload()  # seen now: nothing is new on the next visit
    page.wait_for_selector(".felt")
    assert page.locator(".since-banner").count() == 0
    assert page.locator(".history li.round.new").count() == 0


def test_without_a_shared_worker_a_tab_holds_one_stream_of_its_own(site, new_page):
    page = new_page()
    page.context.add_init_script("delete window.SharedWorker")
    streams = []
    page.on("request", lambda request: "/changes?" in request.url and streams.append(request.url))
    deck = arranged_deck(FACTIONS, 2, {})
    game_id, invites = site.game(FACTIONS, [HUMAN, "random"], deck)
    take_seat(page, invite_link(site, game_id, 0, invites[0]), "Ann")
    for _ in range(3):
        play(page)
        wait_for_my_turn(page)  # the AI's answer came live
    page.goto("/")  # the lobby: live too, by one stream, not one per change
    public = site.call("POST", "/games", {"players": 2, "public": True, "seats": SEATS})
    page.locator(f"li[data-game='{public['game_id']}']").wait_for()
    assert streams and len(streams) <= 2, streams  # the play page's, the lobby's


def test_a_live_redraw_keeps_the_keyboard_focus(site, new_page):
    _, ann, bo = two_people(site, new_page)
    play(ann)
    ann.keyboard.press("Tab")  # the keyboard in use
    ann.locator("button:text-is('Resign')").focus()
    before = version_of(ann)
    play(bo)  # Bo's move redraws Ann's page
    wait_for_version(ann, before)
    assert ann.evaluate("document.activeElement.textContent") == "Resign"


def until(condition, patience: float = 30.0) -> None:
    """Wait for `condition()` (a page's CSP forbids `wait_for_function`'s eval)."""
    deadline = time.monotonic() + patience
    while not condition():
        assert time.monotonic() < deadline, "waited in vain"
        time.sleep(0.05)


def _registrations(cdp) -> list[dict]:
    """The service worker registrations the DevTools protocol reports, once there is one."""
    found: list[dict] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: found.extend(e["registrations"]))
    cdp.send("ServiceWorker.enable")
    until(lambda: cdp.send("Runtime.evaluate", {"expression": "1"}) and found)  # events come in
    return found


def test_the_site_installs_as_an_app_and_a_pushed_turn_opens_its_game(site, new_page):
    game_id, _ = site.game(FACTIONS, [HUMAN, HUMAN], arranged_deck(FACTIONS, 2, {}))
    page = new_page()
    page.context.grant_permissions(["notifications"])
    page.goto("/")
    until(lambda: page.evaluate("navigator.serviceWorker.controller?.state") == "activated")
    assert page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)") == f"{site.url}/"
    cdp = page.context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [] and manifest["url"] == f"{site.url}/manifest.webmanifest"
    app = json.loads(manifest["data"])
    assert (app["display"], app["start_url"]) == ("standalone", "/")
    assert {icon["sizes"] for icon in app["icons"]} == {"192x192", "512x512"}
    for icon in app["icons"]:  # each is there, and is the size it says
        png = page.request.get(icon["src"]).body()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert "x".join(str(n) for n in struct.unpack(">II", png[16:24])) == icon["sizes"]
    # A push as the workers send it (its message as service/games/push.py makes it),
    # delivered by the browser to the service worker.
    registration = next(r for r in _registrations(cdp) if r["scopeURL"] == f"{site.url}/")
    message = push.message(
        "your-turn",
        game_id,
        f"http://elsewhere.example/play/{game_id}",
        "Claim: your turn",
        "Last: Bo played",
    )
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": site.url,
            "registrationId": registration["registrationId"],
            "data": message.decode(),
        },
    )
    shown = (
        "navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((all) =>"
        " all.map((n) => ({ title: n.title, body: n.body, tag: n.tag, path: n.data.path })))"
    )
    until(lambda: page.evaluate(shown))
    assert page.evaluate(shown) == [
        {"title": "Claim: your turn", "body": "Last: Bo played", "tag": f"turn-{game_id}",
         "path": f"/play/{game_id}"}  # this site's page, whatever host the push names
    ]  # fmt: skip
    # Its click (a headless browser shows no notification to click: the worker's own
    # handler of the click, on the notification shown) opens the game in the open tab.
    worker = page.context.service_workers[0]
    worker.evaluate("self.registration.getNotifications().then(([shown]) => openPage(shown))")
    page.wait_for_url(f"{site.url}/play/{game_id}")
    page.wait_for_selector("text=You are watching.")
