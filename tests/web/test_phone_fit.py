"""The whole table at every decision on a phone, a tablet and a desktop: a slim header, all the
seats and the status strip on the felt, the controls and every card of the hand in the window
together (none under the header, none under the dock), in each game from its bids, trump
choice and discards to its plays; no page wider than a phone's screen; a Ribs trick's outcomes
in words on a phone."""

from __future__ import annotations

import contextlib
import re
import secrets

import pytest
from conftest import PROBE
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect
from test_dock_clear import COVERED
from test_groups import _oh_hell_record

from server.storage import groups, store
from server.storage.db import Database

PHONE = {"width": 390, "height": 844}
TABLET = {"width": 768, "height": 1024}
DESKTOP = {"width": 1366, "height": 768}
SIZES = {"phone": PHONE, "tablet": TABLET, "desktop": DESKTOP}
SLIM = 64  # the most a phone's header may take, in CSS pixels

SETTLE = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
# What a player must see at a decision, each as a box that lies wholly between the header's
# bottom and the window's bottom (and across, within the window): every seat, the status
# strip (the game's facts and the score), the controls and each card of the hand.
NOT_IN_VIEW = """() => {
  const header = document.querySelector('.topbar').getBoundingClientRect();
  const shown = (el) => el && !el.hidden && el.getBoundingClientRect().height > 0;
  const els = [
    ...document.querySelectorAll('[data-seat-box]'),
    document.querySelector('#info'), document.querySelector('#score-strip'),
    document.querySelector('#controls'), ...document.querySelectorAll('#hand button[data-card]'),
  ].filter(shown);
  const out = [];
  for (const el of els) {
    const r = el.getBoundingClientRect();
    if (r.left < -1 || r.right > innerWidth + 1 || r.top < header.bottom - 1 || r.bottom > innerHeight + 1) {
      const name = el.dataset.card || (el.dataset.seatBox !== undefined ? `seat ${el.dataset.seatBox}` : el.id);
      out.push(`${name} at ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`);
    }
  }
  return out;
}"""
HEADER = "() => document.querySelector('.topbar').getBoundingClientRect().height"
WIDE = "() => document.documentElement.scrollWidth - innerWidth"
# The kind of decision in view: a bid, a trump, a discard or pair (what its button submits), a play.
KIND = """() => {
  const controls = document.querySelector('#controls');
  const kinds = [];
  if (controls.querySelector('[data-bid]')) kinds.push('bid');
  if (controls.querySelector('[data-suit]')) kinds.push('suit');
  for (const b of controls.querySelectorAll('[data-act], [data-submit]')) kinds.push(b.dataset.act || b.dataset.submit);
  if (!kinds.length && document.querySelector('#hand button[data-card]:not([disabled])')) kinds.push('play');
  return [...new Set(kinds)].sort().join(',') || 'other';
}"""

MATCHES = [
    ("oh_hell", {"max_cards": 3, "rebound": False}),
    ("bid_whist", {"target": 1}),
    ("tarbish", {"target": 1}),
    ("ribs", {"target": 1}),
    ("spades", {"target": 50}),
]


def _start(page, table, game, options) -> None:
    table.create_room(page, "Ana", game, options)
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    page.locator("[data-start]").click()


def _check_every_size(page, where: str, shoot) -> None:
    for name, size in SIZES.items():
        page.set_viewport_size(size)
        page.evaluate(SETTLE)
        with contextlib.suppress(PlaywrightTimeout):  # the table refits to a new size within a frame or two
            page.wait_for_function(f"() => ({NOT_IN_VIEW})().length === 0 && ({COVERED})().length === 0", timeout=2000)
        missing = page.evaluate(NOT_IN_VIEW)
        covered = page.evaluate(COVERED)
        shoot(name)
        assert missing == [] and covered == [], f"{where} at {name}: not in view {missing}, under the dock {covered}"
        assert page.evaluate(WIDE) <= 0, f"{where} at {name}: the page is wider than the window"
        if name == "phone":
            assert page.evaluate(HEADER) <= SLIM, f"{where}: the header is {page.evaluate(HEADER)} px tall on a phone"
    page.set_viewport_size(PHONE)
    page.evaluate(SETTLE)


