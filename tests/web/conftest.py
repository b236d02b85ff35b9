"""Browser tests: the real server in a subprocess, Debian's Chromium driven by Playwright (sync API).

A test here that opens Chromium (through the ``driver`` fixture) is marked ``browser``; the
others in this folder run the client's modules without a browser (Node, or read by Python).
Browser tests are skipped with one line when Chromium is missing, unless FELT_REQUIRE_BROWSER=1
(then they fail). Never runs ``playwright install``: it uses /usr/bin/chromium.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else shutil.which("chromium")
REQUIRED = os.environ.get("FELT_REQUIRE_BROWSER") == "1"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP = {"width": 1280, "height": 800}
LAPTOP = {"width": 1366, "height": 657}  # a laptop's page: a 768 px screen less the browser's bars
PHONE = {"width": 390, "height": 844}
SIZES = {"desktop": DESKTOP, "laptop": LAPTOP, "phone": PHONE}

try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None
else:
    # An expectation waits as long as an action does (the contexts' 15 s below), not Playwright's
    # 5 s: what the page shows next may wait on the server's own work (a replay is built in a
    # worker process at low priority), and a busy machine must not turn that wait into a failure.
    expect.set_options(timeout=15000)


def opens_browser(item) -> bool:
    """Whether the test drives Chromium: it asks, directly or not, for the ``driver`` fixture."""
    return "driver" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(config, items):
    mine = [item for item in items if opens_browser(item)]
    for item in mine:
        item.add_marker(pytest.mark.browser)
    problem = None
    if CHROMIUM is None:
        problem = "Chromium is not installed (/usr/bin/chromium): browser tests skipped"
    elif sync_playwright is None:
        problem = "playwright for Python is not installed: browser tests skipped"
    if problem is None or REQUIRED:
        return  # with FELT_REQUIRE_BROWSER=1 the browser fixture fails instead
    for item in mine:
        item.add_marker(pytest.mark.skip(reason=problem))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The real Felt server on a free port, with a fresh SQLite database and fast bots."""
    tmp = tmp_path_factory.mktemp("felt-browser")
    port = _free_port()
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"sqlite:///{tmp}/felt.db",
        FELT_BOT_DELAY_MS="30",
        FELT_TURN_TIMER_SCALE="0.05",  # a 30 s turn timer runs out in 1.5 s (tables without one are untouched)
        FELT_RATE_PLAYERS_BURST="100000",  # every browser shares one address
        FELT_RATE_ROOMS_BURST="100000",
        FELT_RATE_LOOKUPS_BURST="100000",
        FELT_RATE_CONNECTS_BURST="100000",
        FELT_RATE_TOKEN_CONNECTS_BURST="100000",
        FELT_MAX_SOCKETS_PER_ADDRESS="100000",
        PYTHONUNBUFFERED="1",
    )
    with open(tmp / "server.log", "w") as log:  # the server writes to its own copy of the file
        proc = subprocess.Popen(
            [sys.executable, "-m", "server", "--port", str(port), "--log-level", "warning"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 40
    while True:
        if proc.poll() is not None:
            pytest.fail(f"the server exited at start:\n{(tmp / 'server.log').read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as res:
                if res.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            proc.terminate()
            pytest.fail("the server did not answer /healthz within 40 s")
        time.sleep(0.2)
    yield base
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def driver():
    # Playwright's sync API runs an event loop in this thread while it is open; keep it to
    # one module at a time so that no asyncio test ever starts inside it.
    if CHROMIUM is None or sync_playwright is None:
        pytest.fail("FELT_REQUIRE_BROWSER=1 but Chromium or playwright for Python is missing")
    with sync_playwright() as p:
        yield p


@pytest.fixture
def browser(driver):
    # A browser of its own for every test, ended by closing the browser itself: closing one
    # context after a whole match now and then waited past the test's timeout (never after
    # a test's own steps), and a browser's close ends its process whatever its pages do.
    chromium = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
    yield chromium
    chromium.close()


def say_in_chat(page, line: str) -> None:
    """Say ``line`` at a table as a person would: on a phone the chat's input shows only with
    the chat open, so its header button is tapped first (and the chat closed again after)."""
    from playwright.sync_api import expect

    typing = page.locator("#chat-text")
    opened = not typing.is_visible()
    if opened:
        page.locator("#chat-jump").click()
    typing.fill(line)
    typing.press("Enter")
    expect(page.locator("#chat-log li").last).to_contain_text(line)
    if opened:
        page.keyboard.press("Escape")


class Pages:
    """Opens browser pages (one context each, like separate people) and records console errors."""

    def __init__(self, browser, base: str) -> None:
        self.browser = browser
        self.base = base
        self.contexts = []
        self.errors: list[str] = []

    def open(self, path: str = "/", viewport: dict | None = None, **options):
        context = self.browser.new_context(viewport=viewport or DESKTOP, **options)
        context.set_default_timeout(15000)
        self.contexts.append(context)
        page = context.new_page()
        page.on("console", lambda msg: msg.type == "error" and self.errors.append(f"{page.url}: {msg.text}"))
        page.on("pageerror", lambda exc: self.errors.append(f"{page.url}: uncaught {exc}"))
        if path is not None:
            page.goto(self.base + path)
        return page

    def close(self) -> None:
        """Forget the contexts: the test's browser is closed whole after it (see ``browser``)."""
        self.contexts.clear()


@pytest.fixture
def pages(browser, server):
    """A page opener; the test fails if any page logged a console error or threw."""
    opened = Pages(browser, server)
    yield opened
    opened.close()
    assert opened.errors == [], "console errors:\n" + "\n".join(opened.errors)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


# ---- driving the client the way a person does ------------------------------------------------

PLAYABLE = "#controls [data-control]:not([disabled]), #hand button[data-card]:not([disabled])"
# What to click next on a page, or null when it need not (or cannot yet) act.
PROBE = f"""() => {{
  if (!document.querySelector('#controls .turn-banner')) return null;
  const on = (sel) => [...document.querySelectorAll(sel)].filter((b) => !b.disabled);
  if (document.querySelector('#controls [data-submit]')) {{
    if (on('#controls [data-submit]').length) return 'submit';
    const free = on("#hand button[data-card][aria-pressed='false']");
    return free.length ? free[0].dataset.key : null;
  }}
  const first = on('{PLAYABLE}')[0];
  return first ? first.dataset.key : null;
}}"""


class Table:
    """Clicks through the lobby and the table like a player."""

    def create_room(
        self, page, name: str, game: str, options: dict, seats: int | None = None, timer: int | None = None
    ) -> str:
        page.get_by_label("Your name", exact=True).fill(name)
        page.get_by_label("Game", exact=True).select_option(game)
        if options and not page.locator("#options-box").evaluate("el => el.open"):
            page.locator("#options-box > summary").click()
        for key, value in options.items():
            control = page.locator(f"#opt-{key}")
            kind = control.evaluate("el => el.tagName === 'SELECT' ? 'select' : el.type")
            if kind == "checkbox":
                control.set_checked(bool(value))
            elif kind == "select":
                control.select_option(json.dumps(value))
            else:
                control.fill("" if value is None else str(value))
        if seats is not None:
            page.get_by_label("Players", exact=True).fill(str(seats))
        if timer is not None:
            page.get_by_label("Turn timer", exact=True).select_option(str(timer))
        page.get_by_role("button", name="Create room").click()
        page.wait_for_url("**/r/*")
        page.wait_for_selector(".seat-you")
        return page.url.rsplit("/", 1)[-1]

    def join_and_sit(self, page, name: str) -> None:
        """A newcomer on an invite link: give a name and join, which takes the first empty seat."""
        page.get_by_label("Your name", exact=True).fill(name)
        page.get_by_role("button", name="Join", exact=True).click()
        page.wait_for_selector(".seat-you")

    def my_turn(self, page) -> bool:
        return page.locator("#controls .turn-banner").count() > 0

    def act_once(self, page) -> bool:
        """If this page must act: click the first enabled legal control. True when it clicked.

        A multi-card choice (a discard, the Ribs, a pair) is made by clicking cards one by one
        until its button comes alive. One probe per call keeps the loop fast.
        """
        step = page.evaluate(PROBE)
        if step is None:
            return False
        self.take_step(page, step)
        return True

    def take_step(self, page, step: str) -> None:
        """Click what ``PROBE`` named: the enabled submit button, or the control or card of that key."""
        if step == "submit":
            page.locator("#controls [data-submit]:not([disabled])").first.click(timeout=3000)
        else:
            page.locator(f'[data-key="{step}"]').click(timeout=3000)

    def finished(self, page) -> bool:
        return page.locator("#result .result-panel").count() > 0

    def decisions(self, page, timeout: float = 240):
        """Each decision of this page's player until the match ends, as (its number, the step
        ``act_once`` would take); the caller acts on it before the next is looked for."""
        deadline = time.monotonic() + timeout
        count = 0
        while not self.finished(page):
            assert time.monotonic() < deadline, f"the match did not finish within {timeout:g} s"
            step = page.evaluate(PROBE)
            if step is None:
                time.sleep(0.04)
                continue
            count += 1
            yield count, step

    def drive(self, players, until, timeout: float = 120, each=None) -> int:
        """Let every page act in turn until ``until()``; returns the number of actions."""
        deadline = time.monotonic() + timeout
        actions = 0
        while not until():
            acted = False
            for page in players:
                if self.act_once(page):
                    acted = True
                    actions += 1
                    if each:
                        each(actions)
            if not acted:
                time.sleep(0.04)
            assert time.monotonic() < deadline, f"the game did not finish within {timeout} s"
        return actions


@pytest.fixture
def table() -> Table:
    return Table()
