"""Zero axe-core violations on every page and state, in a real browser: the lobby, the waiting
room, each game's live table (bidding, mid-hand, the hand over; on a laptop and on a phone),
the match record and its replay, the history page and each game's rules page.

axe-core comes from the ``axe-playwright-python`` package (it ships ``axe.min.js``): nothing is
fetched at test time. One browser serves the whole module. A test looks at every state before
it fails, so one run lists every violation, each with its page, state, elements and fix.
"""

from __future__ import annotations

import re
import time

import pytest
from conftest import CHROMIUM, DESKTOP, LAUNCH_ARGS, PHONE, REQUIRED, say_in_chat
from playwright.sync_api import expect
from test_dock_clear import COVERED
from test_phone_fit import make_group_with_standings

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:  # pragma: no cover - depends on the environment
    if REQUIRED:
        raise  # FELT_REQUIRE_BROWSER=1: the test extra must be installed
    pytest.skip("axe-playwright-python is not installed: accessibility checks skipped", allow_module_level=True)

AXE = Axe()
# Every rule axe-core runs by default (WCAG 2.0-2.2 A and AA and its best practices) on the
# whole document, and one it still calls experimental: a control's spoken name must start with
# the text it shows (WCAG 2.5.3, Label in Name), so that "J♠" said aloud finds the card "J♠".
OPTIONS = {"resultTypes": ["violations"], "rules": {"label-content-name-mismatch": {"enabled": True}}}
# The page at rest: every animation that ends has ended (a trick swept away fades out, and a
# fading card is no text to measure), then two frames drawn.
SETTLE = """async () => {
  const ending = document.getAnimations().filter((a) => a.effect?.getComputedTiming().iterations !== Infinity);
  await Promise.all(ending.map((a) => a.finished.catch(() => null)));
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
}"""

CHAT_DESKTOP = {"width": 1366, "height": 768}
LOAD_MS = 15_000  # a page that fetches its data, on a busy machine

GAMES = [
    ("oh_hell", {"max_cards": 2, "rebound": False}),
    ("bid_whist", {"target": 1}),
    ("tarbish", {"target": 1}),
    ("ribs", {"target": 2}),  # two hands at least: one where Ana does not open the bidding
    ("spades", {"target": 50}),
]


@pytest.fixture(scope="module")
def browser(driver):
    """One browser for the module (overrides the per-test browser of conftest.py, so that the
    conftest's ``pages`` opens every test's pages in it; they go when it closes)."""
    chromium = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
    yield chromium
    chromium.close()


class Audit:
    """Runs axe-core on a page in a named state and keeps a readable report of what it found."""

    def __init__(self) -> None:
        self.reports: list[str] = []
        self.states: list[str] = []

    def check(self, page, state: str) -> None:
        page.evaluate(SETTLE)
        found = AXE.run(page, options=OPTIONS).response["violations"]
        self.states.append(state)
        if found:
            self.reports.append(describe(state, page.url, found))

    def assert_clean(self) -> None:
        assert self.states, "nothing was checked"
        if self.reports:
            pytest.fail(
                f"axe-core found violations in {len(self.reports)} of {len(self.states)} states:\n\n"
                + "\n\n".join(self.reports),
                pytrace=False,
            )


def describe(state: str, url: str, violations: list[dict]) -> str:
    """One violation a paragraph: rule, impact, what it asks, then each element and its failure."""
    lines = [f"== {state} ({url})"]
    for violation in violations:
        lines.append(f"- {violation['id']} [{violation['impact']}]: {violation['help']} ({violation['helpUrl']})")
        for node in violation["nodes"]:
            lines.append(f"    at {' > '.join(map(str, node['target']))}")
            lines.append(f"       {node['html'][:200]}")
            for check in node.get("any", []) + node.get("all", []) + node.get("none", []):
                lines.append(f"       * {check['message']}")
    return "\n".join(lines)


