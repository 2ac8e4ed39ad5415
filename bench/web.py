"""The web client as a person sees it: a real headless Chromium against a real `claim serve`.

    .venv/bin/python bench/web.py [--moves 20] [--levels random,greedy,expert] [--lobby 20]
                                  [--loads 3] [--chromium /usr/bin/chromium]

Starts `claim serve` with its AI worker as bench/api.py does (REDIS_URL if set, else an
embedded Redis; no rate limit reached), then drives the machine's Chromium
(`--chromium`, default CLAIM_CHROMIUM or /usr/bin/chromium) with Playwright:

1. First load, cold: each page in a fresh browser context (no cache, no storage), `--loads`
   times: the lobby `/` (with `--lobby` games in each of its lists) until its lists are
   drawn, and the play page `/play/<game>` of a running game until its table (`.felt`) is
   drawn, watching and as seat 0. Counts the requests made before that moment and their
   response bodies and headers, except the never-ending live stream `/changes`; the time
   is the page's own (`performance.now()` when the DOM showed it, from navigation start).
2. Click -> AI answer shown: a person (seat 0) against an AI of each `--levels` in a
   2-player game created over the API, `--moves` answers per level: from the click on a
   playable card until the page shows the person's turn again with the AI's card on the
   table (the table's version at least 2 above the one clicked on; 3 or more when the AI
   won the round and led the next, shown apart). Page clock: the click event and the DOM
   change, both `performance.now()` of the page. A click that hit no card (the hand
   redrawn under the pointer) is counted, not timed. The expert's time per decision is
   CLAIM_EXPERT_SECONDS (0.2 s unless the environment says otherwise).
3. Move -> friend's screen: two people in two browser contexts, seated by invite links,
   taking turns for `--moves` moves: from the click on the mover's page until the
   friend's page shows the new version. Two clocks: Python's `perf_counter` from the
   mouse click (at the card's centre, found before) until the friend's wait is over, and
   the pages' clocks (the click event in one page, the DOM change in the other, each
   `performance.timeOrigin + performance.now()`).

Prints figures only, never judges them (with the machine's load average: the browser,
the server and its AI worker share its CPUs); then what the browser said (console errors
and warnings, page errors, failed requests, HTTP errors) and anything that stalled.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import requests
from api import serving
from common import add_chromium
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright
from tqdm import tqdm

from service.config import Config

ROOT = Path(__file__).resolve().parents[1]
STARTUP = 60  # seconds `claim serve` may take to answer /healthz
PATIENCE = 30_000  # ms a page may take to show what is waited for before it counts as stalled
DESKTOP = {"width": 1280, "height": 900}
DECISIONS = ".hand-area button.playable, .choices button"  # as tests/web/conftest.py
WORKER = "/web/live-worker.js"  # the live connection's SharedWorker

# Put in every page before its own scripts (an init script, which the page's CSP does not
# govern). It keeps, in `window.__bench`, the page's clock at the last click, at the DOM
# change that drew the page (the lobby's lists, or a table), and at the first DOM change
# that shows what `want` asks for: a table's version above `want.after` and, with
# `want.mine`, the person's turn (or the game over). A MutationObserver notices the change
# as it happens, not at the next poll. It also keeps when the page started its live
# connection's SharedWorker, whose script Playwright sees requested but never answered.
INSTRUMENT = """(() => {
  const bench = { clickAt: null, clickedOn: null, drawnAt: null, workerAt: null, want: null,
                  shownAt: null, shownVersion: null, over: false };
  window.__bench = bench;
  addEventListener("click", (event) => {
    bench.clickAt = performance.now();
    bench.clickedOn = event.target.closest?.("DECISIONS")?.getAttribute("aria-label") ?? null;
  }, true);
  const version = () => +(document.querySelector(".felt")?.dataset.version ?? -1);
  const lobbyDrawn = () =>
    document.querySelector("section[aria-labelledby='lobby-yours']")?.children.length > 1 &&
    ![...document.querySelectorAll("main p")].some((p) => p.textContent === "Loading\\u2026");
  const look = () => {
    if (bench.drawnAt === null && (location.pathname === "/" ? lobbyDrawn() : version() >= 0)) {
      bench.drawnAt = performance.now();
    }
    const want = bench.want;
    if (!want || bench.shownAt !== null || version() <= want.after) return;
    const over = !!document.querySelector(".turn-bar .turn")?.textContent
      .startsWith("The game is over.");
    if (want.mine && !over && !document.querySelector(".turn-bar.mine")) return;
    bench.shownAt = performance.now();
    bench.shownVersion = version();
    bench.over = over;
  };
  if (typeof SharedWorker === "function") {
    window.SharedWorker = class extends SharedWorker {
      constructor(...args) { bench.workerAt ??= performance.now(); super(...args); }
    };
  }
  new MutationObserver(look).observe(document, {
    subtree: true, childList: true, characterData: true, attributes: true,
    attributeFilter: ["class", "data-version"],
  });
})();""".replace("DECISIONS", DECISIONS)

WANT = (
    "w => Object.assign(window.__bench, { want: w, shownAt: null, clickAt: null, clickedOn: null })"
)
SHOWN = "() => window.__bench.shownAt !== null"
VERSION = "() => +(document.querySelector('.felt')?.dataset.version ?? -1)"
STATE = """d => ({
  version: +(document.querySelector('.felt')?.dataset.version ?? -1),
  mine: !!document.querySelector('.turn-bar.mine') && !!document.querySelector(d),
  over: !!document.querySelector('.turn-bar .turn')?.textContent.startsWith('The game is over.'),
})"""


# --- the server ------------------------------------------------------------------------


class Api:
    """The JSON API, for what the bench sets up (the pages themselves do the clicking)."""

    def __init__(self, url: str):
        self.url = url
        self.session = requests.Session()

    def call(self, method: str, path: str, body=None, token=None) -> dict:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if path.endswith(("/moves", "/resign")):
            headers["Idempotency-Key"] = uuid.uuid4().hex
        response = self.session.request(
            method, self.url + path, json=body, headers=headers, timeout=30
        )
        if not response.ok:
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.text}")
        return response.json() if response.content else {}

    def create(self, seats: list[dict]) -> tuple[str, dict[int, str]]:
        """A 2-player game: its id and the invite of each person's seat."""
        game = self.call("POST", "/games", {"players": len(seats), "seats": seats})
        return game["game_id"], {i["seat"]: i["invite"] for i in game["invites"]}

    def seated(self, moves: int = 0) -> tuple[str, dict[int, str]]:
        """A running game of two people, both seats taken over the API and `moves` made
        (the first legal decision each time): its id and each seat's token."""
        game_id, invites = self.create([{"kind": "human"}] * 2)
        tokens = {
            seat: self.call(
                "POST", f"/games/{game_id}/seats/{seat}", {"invite": code, "name": f"Bot {seat}"}
            )["token"]
            for seat, code in invites.items()
        }
        for _ in range(moves):
            seat = self.call("GET", f"/games/{game_id}")["table"]["to_act"]
            legal = self.call("GET", f"/games/{game_id}/legal", token=tokens[seat])
            body = {"move": legal["legal"][0], "expected_version": legal["version"]}
            self.call("POST", f"/games/{game_id}/moves", body, tokens[seat])
        return game_id, tokens

    def version(self, game_id: str) -> int:
        return self.call("GET", f"/games/{game_id}")["version"]


