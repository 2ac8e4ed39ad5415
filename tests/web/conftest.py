"""The web client in a real headless Chromium (the machine's own: Debian's `chromium`,
or the one `CLAIM_CHROMIUM` names), driven by Playwright, against a real `claim serve`
on an embedded Redis of its own (with its AI worker, so AI seats play, and a local SMTP
server, so emails go out).

Tests wait for what the page shows (the table carries the version it draws, and the
seat to act), never for a count of clicks or a time."""

from __future__ import annotations

import base64
import os
import re
import shutil
import time
from pathlib import Path

import pytest
import requests
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from service.config import Config
from service.domain import Card, Faction, Settings, full_deck
from service.events import HUMAN, SeatSpec, digest
from service.games import Change, Claim
from service.games.changes import follow_up
from service.runtime.local_cluster import free_port
from tests.mailbox import Mailbox, smtp_server
from tests.runtime.test_serve import start, stop, wait_for_health

SCREENSHOTS = Path(__file__).with_name("screenshots")  # kept out of git
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
HAND_SIZE = {2: 13, 3: 12, 4: 9}
OVER = "text=The game is over."
DECISIONS = ".hand-area button.playable, .choices button"


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


def arranged_deck(factions, players: int, hands: dict[int, list[str]], draw=()) -> list[Card]:
    """The deck of `factions` in which each seat's hand holds the cards `hands` names
    (the rest of the hand filled with the lowest cards left, in code order) and the
    draw pile starts with `draw`, top first."""
    left = list(full_deck(Faction.parse(code) for code in factions))
    chosen = [Card.parse(code) for seat in hands.values() for code in seat] + list(
        map(Card.parse, draw)
    )
    for card in chosen:
        left.remove(card)
    deck = []
    for seat in range(players):
        hand = [Card.parse(code) for code in hands.get(seat, [])]
        while len(hand) < HAND_SIZE[players]:
            hand.append(left.pop(0))
        deck += hand
    return deck + [Card.parse(code) for code in draw] + left


class Site:
    """A running `claim serve` and a few calls of its API and its store, to set up
    what a test looks at (the test itself clicks)."""

    def __init__(self, url: str, data_dir: Path, mailbox: Mailbox):
        self.url = url
        self.mailbox = mailbox
        self.data_dir = data_dir  # its signing key is there
        config = Config.from_env({"REDIS_URL": f"unix://{data_dir.resolve()}/redis.sock"})
        self.claim = Claim.connect(config)  # the same Redis, and the same job queues

    def call(self, method: str, path: str, body=None, token=None) -> dict:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if path.endswith("/moves"):
            headers["Idempotency-Key"] = os.urandom(8).hex()
        response = requests.request(method, self.url + path, json=body, headers=headers, timeout=30)
        assert response.ok, response.text
        return response.json() if response.content else {}

    def wait(self, game_id: str, until, patience: float = 120.0) -> dict:
        """The game's public view once `until(view)` holds (long-polls)."""
        view = self.call("GET", f"/games/{game_id}")
        give_up = time.monotonic() + patience
        while not until(view):
            assert time.monotonic() < give_up, f"game {game_id} stopped at {view['version']}"
            view = self.call("GET", f"/games/{game_id}?after={view['version']}&wait=5")
        return view

    def finished_ai_game(self, players=2) -> str:
        """A game of AI seats only (random), played to its end by the server's worker."""
        seats = [{"kind": "ai", "level": "random"}] * players
        game = self.call("POST", "/games", {"players": players, "seats": seats})
        self.wait(game["game_id"], lambda view: view["status"] == "finished")
        return game["game_id"]

    def game(self, factions, seats, deck=None, first_leader=0, **options) -> tuple[str, dict]:
        """A game of `seats` ("human" or an AI level) dealt from `deck` (an
        `arranged_deck`, else shuffled), written to the store as the API would; its id
        and the invite of each person's seat."""
        settings = Settings(len(seats), tuple(factions), first_leader)
        invites = {n: f"invite-{os.urandom(8).hex()}" for n, s in enumerate(seats) if s == HUMAN}
        specs = [
            SeatSpec(HUMAN, invite_hash=digest(invites[n])) if s == HUMAN else SeatSpec("ai", s)
            for n, s in enumerate(seats)
        ]
        game = self.claim.store.create(settings, specs, deck=deck, **options)
        follow_up(self.claim, Change(game, (game.creation,)))
        return game.id, invites

    def join(self, game_id: str, seat: int, invite: str, name: str, key=None) -> str:
        """Take a seat over the API: its token."""
        body = {"invite": invite, "name": name}
        return self.call("POST", f"/games/{game_id}/seats/{seat}", body, key)["token"]

    def play_for(self, game_id: str, token: str, choose=None) -> dict:
        """Make one decision for the seat of `token` once it is to act (`choose`: from
        its legal decisions, default the first): its view after."""
        view = self.wait(game_id, lambda _: self._mine(game_id, token))
        view = self.call("GET", f"/games/{game_id}", token=token)
        legal = view["you"]["legal"]
        move = {"move": (choose or (lambda options: options[0]))(legal)}
        move["expected_version"] = view["version"]
        return self.call("POST", f"/games/{game_id}/moves", move, token)["view"]

    def _mine(self, game_id: str, token: str) -> bool:
        view = self.call("GET", f"/games/{game_id}", token=token)
        return bool(view["you"]["legal"]) or view["status"] != "running"