@pytest.fixture
def audit() -> Audit:
    return Audit()


def in_portuguese(page) -> None:
    """The header's language switch: the page reloads in Portuguese (and stays so in this context)."""
    page.locator("#lang").select_option("pt")
    page.wait_for_load_state()
    expect(page.locator("html")).to_have_attribute("lang", "pt-BR")


def open_lobby(pages, viewport):
    page = pages.open("/", viewport=viewport)
    expect(page.locator("#game-rules")).to_contain_text("How to play")  # the games are in
    return page


def test_the_lobby_the_waiting_room_and_the_rules_pages_have_no_violations(pages, table, audit):
    page = open_lobby(pages, DESKTOP)
    audit.check(page, "lobby")
    page.locator("#options-box > summary").click()
    expect(page.locator("#options-box")).to_have_attribute("open", "")
    audit.check(page, "lobby, house options open")

    table.create_room(page, "Ana", "oh_hell", {"max_cards": 2, "rebound": False})
    audit.check(page, "waiting room, alone")
    lobby = open_lobby(pages, PHONE)
    expect(lobby.locator("#rooms")).to_contain_text("Ana")
    audit.check(lobby, "lobby on a phone, a room open to join")
    page.goto(pages.base + "/")
    expect(page.locator("#mine")).to_contain_text("Oh Hell")
    audit.check(page, "lobby, the host's own table listed")
    page.go_back()
    expect(page.locator(".seat-you")).to_contain_text("Ana")
    page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(1)
    friend = pages.open(None, viewport=PHONE)
    friend.goto(page.url)
    expect(friend.get_by_role("button", name="Join", exact=True)).to_be_visible()
    audit.check(friend, "waiting room, a newcomer on the invite link")
    table.join_and_sit(friend, "Bea")
    audit.check(friend, "waiting room, seated")
    expect(page.locator(".seat:not(.seat-empty)")).to_have_count(3)
    audit.check(page, "waiting room, host with a bot and a friend")
    in_portuguese(page)
    expect(page.locator("[data-bot-remove]")).to_have_text("Tirar robô", timeout=LOAD_MS)
    audit.check(page, "waiting room, host with a bot and a friend, in Portuguese")
    say_in_chat(friend, "olá")
    expect(page.locator("#chat-unread")).to_have_text("1")
    audit.check(page, "waiting room in Portuguese, a chat line unread")

    for game, _ in GAMES:
        page.goto(f"{pages.base}/rules/{game}")
        expect(page.get_by_role("heading", level=1)).to_contain_text("How to play")
        audit.check(page, f"/rules/{game}")
    page.goto(f"{pages.base}/r/NOSUCH22")
    expect(page.locator("#missing")).to_contain_text("NOSUCH22")
    audit.check(page, "an unknown room")
    audit.assert_clean()