def fill_lobby(api: Api, each: int) -> None:
    """`each` games in every list of the lobby: open (nobody seated), running (both seats
    taken) and finished (seat 0 resigned)."""
    for _ in tqdm(range(each), desc="lobby games", unit="x3", leave=False, file=sys.stderr):
        api.create([{"kind": "human"}] * 2)
        api.seated()
        game_id, tokens = api.seated()
        api.call("POST", f"/games/{game_id}/resign", token=tokens[0])


# --- the browser -----------------------------------------------------------------------


@dataclass
class Notes:
    """What the browser said and what looked wrong, by page."""

    console: Counter = field(default_factory=Counter)  # (page, type, text)
    errors: Counter = field(default_factory=Counter)  # (page, kind, text)
    stalls: list[str] = field(default_factory=list)

    def listen(self, page, label: str) -> None:
        def console(message):
            if message.type in ("error", "warning"):
                self.console[(label, message.type, message.text)] += 1

        def failed(request):
            # The SharedWorker's script loads, but Playwright never sees it answered and
            # calls it aborted when its page goes (a reload, another game): not a failure.
            if urlsplit(request.url).path not in ("/changes", WORKER):
                self.errors[(label, "request failed", f"{request.url} {request.failure}")] += 1

        def answered(response):
            if response.status >= 400:
                what = f"{response.request.method} {response.url} {response.status}"
                self.errors[(label, "HTTP error", what)] += 1

        def thrown(error):
            self.errors[(label, "page error", str(error))] += 1

        page.on("console", console)
        page.on("pageerror", thrown)
        page.on("requestfailed", failed)
        page.on("response", answered)


