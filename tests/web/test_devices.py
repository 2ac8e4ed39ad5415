"""One player, any device: the key shown once, a sign-in link (and its QR code) for
another device, once, the email address confirmed, a sign-in link by email, and guest
seats made a registered player's."""

from __future__ import annotations

import json
import re

from service.events import HUMAN
from tests.web.conftest import (
    arranged_deck,
    assert_accessible,
    invite_link,
    take_seat,
    wait_for_my_turn,
)

FACTIONS = ("GN", "GI", "UN", "DO", "DW")


def register(page, name: str, email: str | None = None) -> dict:
    page.goto("/inbox")
    page.fill("#reg-name", name)
    if email:
        page.fill("#reg-email", email)
    page.click("button:text-is('Register')")
    page.wait_for_selector(f"text=Inbox of {name}")
    return json.loads(page.evaluate("localStorage.getItem('claim.player')"))


def player_key(page) -> str:
    return json.loads(page.evaluate("localStorage.getItem('claim.player')"))["key"]


def a_game_for(site, page, name: str) -> str:
    """A game against the AI whose seat 0 `page` takes (as its registered player if it
    is signed in)."""
    game_id, invites = site.game(FACTIONS, [HUMAN, "random"], arranged_deck(FACTIONS, 2, {}))
    take_seat(page, invite_link(site, game_id, 0, invites[0]), name)
    return game_id