@pytest.fixture(scope="module")
def mailbox():
    with smtp_server() as box:
        yield box


@pytest.fixture(scope="module")
def site(tmp_path_factory, mailbox) -> Site:
    unset = ("REDIS_URL", "CLAIM_PREFIX", "CLAIM_DATA_DIR", "CLAIM_RATE_LIMIT", "SMTP_URL")
    env = {name: value for name, value in os.environ.items() if name not in unset}
    data_dir = tmp_path_factory.mktemp("claim-data")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env |= {
        "CLAIM_DATA_DIR": str(data_dir),
        "CLAIM_RATE_LIMIT": "",  # a test clicks fast, from one address
        "SMTP_URL": mailbox.url,
        "CLAIM_PUBLIC_URL": url,
    }
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    process, _ = start(env, log, port)
    try:
        wait_for_health(url, process, log)
        yield Site(url, data_dir, mailbox)
    finally:
        stop(process)


@pytest.fixture(scope="module")
def modules_page(browser, site):
    """A page of the site, to run the web client's modules in (`import("/web/...")`)."""
    context = browser.new_context(base_url=site.url)
    page = context.new_page()
    page.goto("/rules")
    yield page
    context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.failed = report.failed
    return report


@pytest.fixture
def new_page(request, browser, site):
    """`new_page(viewport=DESKTOP)`: a page in a browser context of its own (its own
    localStorage: a person of their own); JavaScript errors fail the test.
    `new_page(context=page.context)`: another tab of the same browser. A test that
    fails leaves a screenshot of each of its pages in tests/web/screenshots."""
    contexts, errors = [], []

    def make(viewport=DESKTOP, context=None, **options):
        if context is None:
            context = browser.new_context(viewport=viewport, base_url=site.url, **options)
            context.set_default_timeout(30_000)
            contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield make
    if getattr(request.node, "failed", False):
        SCREENSHOTS.mkdir(exist_ok=True)
        pages = [page for context in contexts for page in context.pages]
        for n, page in enumerate(pages):
            path = SCREENSHOTS / f"failed-{request.node.name}-{n}.png"
            page.screenshot(path=path, full_page=True)
    for context in contexts:
        context.close()
    assert errors == []


# --- reading and playing the table -------------------------------------------------


def version_of(page) -> int:
    return int(page.locator(".felt").get_attribute("data-version"))


def wait_for_version(page, above: int) -> int:
    """Wait until the table shows a version above `above`; that version."""
    page.wait_for_function(
        "v => +document.querySelector('.felt')?.dataset.version > v", arg=above, timeout=60_000
    )
    return version_of(page)


def wait_for_my_turn(page) -> None:
    page.wait_for_selector(".turn-bar.mine", timeout=120_000)