def check_the_chat(page, audit: Audit, state: str) -> None:
    """At a decision, on a desktop and a phone: a chat line sent (the Chat button counts it),
    the chat's lines open, then closed again; the page left at the test's desktop size."""
    for device, size in (("desktop", CHAT_DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(CHAT_DESKTOP)  # said where the input is in view: the chat stays closed, its line unread
        say_in_chat(page, f"good luck from the {device}")
        page.set_viewport_size(size)
        expect(page.locator("#chat-unread")).to_have_text("1")
        audit.check(page, f"{state}, on a {device}: a chat line sent, the chat closed")
        page.locator("#chat-jump").click()
        expect(page.locator("#chat-drawer")).to_have_class(re.compile(r"\bchat-open\b"))
        audit.check(page, f"{state}, on a {device}: the chat open")
        page.keyboard.press("Escape")
        expect(page.locator("#chat-drawer")).not_to_have_class(re.compile(r"\bchat-open\b"))
        audit.check(page, f"{state}, on a {device}: the chat closed again")
    page.set_viewport_size(DESKTOP)


def at_rest(page) -> bool:
    """No finished trick held on the table or swept away: nothing changes until someone acts."""
    return page.locator(".felt.felt-held").count() == 0


def mid_hand(page, table) -> bool:
    """Ana's turn to play to a trick others have begun, the table at rest: it waits for her."""
    return (
        table.my_turn(page)
        and page.locator("#hand button[data-card]:not([disabled])").count() > 0
        and page.locator(".felt .play").count() > 0
        and at_rest(page)
    )


def play_until(page, table, until, timeout: float = 120) -> None:
    """Ana plays as the conftest's driver does, but passes whenever she may, so that others
    lead, and lets each finished trick be swept away before she acts: at her turns the table
    comes to rest with the trick others began on it."""
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, f"not reached within {timeout} s"
        if not (table.my_turn(page) and at_rest(page)):
            time.sleep(0.04)
            continue
        # Her turn, at rest: nothing moves until she acts, so what ``until`` sees now stays.
        if until():
            return
        passing = page.locator('#controls [data-key="pass"]:not([disabled])')
        if passing.count():
            passing.click(timeout=3000)
        elif not table.act_once(page):
            time.sleep(0.04)


@pytest.mark.parametrize(("game", "options"), GAMES, ids=[g for g, _ in GAMES])
def test_a_game_from_bidding_to_its_record_has_no_violations(pages, table, audit, game, options):
    page = pages.open("/", viewport=DESKTOP)
    table.create_room(page, "Ana", game, options)
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    page.locator("[data-start]").click()
    expect(page.locator("#room-title")).to_contain_text("Playing")
    expect(page.locator("#controls .turn-banner")).to_be_visible(timeout=30_000)
    audit.check(page, f"{game}: Ana's first turn")
    check_the_chat(page, audit, f"{game}: Ana's first turn")

    play_until(page, table, lambda: mid_hand(page, table) or table.finished(page))
    assert not table.finished(page), "the hand ended before Ana played to a trick others began"
    audit.check(page, f"{game}: mid-hand, Ana to play")
    check_the_chat(page, audit, f"{game}: mid-hand, Ana to play")
    check_the_chat_open(page, audit, f"{game}: mid-hand")
    held = []  # the rules' request, answered once the loading dialog is checked
    page.route("**/api/rules/**", lambda route: held.append(route))
    page.get_by_role("button", name="How to play").click()
    expect(page.get_by_role("dialog")).to_be_visible()
    page.wait_for_function("() => document.querySelector('.rules-dialog-body .hint')")
    audit.check(page, f"{game}: mid-hand, How to play loading")
    held[0].continue_()
    page.unroute("**/api/rules/**")
    expect(page.get_by_role("dialog").locator("article.rules")).to_be_visible(timeout=LOAD_MS)
    audit.check(page, f"{game}: mid-hand, How to play open")
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_be_hidden()

    table.drive([page], lambda: table.finished(page))
    expect(page.locator("#sheet table.sheet tbody tr").first).to_be_visible()
    expect(page.locator(".felt.felt-held")).to_have_count(0)  # the last trick swept away
    audit.check(page, f"{game}: the hand over, the match won")
    page.set_viewport_size(PHONE)
    audit.check(page, f"{game}: the hand over, on a phone")
    page.set_viewport_size(DESKTOP)

    record = page.get_by_role("link", name="Match record & replay").get_attribute("href")
    check_the_record(page, pages.base, record, audit, game)
    audit.assert_clean()


def check_the_chat_open(page, audit: Audit, state: str) -> None:
    """The chat opened by a click on its header button, the pointer left on the pressed button
    (its hover and pressed look, white on the header's green), and closed again with Esc."""
    toggle = page.locator("#chat-jump")
    box = toggle.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(toggle).to_have_attribute("aria-expanded", "true")
    audit.check(page, f"{state}, the chat open")
    page.keyboard.press("Escape")
    expect(toggle).to_have_attribute("aria-expanded", "false")


def check_the_record(page, base: str, record: str, audit: Audit, game: str) -> None:
    """The match record: at the deal, the replay half way and at its end, in Portuguese; then
    the history page (in Portuguese too: the choice is kept)."""
    page.goto(base + record)
    expect(page.locator("#step-label")).to_contain_text("Deal", timeout=LOAD_MS)
    audit.check(page, f"{game}: the match record at the deal")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#step-label")).to_contain_text("Action 1 of")
    total = int(re.search(r"of (\d+)", page.locator("#step-label").inner_text()).group(1))
    for _ in range(total // 2):
        page.keyboard.press("ArrowRight")
    expect(page.locator("#step-label")).to_contain_text(f"Action {1 + total // 2} of")
    audit.check(page, f"{game}: the replay half way")
    page.set_viewport_size(PHONE)
    audit.check(page, f"{game}: the replay half way, on a phone")
    page.set_viewport_size(DESKTOP)
    page.keyboard.press("End")
    expect(page.locator("#step-label")).to_contain_text(f"Action {total} of")
    audit.check(page, f"{game}: the replay at its end")
    in_portuguese(page)
    expect(page.locator('[data-step="first"]')).to_have_text("Início", timeout=LOAD_MS)
    expect(page.locator("#sheet table.sheet tbody tr").first).to_be_visible(timeout=LOAD_MS)
    audit.check(page, f"{game}: the match record in Portuguese")

    page.goto(base + "/history")
    expect(page.locator("#mine .match-row").first).to_be_visible(timeout=LOAD_MS)
    audit.check(page, f"{game}: the history page (in Portuguese)")
    page.set_viewport_size(PHONE)
    audit.check(page, f"{game}: the history page on a phone")
    page.set_viewport_size(DESKTOP)


# Your own seat's box, if its text runs past its bottom (a box that clips cuts the text in two).
CUT_SHORT = """() => [...document.querySelectorAll('.felt:not(.felt-crowded) .seat-you')]
  .filter((seat) => seat.scrollHeight > seat.clientHeight + 1).map((seat) => seat.innerText)"""
PHONE_GAMES = [(game, options, 4) for game, options in GAMES] + [("ribs", {"target": 2}, 8)]


@pytest.mark.parametrize(("game", "options", "seats"), PHONE_GAMES, ids=[f"{g}-{n}" for g, _, n in PHONE_GAMES])
def test_a_game_on_a_phone_has_no_violations_mid_hand_and_at_its_end(pages, table, audit, game, options, seats):
    """At 390x844 from the start: the table mid-hand with Ana to play (and the reason a greyed
    card gives), and the hand over. At each, no seat's text lies under the action dock either
    (text under the dock is text nobody can read: axe measures it against the dock)."""
    page = pages.open("/", viewport=PHONE)
    table.create_room(page, "Ana", game, options, seats=seats if seats != 4 else None)
    for _ in range(seats - 1):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(seats - 1)
    page.locator("[data-start]").click()
    expect(page.locator("#room-title")).to_contain_text("Playing")
    expect(page.locator("#controls .turn-banner")).to_be_visible(timeout=30_000)
    page.evaluate(SETTLE)
    assert page.evaluate(COVERED) == [], "a seat under the dock at Ana's first turn"
    audit.check(page, f"{game}, {seats} seats, on a phone: Ana's first turn")

    play_until(page, table, lambda: mid_hand(page, table) or table.finished(page))
    assert not table.finished(page), "the hand ended before Ana played to a trick others began"
    page.evaluate(SETTLE)
    assert page.evaluate(COVERED) == [], "a seat under the dock mid-hand"
    assert page.evaluate(CUT_SHORT) == [], "your own seat's text cut short"
    audit.check(page, f"{game}, {seats} seats, on a phone: mid-hand, Ana to play")
    check_the_chat_open(page, audit, f"{game}, {seats} seats, on a phone: mid-hand")
    greyed = page.locator("#hand button[data-card]:disabled")
    if greyed.count():
        greyed.first.click(force=True)
        expect(page.locator("#card-why")).to_be_visible()
        page.evaluate(SETTLE)
        assert page.evaluate(COVERED) == [], "a seat under the dock, a greyed card's reason shown"
        audit.check(page, f"{game}, {seats} seats, on a phone: mid-hand, a greyed card's reason shown")

    table.drive([page], lambda: table.finished(page))
    expect(page.locator("#sheet table.sheet tbody tr").first).to_be_visible()
    expect(page.locator(".felt.felt-held")).to_have_count(0)  # the last trick swept away
    audit.check(page, f"{game}, {seats} seats, on a phone: the hand over, the match won")
    audit.assert_clean()


def test_the_groups_pages_have_no_violations(pages, audit):
    """The groups page, a group's page for its maker (its house-rules form open), an invite
    link before and after the newcomer gives a name, and the group page in Portuguese."""
    ana = pages.open("/groups", viewport=DESKTOP)
    expect(ana.get_by_label("Your name", exact=True)).to_be_visible(timeout=LOAD_MS)
    audit.check(ana, "/groups, no name yet")
    ana.get_by_label("Your name", exact=True).fill("Ana")
    ana.get_by_role("button", name="Continue").click()
    expect(ana.get_by_label("Group name")).to_be_visible()
    audit.check(ana, "/groups, named")
    ana.get_by_label("Group name").fill("Friday cards")
    ana.get_by_role("button", name="Create group").click()
    ana.wait_for_url(re.compile(r"/g/[a-z0-9]+$"))
    expect(ana.locator("#group-title")).to_have_text("Friday cards")
    audit.check(ana, "a group's page, its maker alone")
    ana.locator("#house-rules > summary").click()
    expect(ana.locator("#house-rules")).to_have_attribute("open", "")
    audit.check(ana, "a group's page, the house rules form open")
    invite = ana.locator("#invite-link").input_value()

    rui = pages.open(None, viewport=PHONE)
    rui.goto(invite)
    expect(rui.get_by_label("Your name", exact=True)).to_be_visible(timeout=LOAD_MS)
    audit.check(rui, "a group's invite link on a phone, no name yet")
    rui.get_by_label("Your name", exact=True).fill("Rui")
    rui.get_by_role("button", name="Continue").click()
    expect(rui.locator("#members")).to_contain_text("Ana")
    audit.check(rui, "a group's page on a phone, a new member")
    ana.reload()
    expect(ana.locator("#members")).to_contain_text("Rui", timeout=LOAD_MS)
    in_portuguese(ana)
    expect(ana.locator("#members")).to_contain_text("Rui", timeout=LOAD_MS)
    audit.check(ana, "a group's page in Portuguese, two members")
    audit.assert_clean()


def test_a_groups_standings_its_playing_table_and_the_devices_page_have_no_violations(pages, audit, tmp_path_factory):
    """A group's page with a table of its playing and its standings, and the devices page with
    a link code shown (its own device's "Sign out"), on a phone and on a laptop."""
    page = pages.open("/", viewport=PHONE)
    make_group_with_standings(page, pages.base, tmp_path_factory)
    audit.check(page, "a group's page on a phone, a table playing, the standings")
    page.set_viewport_size(DESKTOP)
    audit.check(page, "a group's page, a table playing, the standings")
    page.goto(pages.base + "/devices")
    expect(page.locator("[data-device]")).to_have_count(1, timeout=LOAD_MS)
    page.get_by_role("button", name="Add a device").click()
    expect(page.locator("#link-code")).to_be_visible()
    audit.check(page, "the devices page, a link code shown")
    page.set_viewport_size(PHONE)
    audit.check(page, "the devices page on a phone, a link code shown")
    audit.assert_clean()
