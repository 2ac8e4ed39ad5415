"""The play page as a card table: seats around it, the trick in the middle, a round
just finished left on the table, a Seer's peek, partners, the rules' help, and
screenshots of it at desktop and phone size with 2, 3 and 4 players."""

from __future__ import annotations

import pytest

from service.events import HUMAN
from tests.web.conftest import (
    DECISIONS,
    PHONE,
    arranged_deck,
    assert_accessible,
    assert_fits,
    card_codes,
    card_label,
    invite_link,
    play,
    screenshot,
    take_seat,
    version_of,
    wait_for_my_turn,
    wait_for_version,
)

# Decks in which seat 0 holds the 9 of every faction (no Knights, no Dragons: nothing
# else decides a round), so that it wins any round it follows with the led faction's 9.
TWO = ("GN", "GI", "UN", "DO", "DW")
MORE = ("GN", "GI", "UN", "DO", "DW", "TR", "SE")


def nines(factions) -> list[str]:
    return [f"{code}9" for code in factions]


def a_table(site, new_page, players, viewport=None, **page_options):
    """Ann at seat 0 of a game against AIs (random) that lead the first round, holding
    the 9 of every faction: her page, once it is her turn, and the game's id."""
    factions = TWO if players == 2 else MORE
    deck = arranged_deck(factions, players, {0: nines(factions)})
    seats = [HUMAN] + ["random"] * (players - 1)
    game_id, invites = site.game(factions, seats, deck, first_leader=1)
    page = new_page(**({"viewport": viewport} if viewport else {}), **page_options)
    take_seat(page, invite_link(site, game_id, 0, invites[0]), "Ann")
    wait_for_my_turn(page)
    return page, game_id


def win_the_round(page) -> None:
    """Play the 9 of the led faction (Ann holds it); then, with 3 or 4 players, take
    the first prize offered: the round is finished and Ann leads the next one."""
    led = page.locator(".felt .played").first.get_attribute("aria-label").split(" ")[0]
    play(page, f"Play {led} 9")
    while page.locator(".choices button").count():
        play(page)
    page.wait_for_selector(".trick.finished")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_table_mid_round_and_at_a_finished_round_on_desktop_and_phone(site, new_page, players):
    page, _ = a_table(site, new_page, players)
    assert page.locator(".felt .seat").count() == players - 1  # Ann's piles are with her hand
    assert "Your followers (0)" in page.locator(".hand-area .your-piles").inner_text()
    played = page.locator(".felt .played")
    assert played.count() == players - 1  # the AIs led and followed: Ann is last
    assert page.locator(".felt .pile-hand").count() == players - 1  # backs, not faces
    screenshot_both(page, f"table-{players}p-mid-round")
    win_the_round(page)
    finished = page.locator(".trick.finished .played")
    assert finished.count() == players
    winner = page.locator(".trick.finished .played.winner")
    assert winner.count() == 1 and winner.get_attribute("data-seat") == "0"
    assert "won the round" in winner.get_attribute("aria-label")
    screenshot_both(page, f"table-{players}p-finished-round")
    assert_accessible(page)


def screenshot_both(page, name: str) -> None:
    size = page.viewport_size
    screenshot(page, f"{name}-desktop")
    page.set_viewport_size(PHONE)
    assert_fits(page)
    screenshot(page, f"{name}-phone")
    page.set_viewport_size(size)


def test_a_finished_round_stays_on_the_table_with_its_winner_prize_and_draw(site, new_page):
    deck = arranged_deck(TWO, 2, {0: nines(TWO)})
    game_id, invites = site.game(TWO, [HUMAN, HUMAN], deck, first_leader=1)
    page = new_page()
    take_seat(page, invite_link(site, game_id, 0, invites[0]), "Ann")
    bo = site.join(game_id, 1, invites[1], "Bo")
    site.play_for(game_id, bo)  # Bo leads; Ann follows with the 9 and wins
    wait_for_my_turn(page)
    win_the_round(page)
    [round_] = site.call("GET", f"/games/{game_id}")["table"]["rounds"]
    assert round_["winner"] == 0
    prize = next(got for got in round_["acquired"] if got["source"] == "prize")
    drawn = next(got for got in round_["acquired"] if got["source"] == "draw")
    assert prize["seat"] == 0 and drawn["seat"] == 1
    line = page.locator("#last-round").inner_text()
    anns = next(play["card"] for play in round_["plays"] if play["seat"] == 0)
    assert f"You won round 1 with {card_label(anns)}" in line
    assert f"prize {card_label(prize['card'])} → you" in line and "Bo drew a card" in line
    # the trick is still on the table, both cards, Ann's marked; nothing blocks her lead
    assert page.locator(".trick.finished .played").count() == 2
    assert page.locator(".trick.finished .played.winner").get_attribute("data-seat") == "0"
    assert page.locator(".hand-area button.playable").count() == 12
    history = page.locator(".history").inner_text()
    assert f"You took the prize {card_label(prize['card'])}." in history
    assert "Bo drew a card." in history
    # the next card played takes the finished round off the middle, not off the line
    before = version_of(page)
    page.locator(".hand-area button.playable").first.click()
    wait_for_version(page, before)
    assert page.locator(".trick:not(.finished) .played").count() == 1
    assert "You won round 1" in page.locator("#last-round").inner_text()


def seer_game(site):
    """Ann (seat 0) leads Seers 9 and wins: she sees Dragons 5 on top of the draw pile
    and chooses. Bo (seat 1) is a person too."""
    factions = ("GN", "GI", "DR", "TR", "SE")
    deck = arranged_deck(factions, 2, {0: ["SE9"], 1: ["GN1"]}, draw=["TR0", "DR5"])
    return site.game(factions, [HUMAN, HUMAN], deck)


