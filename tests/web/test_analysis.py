"""The expert's analysis in the replay page: asked for with a button, its progress,
then the graph of the chances with the marks at their steps, a mark taking the replay
to its step, where the better decision is said in words."""

from __future__ import annotations

from service.domain import Decision
from service.events import AI, DecisionMade, SeatSpec
from service.games.changes import Change, follow_up
from tests.ai.test_analysis import a_decided_blunder
from tests.web.conftest import SCREENSHOTS, assert_accessible, card_label, screenshot

PATIENCE = 180_000  # ms: a bound for a stuck analysis, not a measure of its speed


def a_game_lost_by_a_blunder(site) -> tuple[str, int, Decision]:
    """A finished 2-player game of AI seats whose outcome turned on one decision,
    written to the site's store decision by decision; its id, the blunder's step and
    the blunder."""
    settings, deck, decisions, index = a_decided_blunder()
    game = site.claim.store.create(settings, [SeatSpec(AI, "greedy")] * 2, deck=deck)
    for seat, decision in decisions:
        site.claim.store.append(game.id, [DecisionMade(seat, decision)], game.version)
        game = site.claim.store.load(game.id)
    follow_up(site.claim, Change(game, None))  # sealed, listed as finished
    return game.id, index + 1, decisions[index][1]  # step 0 is the deal, at version 1


def test_the_replay_draws_the_analysis_with_its_marks_and_the_better_decision(site, new_page):
    game_id, step, blunder = a_game_lost_by_a_blunder(site)
    page = new_page()
    page.goto(f"/replay/{game_id}")
    page.click("#ask-analysis")
    page.wait_for_selector("#analysis-progress")
    page.wait_for_selector("#chances", timeout=PATIENCE)

    analysis = site.call("GET", f"/games/{game_id}/analysis")
    judged = next(d for d in analysis["decisions"] if d["step"] == step)
    assert (judged["move"], judged["mark"]) == (str(blunder), "blunder")
    title = page.locator("#chances title#chances-title")
    assert title.text_content() == "Chances of winning across the game"
    assert "blunder" in page.locator("#chances-desc").text_content()
    lines = page.locator("#chances polyline.chance")
    assert lines.count() == 2
    marks = page.locator("#chances circle.mark")
    assert marks.count() == sum(1 for d in analysis["decisions"] if d["mark"])
    assert page.locator(".marks button.mark-step").count() == marks.count()  # the same, by keyboard
    page.locator("summary", has_text="Every decision's chances").click()
    assert page.locator(".analysis-table tbody tr").count() == analysis["total"]
    assert_accessible(page)

    page.locator(f"#chances circle.mark.blunder[data-step='{step}']").click()
    page.wait_for_selector(f"text=step {step} of")
    note = page.locator("#marked-note")
    better = card_label(judged["best"].split()[1])
    assert note.inner_text().startswith("Blunder.") and f"Better: play {better} (100%)" in (
        note.inner_text()
    )
    assert "from 100% to 0%" in note.inner_text()
    page.locator("#step").fill("0")
    page.wait_for_selector("text=step 0 of")
    assert page.locator("#marked-note").count() == 0  # the deal is no decision
    page.locator(f"#chances circle.mark.blunder[data-step='{step}']").click()
    page.wait_for_selector("#marked-note")
    screenshot(page, "replay-analysis")
    page.locator("#analysis").screenshot(path=SCREENSHOTS / "replay-analysis-panel.png")