def take_seat(page, link: str, name: str) -> None:
    page.goto(link)
    page.fill("#name", name)
    page.click("text=Take the seat")
    page.wait_for_selector(".turn-bar .who:text-matches('You are seat')", state="attached")
    assert "#" not in page.url and "invite" not in page.url  # the code left the address


def invite_link(site: Site, game_id: str, seat: int, invite: str) -> str:
    return f"{site.url}/play/{game_id}?seat={seat}#invite={invite}"


def click_a_decision(page, label: str | None = None) -> bool:
    """Click the first decision the page offers (or the one named `label`) if it is
    this seat's turn; whether it did. Waits for the answer: the table's next version."""
    if not page.locator(".turn-bar.mine").count():
        return False
    before = version_of(page)
    offered = page.locator(f"[aria-label='{label}']" if label else DECISIONS)
    if not offered.count():
        return False
    try:
        offered.first.click(timeout=2_000)
    except PlaywrightError:  # redrawn under the pointer by a live update: look again
        return False
    wait_for_version(page, before)
    return True


def play(page, label: str | None = None) -> None:
    """Once it is this seat's turn, make a decision (the first offered, or `label`)."""
    wait_for_my_turn(page)
    assert click_a_decision(page, label), f"no decision {label or ''} on {page.url}"


def play_until_over(*pages, patience=300.0) -> None:
    """Click decisions until every page shows the game over. Gives up after `patience`
    seconds (a bound for a stuck page, not a measure of speed)."""
    give_up = time.monotonic() + patience
    while time.monotonic() < give_up:
        if all(page.locator(OVER).count() for page in pages):
            return
        if not any([click_a_decision(page) for page in pages]):
            pages[0].wait_for_timeout(100)
    shown = [page.locator("main").inner_text()[:500] for page in pages]
    raise AssertionError(f"the game did not end; the pages show {shown}")


def game_id_of(page) -> str:
    return page.url.rsplit("/", 1)[1].split("?")[0]


# --- what every page must be --------------------------------------------------------

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
    page.mouse.move(0, 0)  # no tip where the last click left the pointer
    page.wait_for_function(  # the cards landed, the last one played slid in
        "() => !document.querySelector('.card.flying')"
        " && document.getAnimations().every(a => a.playState !== 'running')"
    )
    png = page.screenshot(path=path, full_page=True)
    counter = page.context.browser.new_page()
    try:
        assert counter.evaluate(COUNT_COLOURS, base64.b64encode(png).decode()) > 8, (
            f"{path} is blank"
        )
    finally:
        counter.close()
    return path


UNLABELLED = """() => [...document.querySelectorAll("button, input, select, a")]
  .filter((e) => !(e.getAttribute("aria-label") || e.labels?.length || e.textContent.trim()))
  .map((e) => e.outerHTML)"""

_axe = Axe()


def assert_accessible(page) -> None:
    """Landmarks, one h1, a name for every control, and nothing axe-core finds, of any
    impact (its rules for WCAG 2.2 A and AA and its best practices)."""
    assert page.locator("header nav").count() == 1 and page.locator("main").count() == 1
    assert page.locator("h1").count() == 1
    assert page.evaluate(UNLABELLED) == []
    results = _axe.run(page)
    assert results.violations_count == 0, results.generate_report()


def assert_fits(page) -> None:
    """Nothing wider than the window: no scrolling sideways."""
    width = page.evaluate("document.documentElement.scrollWidth")
    window = page.evaluate("window.innerWidth")
    wide = page.evaluate(
        """w => [...document.querySelectorAll('main *')]
        .filter(e => e.getBoundingClientRect().right > w + 1)
        .slice(0, 5).map(e => e.outerHTML.slice(0, 120))""",
        window,
    )
    assert width <= window, f"{page.url}: {width} px wide in a {window} px window: {wide}"


def card_codes(text: str) -> set[str]:
    return set(re.findall(r"\b[A-Z]{2}\d\b", text))


def card_label(code: str) -> str:
    """A card as the page names it: "Goblins 3"."""
    return f"{Faction.parse(code[:2]).title} {code[2]}"
