"""A table's rules in one line, in a real browser: the summary of a non-default table on the
lobby's row (in English and Portuguese), in the waiting room, at the table, in the history and on
the match page (with every option listed), over a whole match against bots; and the no-trump
marking on the table when a no-trump hand is played."""

from __future__ import annotations

import re
import time

from conftest import DESKTOP, PHONE
from playwright.sync_api import expect

OH_HELL = {"start": "low", "max_cards": 3, "trump": "rotation", "scoring": "squared"}
OH_HELL_EN = "Oh Hell · trump rotation · squared · smallest hand first · up to 3 cards"
OH_HELL_PT = "Oh Hell · trunfo em rotação · ao quadrado · menor mão primeiro · no máximo 3 cartas"

# The target is high enough that the match cannot end before Ana has named trump first at least
# once: the deal passes to the left every hand, thrown in or not, so within four deals she speaks
# first, and a side scores at most 162 + 100 (one player's runs) + 20 (bella) = 282 in a hand,
# too little to reach 900 in the three hands before that.
TARBISH = {"target": 900, "no_trump": True, "dealer_forced": False}
TARBISH_EN = "Tarabish · no trump · dealer not forced · to 900"


def lobby_row(pages, code: str, lang: str = "en"):
    """The lobby's row of table ``code``, seen by someone else (in ``lang``)."""
    other = pages.open(None, viewport=DESKTOP)
    other.add_init_script(f"localStorage.setItem('felt.lang', '{lang}')")
    other.goto(pages.base + "/")
    return other.locator("#rooms .room-row").filter(has=other.locator(f'a[href$="{code}"]'))


def fill_with_bots_and_start(page) -> None:
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    page.locator("[data-start]").click()
    expect(page.locator("#room-title")).to_contain_text("Playing")


def check_history_and_match(page, pages, summary: str, changed: dict, shot=None) -> None:
    """The history's row and the match page say the same rules; the page lists every option."""
    match_href = page.get_by_role("link", name="Match record & replay").get_attribute("href")
    page.goto(pages.base + "/history")
    expect(page.locator("#mine .match-row [data-rules-summary]")).to_have_text(summary)
    page.goto(pages.base + match_href)
    expect(page.locator("#replay-rules")).to_have_text(summary)
    expect(page.locator(".match-rules [data-rules-summary]")).to_have_text(summary)
    marked = page.locator(".option-list .option-changed")
    expect(marked).to_have_count(len(changed))
    for key in changed:
        expect(page.locator(f'.option-list [data-option="{key}"]')).to_have_class(re.compile("option-changed"))
    if shot:
        page.set_viewport_size(PHONE)  # the list fits a phone without sideways scrolling
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
        page.screenshot(path=str(shot), full_page=True)


def test_an_oh_hell_table_in_rotation_says_its_rules_everywhere_and_marks_the_no_trump_hand(pages, table, artifacts):
    page = pages.open("/", viewport=DESKTOP)
    code = table.create_room(page, "Ana", "oh_hell", OH_HELL)
    expect(page.locator("#table-rules")).to_have_text(OH_HELL_EN)  # the waiting room
    expect(lobby_row(pages, code)).to_contain_text(OH_HELL_EN)
    row = lobby_row(pages, code, "pt")
    expect(row).to_contain_text(OH_HELL_PT)
    row.page.screenshot(path=str(artifacts / "rules-summary-lobby-pt.png"))

    fill_with_bots_and_start(page)
    expect(page.locator("#table-rules")).to_have_text(OH_HELL_EN)  # the table in play
    page.screenshot(path=str(artifacts / "rules-summary-table.png"))
    seen = []  # the trump line at each of Ana's moves: hands of 1, 2, 3, 2, 1 cards

    def note_trump(_actions: int) -> None:
        seen.append(page.locator("#info").inner_text())

    table.drive([page], lambda: table.finished(page), timeout=180, each=note_trump)
    # Rotation: hearts, diamonds, clubs, spades, then the fifth hand without trump.
    assert any("hearts" in line for line in seen) and any("no trump" in line for line in seen), seen
    expect(page.locator("#sheet table.sheet tbody tr.sheet-hand")).to_have_count(5)
    check_history_and_match(page, pages, OH_HELL_EN, OH_HELL, artifacts / "rules-summary-match-phone.png")


def test_a_no_trump_tarabish_table_says_its_rules_everywhere_and_marks_a_no_trump_call(pages, table):
    page = pages.open("/", viewport=DESKTOP)
    code = table.create_room(page, "Ana", "tarbish", TARBISH)
    expect(page.locator("#table-rules")).to_have_text(TARBISH_EN)
    expect(lobby_row(pages, code)).to_contain_text(TARBISH_EN)

    fill_with_bots_and_start(page)
    expect(page.locator("#table-rules")).to_have_text(TARBISH_EN)
    called = {"no_trump": False}
    deadline = time.monotonic() + 300
    while not table.finished(page):
        no_trump = page.locator('#controls [data-key="trump-N"]:not([disabled])')
        if not called["no_trump"] and no_trump.count():
            no_trump.click()  # Ana names no trump the first time she may
            called["no_trump"] = True
            expect(page.locator("#info")).to_contain_text(re.compile(r"Trump\s+no trump"))
        elif not table.act_once(page):
            time.sleep(0.04)
        assert time.monotonic() < deadline, "the match did not finish within 300 s"
    assert called["no_trump"], "Ana never had trump to name"
    expect(page.locator("#sheet")).to_contain_text("no trump")  # the hand's line on the score sheet
    check_history_and_match(page, pages, TARBISH_EN, TARBISH)