def new_page(browser, url: str, notes: Notes, label: str, seats: dict | None = None):
    """A page in a browser context of its own (no cache, no storage; with `seats`, the
    seats' tokens in localStorage as the client keeps them), instrumented."""
    context = browser.new_context(viewport=DESKTOP, base_url=url)
    context.set_default_timeout(PATIENCE)
    context.add_init_script(script=INSTRUMENT)
    if seats:
        keep = f"localStorage.setItem('claim.seats', {json.dumps(json.dumps(seats))})"
        context.add_init_script(script=f"try {{ {keep}; }} catch {{}}")
    page = context.new_page()
    notes.listen(page, label)
    return page


def take_seat(page, game_id: str, seat: int, invite: str, name: str) -> None:
    """Open the invite link, give a name, take the seat (as tests/web/conftest.py)."""
    page.goto(f"/play/{game_id}?seat={seat}#invite={invite}")
    page.fill("#name", name)
    page.click("text=Take the seat")
    page.wait_for_selector("text=You are seat")


# --- 1. first load ---------------------------------------------------------------------


@dataclass
class Load:
    requests: int
    body: int  # bytes
    headers: int  # bytes
    drawn_ms: float
    apart: list[str]  # requests Playwright saw start but never end, sized by fetching them
    then: list[str]  # the paths requested in the second after the page was drawn


def first_load(browser, url: str, path: str, notes: Notes, label: str, seats=None) -> Load:
    """Open `path` in a fresh context; what it loaded before it was drawn: the requests
    that started before then (by the browser's clock, which the page's shares)."""
    page = new_page(browser, url, notes, label, seats)
    made, finished = [], set()
    page.on("request", lambda request: made.append(request))
    page.on("requestfinished", lambda request: finished.add(request))
    try:
        page.goto(path)
        page.wait_for_function("() => window.__bench.drawnAt")
        page.wait_for_timeout(1000)  # the last answers and events come in
        bench = page.evaluate("() => ({ ...window.__bench, origin: performance.timeOrigin })")
        load = Load(0, 0, 0, bench["drawnAt"], [], [])
        for request in made:
            where = urlsplit(request.url).path
            if where == "/changes":
                continue
            if request in finished:
                before = request.timing["startTime"] <= bench["origin"] + bench["drawnAt"]
            else:  # the SharedWorker's script: requested as the worker is made
                before = bench["workerAt"] is not None and bench["workerAt"] <= bench["drawnAt"]
            if not before:
                load.then.append(re.sub(r"^/games/[^/]+", "/games/<game>", where))
                continue
            load.requests += 1
            if request in finished:
                sizes = request.sizes()
                load.body += sizes["responseBodySize"]
                load.headers += sizes["responseHeadersSize"]
            else:
                body = requests.get(request.url, timeout=10).content
                load.body += len(body)
                load.apart.append(f"{where} ({len(body) / 1024:.1f} KB, headers not counted)")
        return load
    finally:
        page.context.close()


def first_loads(browser, url: str, api: Api, loads: int, notes: Notes, bar) -> dict:
    """Every page's loads, by the page's name."""
    game_id, tokens = api.seated(moves=6)
    pages = {
        "/ (the lobby)": ("/", None),
        "/play/<game> watching": (f"/play/{game_id}", None),
        "/play/<game> as seat 0": (f"/play/{game_id}", {game_id: {"seat": 0, "token": tokens[0]}}),
    }
    measured = {}
    for name, (path, seats) in pages.items():
        measured[name] = []
        for _ in range(loads):
            measured[name].append(first_load(browser, url, path, notes, name, seats))
            bar.update()
    return measured


