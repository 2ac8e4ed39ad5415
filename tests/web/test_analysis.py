"""The expert's analysis in the replay page: asked for with the button by the step
controls, its progress, then the graph of the chances with the marks at their steps,
a mark (or a point of the graph) taking the replay to its step, where the verdict on
the decision is said next to the graph, with the hand it was chosen from."""

from __future__ import annotations

import json

from service.domain import Decision, apply, new_game
from service.events import AI, DecisionMade, SeatSpec
from service.games.changes import Change, follow_up
from tests.ai.test_analysis import a_decided_blunder
from tests.web.conftest import (
    PHONE,
    SCREENSHOTS,
    assert_accessible,
    assert_fits,
    card_label,
    screenshot,
)
from tests.web.test_devices import register

PATIENCE = 180_000  # ms: a bound for a stuck analysis, not a measure of its speed


def a_game_lost_by_a_blunder(site) -> tuple[str, int, Decision, tuple]:
    """A finished 2-player game of AI seats whose outcome turned on one decision,
    written to the site's store decision by decision; its id, the blunder's step, the
    blunder and the hand it was chosen from."""
    settings, deck, decisions, index = a_decided_blunder()
    game = site.claim.store.create(settings, [SeatSpec(AI, "greedy")] * 2, deck=deck)
    for seat, decision in decisions:
        site.claim.store.append(game.id, [DecisionMade(seat, decision)], game.version)
        game = site.claim.store.load(game.id)
    follow_up(site.claim, Change(game, None))  # sealed, listed as finished
    state = new_game(settings, deck)
    for seat, decision in decisions[:index]:
        state = apply(state, decision, seat=seat)
    hand = state.hands[decisions[index][0]]
    return game.id, index + 1, decisions[index][1], hand  # step 0 is the deal, at version 1


def step_shown(page) -> int:
    return int(page.locator("#step-label").text_content().split()[1])


