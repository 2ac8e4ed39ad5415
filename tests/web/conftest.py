"""The web client in a real headless Chromium (the machine's own: Debian's `chromium`,
or the one `CLAIM_CHROMIUM` names), driven by Playwright, against a real `claim serve`
on an embedded Redis of its own (with its AI worker, so AI seats play)."""

from __future__ import annotations

import base64
import os
import shutil
from pathlib import Path

import pytest
import requests
from playwright.sync_api import sync_playwright

from tests.test_serve import start, stop, wait_for_health

SCREENSHOTS = Path(__file__).with_name("screenshots")  # kept out of git
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def chromium() -> str:
    named = os.environ.get("CLAIM_CHROMIUM")
    found = named or next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None
    )
    if not found or not Path(found).exists():
        pytest.fail(
            "the browser tests need Chromium: `apt-get install chromium` (bin/test does it"
            " when it may), or CLAIM_CHROMIUM=/path/to/chrome",
            pytrace=False,
        )
    return found


@pytest.fixture(scope="session")
def browser():
    path = chromium()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path)
        yield browser
        browser.close()


class Site:
    """A running `claim serve` and a few calls of its API, to set up what a test
    looks at (the test itself clicks)."""

    def __init__(self, url: str):
        self.url = url

    def call(self, method: str, path: str, body=None, token=None) -> dict:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = requests.request(method, self.url + path, json=body, headers=headers, timeout=30)
        assert response.ok, response.text
        return response.json()

    def finished_ai_game(self, players=2) -> str:
        """A game of AI seats only (random), played to its end by the server's worker."""
        seats = [{"kind": "ai", "level": "random"}] * players
        game = self.call("POST", "/games", {"players": players, "seats": seats})
        view = game
        while view.get("status") != "finished":
            view = self.call("GET", f"/games/{game['game_id']}?after={view['version']}&wait=10")
        return game["game_id"]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Site:
    unset = ("REDIS_URL", "CLAIM_PREFIX", "CLAIM_DATA_DIR", "CLAIM_RATE_LIMIT")
    env = {name: value for name, value in os.environ.items() if name not in unset}
    env["CLAIM_DATA_DIR"] = str(tmp_path_factory.mktemp("claim-data"))
    env["CLAIM_RATE_LIMIT"] = ""  # a test clicks fast, from one address
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    process, port = start(env, log)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for_health(url, process, log)
        yield Site(url)
    finally:
        stop(process)


@pytest.fixture
def new_page(browser, site):
    """`new_page(viewport=DESKTOP)`: a page in a browser context of its own (its own
    localStorage: a person of their own); JavaScript errors fail the test."""
    contexts, errors = [], []

    def make(viewport=DESKTOP):
        context = browser.new_context(viewport=viewport, base_url=site.url)
        context.set_default_timeout(20_000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert errors == []


COUNT_COLOURS = """async (png) => {
  const image = await (await fetch(`data:image/png;base64,${png}`)).blob();
  const bitmap = await createImageBitmap(image);
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext("2d");
  context.drawImage(bitmap, 0, 0);
  const pixels = context.getImageData(0, 0, bitmap.width, bitmap.height).data;
  const seen = new Set();
  for (let i = 0; i < pixels.length; i += 4 * 7) {
    seen.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
  }
  return seen.size;
}"""


def screenshot(page, name: str) -> Path:
    """Save a screenshot under tests/web/screenshots and check that it shows something
    (a blank page is one colour), counting its colours in a blank page of the browser."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    png = page.screenshot(path=path, full_page=True)
    counter = page.context.browser.new_page()
    try:
        assert counter.evaluate(COUNT_COLOURS, base64.b64encode(png).decode()) > 8, (
            f"{path} is blank"
        )
    finally:
        counter.close()
    return path