# --- 2. click -> AI answer shown -------------------------------------------------------


def wait_for_turn(page) -> dict:
    """Wait until the person may click (or the game is over); the page's state."""
    page.wait_for_function(
        "d => { const s = (" + STATE + ")(d); return s.mine || s.over; }", arg=DECISIONS
    )
    return page.evaluate(STATE, DECISIONS)


def ai_answers(browser, url: str, api: Api, level: str, moves: int, notes: Notes, bar):
    """Clicks of a person against an AI of `level`: the time to each answer shown (ms) by
    the AI decisions it held (two when the AI won the round and led the next), the clicks
    that hit no decision (the page redrawn under the pointer), and the games played."""
    label = f"against {level}"
    page = new_page(browser, url, notes, label)
    answers: dict[int, list[float]] = {}
    missed = games = stalls = 0

    def measured() -> int:
        return sum(map(len, answers.values()))

    try:
        while measured() < moves and stalls < 3:
            game_id, invites = api.create([{"kind": "human"}, {"kind": "ai", "level": level}])
            take_seat(page, game_id, 0, invites[0], "Ann")
            games += 1
            while measured() < moves and stalls < 3:
                try:
                    state = wait_for_turn(page)
                except PlaywrightTimeout:
                    stalls += 1
                    stalled(page, api, game_id, notes, f"{label}, waiting for the person's turn")
                    continue
                if state["over"]:
                    break
                before = state["version"]
                page.evaluate(WANT, {"after": before, "mine": True})
                try:
                    page.locator(DECISIONS).first.click(timeout=2_000)
                except PlaywrightError:  # redrawn before the click: look again
                    continue
                clicked = page.evaluate("() => window.__bench.clickedOn")
                if clicked is None:  # redrawn during the click: it hit no decision
                    missed += 1
                    continue
                try:
                    page.wait_for_function(SHOWN)
                except PlaywrightTimeout:
                    stalls += 1
                    what = f"{label}, after a click on {clicked!r} at version {before}"
                    stalled(page, api, game_id, notes, what)
                    continue
                shown = page.evaluate("() => window.__bench")
                if shown["over"] or shown["shownVersion"] < before + 2:
                    continue  # no AI decision between: the game ended, or the person again
                ms = shown["shownAt"] - shown["clickAt"]
                answers.setdefault(shown["shownVersion"] - before - 1, []).append(ms)
                bar.update()
    finally:
        page.context.close()
    return answers, missed, games


def stalled(page, api: Api, game_id: str, notes: Notes, what: str) -> None:
    """Note what a page that stopped showing the game shows, and reload it."""
    shows, turn, cards, playable = page.evaluate(
        "() => [+(document.querySelector('.felt')?.dataset.version ?? -1),"
        " document.querySelector('.turn-bar .turn')?.textContent.trim() ?? '',"
        " document.querySelectorAll('.hand-area button').length,"
        " document.querySelectorAll('.hand-area button.playable').length]"
    )
    notes.stalls.append(
        f"{what}: the page showed version {shows} ({turn!r}, {playable} of {cards} cards"
        f" playable) for {PATIENCE / 1000:.0f} s, the server had {api.version(game_id)};"
        " reloaded"
    )
    page.reload()


# --- 3. move -> friend's screen --------------------------------------------------------


def settle(pages, game_id: str, api: Api, notes: Notes) -> int | None:
    """Wait until both pages show the same version and one of them may click: its index
    (None: the game is over on both)."""
    give_up = time.monotonic() + PATIENCE / 1000
    while time.monotonic() < give_up:
        states = [page.evaluate(STATE, DECISIONS) for page in pages]
        if all(state["over"] for state in states):
            return None
        if states[0]["version"] == states[1]["version"]:
            mine = [n for n, state in enumerate(states) if state["mine"]]
            if len(mine) == 1:
                return mine[0]
        time.sleep(0.02)
    shows = [state["version"] for state in states]
    notes.stalls.append(
        f"friends: the pages showed versions {shows} for {PATIENCE / 1000:.0f} s, the server"
        f" had {api.version(game_id)}; reloaded both"
    )
    for page in pages:
        page.reload()
    return -1