def test_the_replay_draws_the_analysis_with_its_marks_and_the_better_decision(site, new_page):
    game_id, step, blunder, hand = a_game_lost_by_a_blunder(site)
    page = new_page()
    register(page, "Ann")  # an analysis is asked for with a player key
    failed = []
    page.on("response", lambda response: response.status >= 400 and failed.append(response.url))
    page.goto(f"/replay/{game_id}")
    ask = page.locator("#ask-analysis")  # by the step controls, above the table
    controls = page.locator(".replay-controls").bounding_box()
    assert ask.bounding_box()["y"] - controls["y"] < 150
    assert page.locator("#analysis").count() == 0  # nothing asked: no panel
    ask.click()
    page.wait_for_selector("#analysis-progress")
    page.wait_for_selector("#chances", timeout=PATIENCE)
    assert failed == []  # no 404 for the analysis not yet asked for

    analysis = site.call("GET", f"/games/{game_id}/analysis")
    judged = next(d for d in analysis["decisions"] if d["step"] == step)
    assert (judged["move"], judged["mark"], judged["method"]) == (str(blunder), "blunder", "exact")
    svg = page.locator("#chances")
    assert svg.get_attribute("aria-labelledby") == "chances-title"
    assert svg.get_attribute("aria-describedby") == "chances-desc"
    assert page.locator("#chances-title").text_content() == "Chances of winning across the game"
    description = page.locator("#chances-desc").text_content()
    for mark, many in (
        ("inaccuracy", "inaccuracies"),
        ("mistake", "mistakes"),
        ("blunder", "blunders"),
    ):
        count = sum(1 for d in analysis["decisions"] if d["mark"] == mark)
        assert f"{count} {mark if count == 1 else many}" in description
    assert page.locator("figure.chances").get_attribute("aria-label") == (
        "Chances of winning across the game"
    )
    legend = page.locator(".chances .legend").inner_text()
    assert "step shown" in legend and "phase 2 starts" in legend
    assert page.locator("#chances line.phase").count() == 1
    assert page.locator("#chances line.tick").count() >= 3

    # The graph draws each decision from the chance before it to after it: the
    # figures its mark quotes.
    frame = json.loads(svg.get_attribute("data-frame"))
    last = analysis["decisions"][-1]["step"]

    def point(at_step: int, chance: float) -> str:
        pad = frame["pad"]
        x = pad["left"] + at_step / last * (frame["width"] - pad["left"] - pad["right"])
        y = pad["top"] + (1 - chance) * (frame["height"] - pad["top"] - pad["bottom"])
        return f"{x:.1f},{y:.1f}"

    line = page.locator(f"#chances polyline.chance.side-{judged['side']}.exact").get_attribute(
        "points"
    )
    drawn = f"{point(step - 1, judged['before'])} {point(step, judged['after'])}"
    assert drawn in line
    marks = page.locator("#chances circle.mark")
    assert marks.count() == sum(1 for d in analysis["decisions"] if d["mark"])
    assert page.locator(".marks button.mark-step").count() == marks.count()  # the same, by keyboard
    page.locator("summary", has_text="Every decision's chances").click()
    assert page.locator(".analysis-table tbody tr").count() == analysis["total"]
    assert_accessible(page)

    page.locator(f"#chances circle.mark.blunder[data-step='{step}']").click()
    page.wait_for_selector(f"text=step {step} of")
    verdict = page.locator("#verdict")
    assert verdict.get_attribute("aria-live") == "polite"
    page.wait_for_selector("#verdict .blunder .hand-chosen")
    text = verdict.inner_text()
    better = card_label(judged["best"].split()[1])
    assert text.startswith("Blunder by") and f"Better: play {better} (100%)" in text
    assert "from 100% to 0%" in text and "solved exactly" in text
    assert all(card_label(str(card)) in text for card in hand)  # the hand chosen from
    assert verdict.is_visible() and in_view(page, "#verdict")
    assert "Blunder by" in page.locator("#marked-note").inner_text()  # in the step's account too

    page.get_by_role("button", name="previous step").click()
    page.wait_for_selector(f"text=step {step - 1} of")
    page.keyboard.press("ArrowLeft")  # the keys step the replay after a button's click
    page.wait_for_selector(f"text=step {step - 2} of")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f"text=step {step - 1} of")

    box = svg.bounding_box()  # a click on the graph goes to the nearest step
    pad = frame["pad"]
    scale = box["width"] / frame["width"]
    x = (pad["left"] + 3 / last * (frame["width"] - pad["left"] - pad["right"])) * scale
    svg.click(position={"x": x, "y": box["height"] / 2})
    page.wait_for_selector("text=step 3 of")
    page.locator("#step").fill("0")
    page.wait_for_selector("text=step 0 of")
    assert page.locator("#marked-note").count() == 0  # the deal is no decision
    page.locator(".marks button.mark-step.blunder", has_text=f"Step {step}:").click()
    page.wait_for_selector("#marked-note")
    screenshot(page, "replay-analysis")
    page.locator("#analysis").screenshot(path=SCREENSHOTS / "replay-analysis-panel.png")

    phone = new_page(viewport=PHONE, has_touch=True, is_mobile=True)
    phone.goto(f"/replay/{game_id}")
    phone.wait_for_selector("#chances")
    assert phone.locator(".keys-hint").is_hidden()  # no keyboard
    assert phone.locator("a[href='#analysis']").count() == 1  # done: a link down to it
    label_size = phone.evaluate(
        """() => { const svg = document.getElementById('chances');
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return parseFloat(getComputedStyle(svg.querySelector('text.axis')).fontSize) * scale; }"""
    )
    assert label_size >= 11
    assert phone.locator("#chances").bounding_box()["height"] >= 250
    phone.locator("summary", has_text="Every decision's chances").click()
    assert_fits(phone)  # the table's columns fit: no sideways scroll
    phone.locator(".marks button.mark-step.blunder", has_text=f"Step {step}:").tap()
    phone.wait_for_selector("#verdict .blunder .hand-chosen")  # drawn, then shown
    assert in_view(phone, "#verdict")
    assert_accessible(phone)
    screenshot(phone, "replay-analysis-phone")
    phone.locator("figure.chances").screenshot(path=SCREENSHOTS / "replay-analysis-phone-graph.png")


def test_a_visitor_not_signed_in_is_asked_to_sign_in_to_ask_for_an_analysis(site, new_page):
    game_id, *_ = a_game_lost_by_a_blunder(site)
    page = new_page()
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector("#ask-analysis-signed-out a[href='/inbox']")
    assert page.locator("#ask-analysis").count() == 0
    assert site.call("GET", f"/games/{game_id}/analysis")["status"] == "none"


def in_view(page, selector: str) -> bool:
    return page.evaluate(
        """s => { const r = document.querySelector(s).getBoundingClientRect();
        return r.top > -1 && r.bottom < window.innerHeight + 1; }""",
        selector,
    )