def _press(page, locator) -> None:
    """Click where the control is seen, as a finger does: a locator's click first scrolls a
    control of the dock (sticky at the window's bottom) to its place in the page's flow."""
    box = locator.bounding_box(timeout=5000)
    if box is None:  # drawn again this moment
        page.evaluate(SETTLE)
        box = locator.bounding_box(timeout=5000)
    page.mouse.click(box["x"] + min(box["width"] / 2, 12), box["y"] + box["height"] / 2)


@pytest.mark.parametrize(("game", "options"), MATCHES, ids=[g for g, _ in MATCHES])
def test_the_whole_table_and_hand_are_in_view_at_every_decision_on_every_screen(pages, table, artifacts, game, options):
    page = pages.open("/", viewport=PHONE)
    _start(page, table, game, options)
    decisions, kinds, shots = 0, set(), set()
    for decisions, step in table.decisions(page):
        page.evaluate(SETTLE)
        kind = page.evaluate(KIND)
        kinds.add(kind)

        def shoot(size, kind=kind):
            if (kind, size) not in shots:
                shots.add((kind, size))
                page.screenshot(path=str(artifacts / f"fit-{game}-{kind.replace(',', '+')}-{size}.png"))

        _check_every_size(page, f"decision {decisions} ({kind}: {step})", shoot)
        # Bid Whist: bid as high as may be, to win the kitty and discard.
        higher = page.locator('#controls [data-key="bid-higher"]:not([disabled])')
        if game == "bid_whist" and higher.count():
            while higher.count():
                _press(page, higher)
                page.evaluate(SETTLE)
            _press(page, page.locator("#controls [data-bid]"))
        elif game == "bid_whist" and page.locator("#controls [data-bid]:not([disabled])").count() > 1:
            _press(page, page.locator("#controls [data-bid]:not([disabled])").last)
        elif step == "submit":
            _press(page, page.locator("#controls [data-submit]:not([disabled])").first)
        else:
            _press(page, page.locator(f'[data-key="{step}"]'))
        page.wait_for_function(f"(before) => ({PROBE})() !== before", arg=step, timeout=5000)
    assert decisions > 3, kinds


def test_no_page_is_wider_than_a_phone(pages, table, artifacts, tmp_path_factory):
    """The lobby, a table waiting, playing and over, its match record, the history, the devices
    page and a group's page with a table playing and its standings, each at 390 px."""
    page = pages.open("/", viewport=PHONE)
    wide = {}

    def look(where: str) -> None:
        page.evaluate(SETTLE)
        page.screenshot(path=str(artifacts / f"wide-{where.replace(' ', '-').replace(',', '')}.png"), full_page=True)
        over = page.evaluate(WIDE)
        if over > 0:
            wide[where] = over

    expect(page.locator("#game-rules")).to_contain_text("How to play")
    look("lobby")
    table.create_room(page, "Ana", "oh_hell", {"max_cards": 1, "rebound": False})
    look("table waiting")
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    page.locator("[data-start]").click()
    expect(page.locator("#controls .turn-banner")).to_be_visible(timeout=30_000)
    look("table playing")
    table.drive([page], lambda: table.finished(page))
    look("table over")
    page.goto(pages.base + page.get_by_role("link", name="Match record & replay").get_attribute("href"))
    expect(page.locator("#step-label")).to_contain_text("Deal", timeout=40_000)
    look("match record")
    page.goto(pages.base + "/history")
    expect(page.locator("#mine .match-row").first).to_be_visible(timeout=15_000)
    look("history")
    page.goto(pages.base + "/devices")
    page.get_by_role("button", name="Add a device").click()
    expect(page.locator("#link-code")).to_be_visible()
    look("devices")
    make_group_with_standings(page, pages.base, tmp_path_factory)
    look("group")
    assert wide == {}, f"pages wider than a phone (px too wide): {wide}"