def friends(browser, url: str, api: Api, moves: int, notes: Notes, bar):
    """Moves between two people's pages: (wall clock ms, page clocks ms) of each."""
    pages = [new_page(browser, url, notes, f"friend {n}") for n in (0, 1)]
    wall, paged, stalls = [], [], 0
    try:
        while len(wall) < moves and stalls < 3:
            game_id, invites = api.create([{"kind": "human"}, {"kind": "human"}])
            for seat, page in enumerate(pages):
                take_seat(page, game_id, seat, invites[seat], ("Ann", "Bob")[seat])
            while len(wall) < moves and stalls < 3:
                mover = settle(pages, game_id, api, notes)
                if mover is None:
                    break
                if mover < 0:
                    stalls += 1
                    continue
                friend = pages[1 - mover]
                before = pages[mover].evaluate(VERSION)
                pages[mover].evaluate(WANT, None)
                friend.evaluate(WANT, {"after": before, "mine": False})
                try:  # where to click, found before the clock starts
                    decision = pages[mover].locator(DECISIONS).first
                    decision.scroll_into_view_if_needed(timeout=2_000)
                    box = decision.bounding_box(timeout=2_000)
                except PlaywrightError:  # redrawn meanwhile: look again
                    continue
                began = time.perf_counter()
                pages[mover].mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                try:
                    friend.wait_for_function(SHOWN)
                except PlaywrightTimeout:
                    if pages[mover].evaluate("() => window.__bench.clickedOn") is None:
                        continue  # the click hit no decision (redrawn meanwhile): again
                    stalls += 1
                    what = f"friends, the friend's page after a move at version {before}"
                    stalled(friend, api, game_id, notes, what)
                    continue
                wall.append(1000 * (time.perf_counter() - began))
                clicked = pages[mover].evaluate(
                    "() => performance.timeOrigin + window.__bench.clickAt"
                )
                shown = friend.evaluate("() => performance.timeOrigin + window.__bench.shownAt")
                paged.append(shown - clicked)
                bar.update()
    finally:
        for page in pages:
            page.context.close()
    return wall, paged


# --- the figures -----------------------------------------------------------------------