def test_registering_shows_the_key_once_with_a_copy_button(new_page):
    page = new_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    me = register(page, "Cleo")
    shown = page.locator("input[aria-label='your player key']").first
    assert shown.input_value() == me["key"]
    page.locator("#key-title ~ .copy-row button:text-is('Copy')").click()
    page.wait_for_selector("text=Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == me["key"]
    page.reload()
    page.wait_for_selector("text=Inbox of Cleo")
    assert page.locator("#key-title").count() == 0  # the welcome, with the key, was once


def test_a_sign_in_link_opens_the_same_player_seats_and_inbox_on_another_device(site, new_page):
    desktop, phone = new_page(), new_page()
    me = register(desktop, "Dana")
    game_id = a_game_for(site, desktop, "Dana")
    desktop.goto("/inbox")
    desktop.click("text=Sign in on another device")
    link = desktop.locator("input[aria-label='sign-in link']").input_value()
    assert re.fullmatch(rf"{site.url}/sign-in#code=[\w%-]+", link)
    assert desktop.locator("svg.qr path").count() == 1  # the same link, to scan
    phone.goto(link)
    phone.wait_for_selector("text=Signed in as Dana")
    assert "#" not in phone.url  # the code left the address bar
    kept = json.loads(phone.evaluate("localStorage.getItem('claim.player')"))
    assert kept["id"] == me["id"] and kept["key"] != me["key"]  # a key of its own
    tablet = new_page()  # issue 47: the link signed in three browsers over 35 minutes
    tablet.goto(link)
    tablet.wait_for_selector("[role=alert]")
    assert tablet.evaluate("localStorage.getItem('claim.player')") is None
    phone.click("text=Open your inbox")
    phone.locator(f"li[data-game='{game_id}']").wait_for()
    phone.goto("/")
    phone.locator(f"#lobby-yours ~ ul li[data-game='{game_id}']").wait_for()
    phone.goto(f"/play/{game_id}")
    wait_for_my_turn(phone)  # the seat, from the other device
    assert phone.locator("ul[aria-label='your hand'] button").count() == 13


def confirmation_link(site, address: str) -> str:
    message = site.mailbox.wait_for(address, containing="/confirm-email#code=")
    [link] = re.findall(rf"{re.escape(site.url)}/confirm-email#code=\S+", message.get_content())
    return link


def test_the_inbox_tells_an_address_unconfirmed_until_its_link_is_opened(site, new_page):
    page, other = new_page(), new_page()
    register(page, "Ida", email="ida@example.org")
    panel = page.locator("section[aria-labelledby='p-email']")
    panel.locator("text=unconfirmed").wait_for()
    assert "No sign-in link or notification goes to it" in panel.inner_text()
    assert_accessible(page)
    panel.locator("text=Send the confirmation again").click()
    panel.locator("text=A link to confirm it is on its way").wait_for()
    link = confirmation_link(site, "ida@example.org")
    other.goto(link)  # the mail may be read on another device, signed in or not
    other.wait_for_selector("text=Address confirmed")
    assert "ida@example.org is confirmed for Ida" in other.inner_text("main")
    assert "#" not in other.url  # the code left the address bar
    assert_accessible(other)
    page.reload()
    panel.locator(".badge:text-is('confirmed')").wait_for()
    other.goto(link)  # a link works once
    other.wait_for_selector("text=The address is not confirmed")
    assert other.locator("[role=alert]").count() == 1


def test_a_new_address_saved_in_the_inbox_waits_for_its_confirmation(site, new_page):
    page = new_page()
    register(page, "Jo")
    panel = page.locator("section[aria-labelledby='p-email']")
    panel.locator("text=No address").wait_for()
    page.fill("#email-address", "jo@example.org")
    panel.locator("button:text-is('Save')").click()
    panel.locator("text=A link to confirm jo@example.org is on its way").wait_for()
    panel.locator("text=unconfirmed").wait_for()
    page.goto(confirmation_link(site, "jo@example.org"))
    page.wait_for_selector("text=Address confirmed")


def test_a_sign_in_link_by_email(site, new_page):
    desktop, laptop = new_page(), new_page()
    register(desktop, "Eve", email="eve@example.org")
    desktop.goto(confirmation_link(site, "eve@example.org"))
    desktop.wait_for_selector("text=Address confirmed")
    game_id = a_game_for(site, desktop, "Eve")
    laptop.goto("/sign-in")
    laptop.fill("#sign-in-email", "eve@example.org")
    laptop.click("text=Email me a sign-in link")
    laptop.wait_for_selector("text=a sign-in link is on its way")
    message = site.mailbox.wait_for("eve@example.org", containing="/sign-in#code=")
    [link] = re.findall(rf"{re.escape(site.url)}/sign-in#code=\S+", message.get_content())
    laptop.goto(link)
    laptop.wait_for_selector("text=Signed in as Eve")
    laptop.goto("/inbox")
    laptop.locator(f"li[data-game='{game_id}']").wait_for()
    again = new_page()
    again.goto(link)  # a code works once
    again.wait_for_selector("[role=alert]")
    assert json.loads(again.evaluate("localStorage.getItem('claim.player')") or "null") is None


def test_a_guest_who_registers_keeps_the_seats_taken_in_this_browser(site, new_page):
    page = new_page()
    game_id = a_game_for(site, page, "Fay")  # as a guest: nobody is signed in here
    register(page, "Fay")
    offer = page.locator("[aria-label='seats taken here as a guest']")
    assert "This browser holds 1 seat taken as a guest" in offer.inner_text()
    assert site.call("GET", "/me/games", token=player_key(page))["games"] == []  # not unasked
    offer.locator("text=Make them mine").click()
    page.wait_for_selector("text=1 seat is yours now, on every device.")
    page.reload()
    page.locator(f"li[data-game='{game_id}']").wait_for()
    assert page.evaluate("localStorage.getItem('claim.seats')") == "{}"  # the key opens it
    view = site.call("GET", f"/games/{game_id}", token=player_key(page))
    assert view["you"]["seat"] == 0  # the player's key opens the seat: on any device
    page.goto(f"/play/{game_id}")
    wait_for_my_turn(page)


def test_signing_out_leaves_this_browser_no_seat_to_open(site, new_page):
    page = new_page()
    guest_game = a_game_for(site, page, "Gil")  # a guest seat, then a player's seat
    register(page, "Gil")
    players_game = a_game_for(site, page, "Gil")
    page.goto("/inbox")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("text=Sign out of this browser")
    page.wait_for_selector("#reg-name")
    assert page.evaluate("localStorage.getItem('claim.player')") is None
    page.goto("/")
    page.wait_for_selector("text=None in this browser yet.")
    for game_id in (guest_game, players_game):
        page.goto(f"/play/{game_id}")
        page.wait_for_selector("text=You are watching.")
        assert page.locator("ul[aria-label='your hand']").count() == 0


def test_a_device_signed_out_from_another_stops_opening_anything(site, new_page):
    desktop, phone = new_page(), new_page()
    register(desktop, "Hana")
    desktop.goto("/inbox")
    desktop.click("text=Sign in on another device")
    phone.goto(desktop.locator("input[aria-label='sign-in link']").input_value())
    phone.wait_for_selector("text=Signed in as Hana")
    desktop.reload()  # the device is made when the link is used
    devices = desktop.locator("ul[aria-label='your devices'] li")
    devices.nth(1).wait_for()
    assert "this device" in devices.first.inner_text() and devices.count() == 2
    desktop.once("dialog", lambda dialog: dialog.accept())
    devices.nth(1).locator("text=Sign it out").click()
    desktop.wait_for_function(
        "() => document.querySelectorAll(\"ul[aria-label='your devices'] li\").length === 1"
    )
    phone.goto("/inbox")
    phone.wait_for_selector("text=This device was signed out of your player.")
    assert phone.evaluate("localStorage.getItem('claim.player')") is None


def test_a_break_is_taken_in_the_inbox_and_shown_at_the_table(site, new_page):
    page = new_page()
    me = register(page, "Bea")
    game_id, invites = site.game(FACTIONS, [HUMAN, "random"], move_time_limit=86400)
    site.join(game_id, 0, invites[0], "Bea", key=me["key"])
    page.goto("/inbox")
    page.fill("#break-days", "2")
    page.click("button:text-is('Take a break')")
    page.wait_for_selector("text=You have taken 2 of your 30 days of breaks this year.")
    page.wait_for_selector("text=last: Your break runs until")  # the game's last event
    page.goto(f"/play/{game_id}")
    page.wait_for_selector("text=(2 of 30 days this year): your clock stands still.")
    assert page.locator(".notice.break").inner_text().startswith("You are on a break until ")
    page.goto("/inbox")
    page.click("button:text-is('End my break now')")  # the day begun counts, the other not
    page.wait_for_selector("text=You have taken 1 of your 30 days of breaks this year.")
    page.goto(f"/play/{game_id}")
    page.wait_for_selector("text=You are seat 1")
    assert page.locator(".notice.break").count() == 0