def make_group_with_standings(page, base: str, tmp_path_factory) -> str:
    """A group of Ana's with a table of hers playing and two matches in its standings."""
    page.goto(base + "/groups")
    page.wait_for_selector("#who-panel:not([hidden]), #group-name", timeout=15_000)
    if page.locator("#who-panel:not([hidden])").count():  # no name yet
        page.get_by_label("Your name", exact=True).fill("Ana")
        page.get_by_role("button", name="Continue").click()
    page.get_by_label("Group name").fill("Friday cards")
    page.get_by_role("button", name="Create group").click()
    page.wait_for_url(re.compile(r"/g/[a-z0-9]+$"))
    code = page.url.rsplit("/", 1)[-1]
    me = page.evaluate("JSON.parse(localStorage.getItem('felt.player')).id")
    room = f"ST{secrets.token_hex(3).upper()}"  # a table of this group's alone (the server is shared)
    (folder,) = tmp_path_factory.getbasetemp().glob("felt-browser[0-9]*")  # the server's folder
    db = Database(f"sqlite:///{folder / 'felt.db'}")
    try:
        with db.session() as session:
            groups.link_table(session, code, room, "oh_hell")
        seats = [("Ana", me), ("Bot 2", None), ("Bot 3", None)]
        for i, scores in enumerate([[30, 10, 5], [20, 12, 40]]):
            with db.session() as session:
                store.save_match(session, _oh_hell_record(room, seats, scores, i))
    finally:
        db.dispose()
    page.get_by_role("button", name="New table").click()
    page.wait_for_url("**/r/*")
    page.wait_for_selector(".seat-you")
    while page.locator("[data-start]:disabled").count():  # bots fill the table
        bots = page.locator(".badge-bot").count()
        page.locator("[data-bot-next]").click()
        expect(page.locator(".badge-bot")).to_have_count(bots + 1)
    page.locator("[data-start]").click()
    expect(page.locator("#room-title")).to_contain_text("Playing")
    page.goto(f"{base}/g/{code}")
    expect(page.locator("#standings table.standings tbody tr")).to_have_count(1, timeout=15_000)
    expect(page.locator(".group-table .pill-playing")).to_be_visible(timeout=15_000)
    return code


# Installed before any page script: each word of a resolved Ribs trick as the table draws it.
WORDS_RECORDER = """
window.__words = {};
new MutationObserver(() => {
  for (const el of document.querySelectorAll('.felt .play-resolved .play-words')) {
    const r = el.getBoundingClientRect();
    const drawn = r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight;
    const whole = el.scrollWidth <= el.clientWidth + 1 && el.scrollHeight <= el.clientHeight + 1;
    const key = `${el.closest('[data-trick-seat]').dataset.trickSeat}:${el.textContent.trim()}`;
    window.__words[key] = (window.__words[key] ?? true) && drawn && whole;
  }
}).observe(document, { subtree: true, childList: true });
"""


def test_a_ribs_tricks_outcomes_are_in_words_on_a_phone(pages, table):
    """Every pair of a resolved Ribs trick says what became of it ("beat the Ribs", "Ribs:
    failed 12", "returned"), drawn whole on the table, not only in a tooltip."""
    page = pages.open("/", viewport=PHONE)
    page.add_init_script(WORDS_RECORDER)
    _start(page, table, "ribs", {"target": 1})
    table.drive([page], lambda: table.finished(page), timeout=180)
    words = page.evaluate("() => window.__words")
    assert len(words) >= 4, f"too few outcomes were seen: {words}"
    hidden = [key for key, shown in words.items() if not shown]
    assert hidden == [], f"outcomes not shown in words on a phone: {hidden} of {sorted(words)}"
