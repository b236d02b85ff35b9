"""Your turn while you look elsewhere (issue 35, section 2): the table tab's title and icon say
it, and one system notification per turn comes, linking back to the table; none while you look.

Headless Chromium keeps every page visible and focused, so the test hides the tab the way a
switch to another tab does for the page: ``document.visibilityState`` says "hidden" and a
``visibilitychange`` event fires (and back). Notifications are real (the context grants the
permission); the page's Notification is wrapped only to count what it showed.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from conftest import DESKTOP  # noqa: E402  (the browser folder's own conftest)
from test_table_feel import _start_against_bots

AWAY = """
window.__away = false;
window.__notes = [];
Object.defineProperty(Document.prototype, 'visibilityState', {
  configurable: true, get() { return window.__away ? 'hidden' : 'visible'; },
});
const focused = Document.prototype.hasFocus;
Document.prototype.hasFocus = function () { return !window.__away && focused.call(this); };
window.__setAway = (away) => {
  window.__away = away;
  document.dispatchEvent(new Event('visibilitychange'));
  if (!away) window.dispatchEvent(new Event('focus'));
};
const Real = window.Notification;
if (Real) {
  const Counted = function (title, options) {
    const note = new Real(title, options);
    window.__notes.push({ title, body: options && options.body, tag: options && options.tag });
    return note;
  };
  Object.defineProperty(Counted, 'permission', { get: () => Real.permission });
  Counted.requestPermission = (...a) => Real.requestPermission(...a);
  window.Notification = Counted;
}
"""

TURN_FLAG = re.compile(r"^\(•\) Your turn · Felt$")


def _notes(page) -> list[dict]:
    return page.evaluate("() => window.__notes")


def _play_until_a_note(page, table, count: int) -> None:
    """Act at each of Ana's turns (the page is hidden) until the ``count``-th notification."""
    for _ in range(200):
        if len(_notes(page)) >= count:
            return
        if not table.act_once(page):
            page.wait_for_timeout(50)
    raise AssertionError(f"no notification number {count}: {_notes(page)}")


def test_your_turn_in_a_hidden_tab_flags_the_title_and_icon_and_notifies_once_per_turn(pages, table):
    page = pages.open("/", viewport=DESKTOP, permissions=["notifications"])
    page.add_init_script(AWAY)
    _start_against_bots(page, table, "oh_hell", {"max_cards": 10, "rebound": False})
    code = page.url.rsplit("/", 1)[-1]
    icon = page.locator("link[rel~='icon']")
    plain = icon.get_attribute("href")
    assert page.evaluate("() => Notification.permission") == "granted"
    expect(page.locator("#controls .turn-banner")).to_be_visible()
    # Her first turn came while she looked: nothing but the page itself says it.
    assert _notes(page) == []
    assert not page.title().startswith("(•)")

    page.evaluate("() => window.__setAway(true)")  # she switches to another tab
    _play_until_a_note(page, table, 1)
    expect(page).to_have_title(TURN_FLAG)
    assert icon.get_attribute("data-alert") == "turn"
    assert icon.get_attribute("href") != plain
    note = _notes(page)[0]
    assert note["tag"] == f"felt-turn-{code}"
    assert note["title"] == "Your turn at Oh Hell"
    # The same turn, drawn again (the chat opened and closed), is not told twice.
    page.locator("#chat-jump").click()
    page.keyboard.press("Escape")
    expect(page.locator("#controls .turn-banner")).to_be_visible()
    assert len(_notes(page)) == 1

    page.evaluate("() => window.__setAway(false)")  # back at the table: all restored
    expect(page).not_to_have_title(TURN_FLAG)
    assert page.title().startswith("● Your turn")
    assert icon.get_attribute("href") == plain
    assert icon.get_attribute("data-alert") is None
    # Turns that come while she looks are not told.
    for _ in range(3):
        expect(page.locator("#controls .turn-banner")).to_be_visible(timeout=15000)
        assert table.act_once(page)
        page.wait_for_function("() => !document.querySelector('#controls [data-control][disabled]')")
    assert len(_notes(page)) == 1

    page.evaluate("() => window.__setAway(true)")  # away again: the next turn is told again
    _play_until_a_note(page, table, 2)
    expect(page).to_have_title(TURN_FLAG)
    assert len(_notes(page)) == 2
