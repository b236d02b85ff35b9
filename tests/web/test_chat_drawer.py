"""The chat is a drawer over the table: talking never moves the table, your turn brings your
hand and controls back into view, and the end of the match brings its result. On a phone the
chat's box is behind its button with its lines, so the header stays one slim row."""

from __future__ import annotations

import re

import pytest
from conftest import SIZES
from playwright.sync_api import expect
from test_table_feel import OUT_OF_VIEW, SETTLE, _start_against_bots

IN_VIEW = """(sel) => {
  const r = document.querySelector(sel).getBoundingClientRect();
  return r.height > 0 && r.top >= -1 && r.bottom <= innerHeight + 1;
}"""
# Act at a decision and, in the same task (before any answer can arrive), scroll to the very
# bottom of the page, the way a player reading the side panels leaves it.
ACT_AND_SCROLL_AWAY = """(sel) => {
  document.querySelector(sel).click();
  window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' });
}"""


DRAWN = "(sel) => document.querySelector(sel).getBoundingClientRect().height > 20"
# A finished trick held on the table is swept a moment later, and the table refits then (which
# may bring the decision back into view): a line is said once the table is still.
STILL = "() => !document.querySelector('.felt.felt-held')"


def _still(page) -> None:
    page.wait_for_function(STILL, timeout=15000)
    page.evaluate(SETTLE)


def _say(page, text: str) -> None:
    """Open the chat's lines, send a line, close them with Esc: the page's scroll never moves."""
    _still(page)
    before = page.evaluate("() => window.scrollY")
    toggle = page.locator("#chat-jump")
    if page.viewport_size["width"] <= 560:  # a phone: the box is behind the button, like the lines
        expect(page.get_by_label("Message", exact=True)).to_be_hidden()
    # Clicked where it is seen: a locator's click first scrolls a sticky header's button to
    # its place in the page's flow (the top), which a person's click never does.
    box = toggle.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.get_by_role("region", name="Chat")).to_be_visible()
    expect(page.locator("#chat-text")).to_be_focused()
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    expect(page.locator("#chat-log")).to_contain_text(text)
    page.evaluate(SETTLE)
    assert page.evaluate("() => window.scrollY") == before, "opening the chat or sending a line scrolled the page"
    assert page.evaluate(OUT_OF_VIEW) == [], "with the chat open the hand or controls left the view"
    expect(toggle).to_have_attribute("aria-expanded", "true")
    assert page.evaluate(DRAWN, "#chat-pop")
    page.keyboard.press("Escape")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(toggle).to_be_focused()
    assert not page.evaluate(DRAWN, "#chat-pop")
    page.evaluate(SETTLE)
    assert page.evaluate("() => window.scrollY") == before, "closing the chat scrolled the page"


def _say_closed(page, text: str) -> None:
    """The chat box itself is always in reach: a line sent from it with the lines closed."""
    _still(page)
    before = page.evaluate("() => window.scrollY")
    box = page.get_by_label("Message", exact=True)
    where = box.bounding_box()
    page.mouse.click(where["x"] + 10, where["y"] + where["height"] / 2)
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    expect(page.locator("#chat-log")).to_contain_text(text)
    page.evaluate(SETTLE)
    assert page.evaluate("() => window.scrollY") == before, "sending a line from the chat box scrolled the page"
    assert page.evaluate(OUT_OF_VIEW) == []


@pytest.mark.parametrize("size", list(SIZES))
def test_chat_never_moves_the_table_and_each_turn_and_the_end_come_back_into_view(pages, table, size):
    page = pages.open("/", viewport=SIZES[size])
    _start_against_bots(page, table, "oh_hell", {"max_cards": 2, "rebound": False})
    assert page.locator("#chat-log").get_attribute("aria-live") == "polite"
    decisions = said = 0
    for decisions, step in table.decisions(page):
        page.evaluate(SETTLE)
        # Every decision after the first follows a scroll to the bottom of the page.
        assert page.evaluate(OUT_OF_VIEW) == [], f"decision {decisions}: the hand or controls are out of view"
        if said < 3:
            said += 1
            # A phone's chat is behind its button: its box shows only with its lines.
            (_say if said % 2 or size == "phone" else _say_closed)(page, f"line {said} at {size}")
        sel = "#controls [data-submit]:not([disabled])" if step == "submit" else f'[data-key="{step}"]'
        page.evaluate(ACT_AND_SCROLL_AWAY, sel)
    assert decisions > 3 and said == 3
    expect(page.locator("#result .result-panel")).to_contain_text(re.compile("Game over|You won"))
    page.wait_for_function(IN_VIEW, arg="#result .result-panel", timeout=10000)
    # Talking after the end leaves the result where it is.
    _say(page, "good game")
    assert page.evaluate(IN_VIEW, "#result .result-panel")