def test_a_seers_peek_is_shown_face_up_to_its_seat_and_to_no_other(site, new_page):
    game_id, invites = seer_game(site)
    ann, bo = new_page(), new_page()
    seen_by_bo = []
    bo.on(
        "response",
        lambda r: "json" in r.headers.get("content-type", "") and seen_by_bo.append(r.text()),
    )
    take_seat(ann, invite_link(site, game_id, 0, invites[0]), "Ann")
    take_seat(bo, invite_link(site, game_id, 1, invites[1]), "Bo")
    play(ann, "Play Seers 9")
    play(bo)
    peek = ann.locator(".felt .peek .card.seen")
    peek.wait_for()
    assert "Dragons 5" in peek.get_attribute("aria-label")
    choice = ann.locator(".choices [aria-label='Take the top card of the draw pile: Dragons 5']")
    assert choice.count() == 1 and "Dragons 5" in ann.locator(".choices .prompt").inner_text()
    assert ann.locator(".choices [aria-label='Take the prize Trolls 0']").count() == 1
    bo.wait_for_selector("text=Ann to take a prize")
    assert bo.locator(".peek").count() == 0
    assert "DR5" not in card_codes(bo.content() + " ".join(seen_by_bo))
    assert "Dragons 5" not in bo.locator("main").inner_text()
    play(ann, "Take the top card of the draw pile: Dragons 5")
    ann_moves = ann.locator(".history").inner_text()
    assert "You saw Dragons 5 on top of the draw pile." in ann_moves
    assert "You took the top card of the draw pile, Dragons 5." in ann_moves
    bo.wait_for_selector(".trick.finished")
    bo_moves = bo.locator(".history").inner_text()
    assert "Ann took the top card of the draw pile." in bo_moves and "Dragons 5" not in bo_moves
    assert "Bo took the prize" not in bo_moves and "You took the prize Trolls 0." in bo_moves
    assert "DR5" not in card_codes(bo.content() + " ".join(seen_by_bo))


def test_four_players_mark_the_partner_and_the_teams(site, new_page):
    page, _ = a_table(site, new_page, 4)
    partner = page.locator(".felt .seat.place-top")
    assert partner.get_attribute("data-seat") == "2"
    assert "Partner" in partner.locator(".badges").inner_text()
    assert "team-0" in partner.get_attribute("class")
    for place in ("left", "right"):
        opponent = page.locator(f".felt .seat.place-{place}")
        assert "Opponent" in opponent.locator(".badges").inner_text()
        assert "team-1" in opponent.get_attribute("class")
    names = page.locator(".felt .seat-name").all_inner_texts()
    assert len(names) == len(set(names)) == 3  # three AIs of one level, each named apart
    assert "team A with AI 3 (random)" in page.locator(".turn-bar").inner_text()


def test_the_rules_help_is_reached_by_keyboard(site, new_page):
    page, _ = a_table(site, new_page, 2)
    chip = page.locator(".factions .chip").first
    for _ in range(200):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('chip')"):
            break
    tip = page.locator(".factions .tip-host").first.locator("[role=tooltip]")
    assert tip.is_visible() and "Gnomes" in tip.inner_text() and "Phase 2" in tip.inner_text()
    assert chip.get_attribute("aria-describedby") == tip.get_attribute("id")
    page.keyboard.press("Escape")
    assert not tip.is_visible()
    # a card that may not be played says why, to the keyboard too
    unplayable = page.locator(".hand-area button.unplayable").first
    unplayable.focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")
    reason = page.locator(".hand-area .tip-host:has(button.unplayable) [role=tooltip]").first
    assert reason.is_visible() and reason.inner_text().startswith("You must follow")
    before = version_of(page)
    page.keyboard.press("Enter")  # pressed anyway: it tells why, and nothing is sent
    page.wait_for_selector("#status:has-text('You must follow')")
    assert version_of(page) == before
    page.click("text=How to play")
    page.wait_for_selector("h1:text-is('How to play Claim')")
    assert page.locator("#faction-SE").inner_text().startswith("◉ Seers")


# Where the hand is in the window, the page scrolled to its top: docked at its bottom.
HAND_TOP = """() => {
  scrollTo(0, 0);
  return document.querySelector('.hand-area').getBoundingClientRect().top;
}"""


def test_on_a_phone_the_hand_stays_put_as_cards_land_in_and_leave_the_trick(site, new_page):
    page, _ = a_table(site, new_page, 2, viewport=PHONE)
    top = page.evaluate(HAND_TOP)
    bottom = "() => document.querySelector('.hand-area').getBoundingClientRect().bottom"
    assert page.evaluate(bottom) <= 844
    win_the_round(page)  # a card lands, the round ends, the finished trick shows
    assert page.evaluate(HAND_TOP) == top
    for _ in range(3):  # the finished trick leaves, cards land, rounds end
        wait_for_my_turn(page)
        before = version_of(page)
        page.locator(DECISIONS).first.click()
        wait_for_version(page, before)
        assert page.evaluate(HAND_TOP) == top  # 12 to 9 cards: two rows all along
    assert_fits(page)


def test_no_card_moves_with_reduced_motion(site, new_page):
    page, _ = a_table(site, new_page, 2, reduced_motion="reduce")
    win_the_round(page)
    assert page.evaluate("document.querySelectorAll('.card.flying').length") == 0
    moving = page.evaluate(
        "[...document.querySelectorAll('.played')].map(e => getComputedStyle(e).animationName)"
    )
    assert set(moving) == {"none"}