def percentile(values: list[float], fraction: float) -> float:
    """The value under which `fraction` of them fall (nearest rank)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def spread(values: list[float]) -> str:
    """Median, p90 and max, in ms."""
    if not values:
        return f"{'-':>7} {'-':>7} {'-':>7}"
    median = statistics.median(values)
    return f"{median:>7.0f} {percentile(values, 0.9):>7.0f} {max(values):>7.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--moves", type=int, default=20, help="clicks measured per level, and moves between friends"
    )
    parser.add_argument(
        "--levels", default="random,greedy,expert", help="comma-separated AI levels"
    )
    parser.add_argument("--lobby", type=int, default=20, help="games in each list of the lobby")
    parser.add_argument("--loads", type=int, default=3, help="cold loads of each page")
    add_chromium(parser)
    args = parser.parse_args()
    levels = [level for level in args.levels.split(",") if level]
    notes = Notes()
    busy = os.getloadavg()[0]
    config = Config.from_env()  # as the server's: it gets this environment
    serve = serving(workers=2, connections=1000, rq_worker=True)
    with serve as server, sync_playwright() as playwright:
        url = f"http://127.0.0.1:{server.port}"
        browser = playwright.chromium.launch(executable_path=args.chromium)
        api = Api(url)
        fill_lobby(api, args.lobby)
        with tqdm(total=3 * args.loads, desc="first loads", leave=False, file=sys.stderr) as bar:
            loads = first_loads(browser, url, api, args.loads, notes, bar)
        answers = {}
        for level in levels:
            with tqdm(
                total=args.moves, desc=f"against {level}", leave=False, file=sys.stderr
            ) as bar:
                answers[level] = ai_answers(browser, url, api, level, args.moves, notes, bar)
        with tqdm(total=args.moves, desc="friends", leave=False, file=sys.stderr) as bar:
            wall, paged = friends(browser, url, api, args.moves, notes, bar)
        version = browser.version
        browser.close()

    busy = (busy, os.getloadavg()[0])
    report(args, config, version, busy, loads, answers, wall, paged, notes)


def report(args, config, version, busy, loads, answers, wall, paged, notes) -> None:
    """Print the figures."""
    print(
        f"claim serve (Redis: {config.redis_url or 'embedded'}; its AI worker),"
        f" headless Chromium {version}, {os.cpu_count()} CPUs shared by all;"
        f" load average {busy[0]:.1f} at the start, {busy[1]:.1f} at the end"
    )
    print()
    print(
        f"1. First load, cold (a fresh browser context each time; median of {args.loads} loads):"
        " the requests made before the page was drawn, but the live stream /changes"
    )
    each = args.lobby
    print(f"   the lobby lists {each} games waiting, {each} running and {each} finished")
    print(f"   {'page':<24} {'requests':>8} {'KB bodies':>9} {'KB headers':>10} {'drawn ms':>8}")
    apart, then = set(), {}
    for name, measured in loads.items():
        median = {
            key: statistics.median(getattr(load, key) for load in measured)
            for key in ("requests", "body", "headers", "drawn_ms")
        }
        print(
            f"   {name:<24} {median['requests']:>8.0f} {median['body'] / 1024:>9.1f}"
            f" {median['headers'] / 1024:>10.1f} {median['drawn_ms']:>8.0f}"
        )
        apart.update(item for load in measured for item in load.apart)
        then[name] = Counter(path for load in measured for path in load.then)
    print("   drawn ms: the page's performance.now() at the DOM change that drew it")
    if apart:
        print(f"   sized apart (Playwright reports their start only): {', '.join(sorted(apart))}")
    print("   then, in the second after it was drawn, the requests of a load:")
    for name, paths in then.items():
        listed = ", ".join(
            f"{path} x{count / args.loads:g}" for path, count in sorted(paths.items())
        )
        print(f"   {name:<24} {listed or 'nothing'}")
    print()
    expert = config.expert_seconds or "0 (a fixed work budget)"
    print(
        f"2. Click -> AI answer shown: a person (seat 0) against one AI, {args.moves} answers per"
        " level, from the click on a card until the page shows the person's turn again with"
        " the AI's card on the table"
    )
    print(
        "   page clock: performance.now() at the click event and at the DOM change;"
        f" the expert thinks CLAIM_EXPERT_SECONDS={expert} s per decision"
    )
    print(
        f"   {'':<8} {'all answers':^31} {'one AI decision':^31}\n"
        f"   {'level':<8} {'answers':>7} {'median':>7} {'p90':>7} {'max':>7}"
        f" {'answers':>7} {'median':>7} {'p90':>7} {'max':>7} {'missed':>6} {'games':>5}"
    )
    for level, (answered, missed, games) in answers.items():
        every = [ms for times in answered.values() for ms in times]
        one = answered.get(1, [])
        print(
            f"   {level:<8} {len(every):>7} {spread(every)} {len(one):>7} {spread(one)}"
            f" {missed:>6} {games:>5}"
        )
    print(
        "   ms; all answers hold those of two AI decisions (it won the round and led the next);"
        " missed: clicks that hit no card, the hand redrawn under the pointer"
    )
    print()
    print(
        f"3. Move -> friend's screen: two people in two browser contexts, {len(wall)} moves,"
        " from the click on the mover's page until the friend's table shows the new version"
    )
    print(f"   {'clock':<46} {'median':>7} {'p90':>7} {'max':>7}")
    clocks = {
        "wall: Python perf_counter, click to wait over": wall,
        "pages: the click event to the friend's DOM": paged,
    }
    for clock, times in clocks.items():
        print(f"   {clock:<46} {spread(times)}")
    print(
        "   ms; the wall clock holds the mouse's way to the page and the friend's poll (each frame)"
    )
    print()
    print("What the browser said:")
    if not (notes.console or notes.errors or notes.stalls):
        print("   nothing: no console errors or warnings, no page errors, no failed requests")
    for (label, kind, text), count in sorted(notes.console.items()) + sorted(notes.errors.items()):
        print(f"   {label}: {kind} x{count}: {text[:300]}")
    for stall in notes.stalls:
        print(f"   stalled: {stall}")


if __name__ == "__main__":
    main()
