"""Your turn while you look elsewhere (issue 35, section 2): the table tab's title and icon say
it, a chime plays (unless its sound is turned off in the alerts menu) and one system
notification per turn comes, linking back to the table; none while you look.

Headless Chromium keeps every page visible and focused, so the test hides the tab the way a
switch to another tab does for the page: ``document.visibilityState`` says "hidden" and a
``visibilitychange`` event fires (and back). Notifications are real (the context grants the
permission); the page's Notification is wrapped only to count what it showed.
"""

from __future__ import annotations

import re

from conftest import DESKTOP, PHONE, PROBE
from playwright.sync_api import expect
from test_table_feel import _start_against_bots
from test_turn_clock import AUDIO_RECORDER

AWAY = """
window.__away = false; // the tab is hidden (another tab in front)
window.__blurred = false; // the tab shows, but another window has the focus
window.__notes = [];
Object.defineProperty(Document.prototype, 'visibilityState', {
  configurable: true, get() { return window.__away ? 'hidden' : 'visible'; },
});
const focused = Document.prototype.hasFocus;
Document.prototype.hasFocus = function () { return !window.__away && !window.__blurred && focused.call(this); };
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


def _act(page, table) -> None:
    """Ana makes her next decision (her controls come alive once the bots have played)."""
    for _ in range(300):
        if table.act_once(page):
            return
        page.wait_for_timeout(50)
    raise AssertionError("Ana's turn did not come")


# The notifications so far and what Ana would click next, read at one moment: a turn's
# notification comes in the same redraw as its controls, so a turn read here as hers is one
# whose notification is counted (reading them apart, a turn could come between the two, be
# acted on, and the next turn's notification be one too many).
NOTES_AND_STEP = f"() => [window.__notes.length, ({PROBE})()]"


def _play_until_a_note(page, table, count: int) -> None:
    """Act at each of Ana's turns (the page is hidden) until the ``count``-th notification."""
    for _ in range(400):
        told, step = page.evaluate(NOTES_AND_STEP)
        if told >= count:
            return
        if step is None:
            page.wait_for_timeout(50)
        elif step == "submit":
            page.locator("#controls [data-submit]:not([disabled])").first.click(timeout=3000)
        else:
            page.locator(f'[data-key="{step}"]').click(timeout=3000)
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
        _act(page, table)
        page.wait_for_function("() => !document.querySelector('#controls [data-control][disabled]')")
    assert len(_notes(page)) == 1

    page.evaluate("() => window.__setAway(true)")  # away again: the next turn is told again
    _play_until_a_note(page, table, 2)
    expect(page).to_have_title(TURN_FLAG)
    assert len(_notes(page)) == 2


def test_your_turn_in_a_hidden_tab_chimes_unless_its_sound_is_turned_off_in_the_menu(pages, table):
    page = pages.open("/", viewport=DESKTOP, permissions=["notifications"])
    page.add_init_script(AWAY)
    page.add_init_script(AUDIO_RECORDER)  # every tone the page starts is counted (a table without a clock)
    _start_against_bots(page, table, "oh_hell", {"max_cards": 10, "rebound": False})
    expect(page.locator("#controls .turn-banner")).to_be_visible()
    assert page.evaluate("() => window.__tones") == 0  # her turn came while she looked

    page.evaluate("() => window.__setAway(true)")
    _play_until_a_note(page, table, 1)
    assert page.evaluate("() => window.__tones") == 2  # one chime (two notes), with the turn's notification

    page.evaluate("() => window.__setAway(false)")
    page.locator("#alerts-menu summary").click()
    page.locator("#alerts-menu").get_by_label("It is your turn: Sound").uncheck()
    page.locator("#alerts-menu summary").click()
    page.evaluate("() => window.__setAway(true)")
    _play_until_a_note(page, table, 2)  # the next turn is still told, in the title and a notification
    expect(page).to_have_title(TURN_FLAG)
    assert page.evaluate("() => window.__tones") == 2, "the turn's sound was turned off, yet it chimed"


def test_the_lobby_tells_your_turn_at_a_table_whose_tab_is_closed_and_lists_it_first(pages, table, server):
    page = pages.open("/", viewport=DESKTOP, permissions=["notifications"])
    page.add_init_script(AWAY)
    table.create_room(page, "Ana", "ribs", {})  # a second table of hers, waiting: not her turn
    waiting = page.url.rsplit("/", 1)[-1]
    page.goto(server + "/")
    _start_against_bots(page, table, "oh_hell", {"max_cards": 10, "rebound": False})
    code = page.url.rsplit("/", 1)[-1]
    expect(page.locator("#controls .turn-banner")).to_be_visible()
    # She leaves the table's tab for the lobby, and looks at another window: the lobby tells her.
    page.add_init_script("window.__blurred = true;")
    page.goto(server + "/")
    rows = page.locator("#mine [data-my-table]")
    expect(rows).to_have_count(2)
    expect(rows.first).to_have_attribute("data-my-table", code)
    expect(rows.first.locator("[data-your-turn]")).to_have_text("your turn")
    expect(rows.nth(1)).to_have_attribute("data-my-table", waiting)
    expect(rows.nth(1).locator("[data-your-turn]")).to_have_count(0)
    page.wait_for_function("() => window.__notes.length > 0")
    expect(page).to_have_title(TURN_FLAG)
    assert _notes(page) == [
        {"title": "Your turn at Oh Hell", "body": "The table waits for you.", "tag": f"felt-turn-{code}"}
    ]
    # Polled again and again, the same turn is not told twice.
    page.wait_for_function(
        "() => performance.getEntriesByName(new URL('/api/tables', location.href).href).length >= 3", timeout=20000
    )
    assert len(_notes(page)) == 1
    page.evaluate("() => { window.__blurred = false; window.__setAway(false); }")
    expect(page).to_have_title("Felt · card games with friends")


def test_the_alerts_menu_keeps_its_choices_and_asks_for_notifications_only_from_its_button(pages):
    page = pages.open("/", viewport=DESKTOP)
    menu = page.locator("#alerts-menu")
    assert page.evaluate("() => Notification.permission") == "default"  # nothing asked on load
    menu.locator("summary").click()
    box = menu.get_by_label("Someone says your name in chat: Sound")
    expect(box).to_be_checked()
    box.uncheck()
    page.reload()
    page.locator("#alerts-menu summary").click()
    expect(page.locator("#alerts-menu").get_by_label("Someone says your name in chat: Sound")).not_to_be_checked()
    expect(page.locator("#alerts-menu").get_by_label("It is your turn: Sound")).to_be_checked()
    expect(page.locator("#alerts-menu [data-alerts-allow]")).to_have_text("Allow system notifications")


def test_a_hidden_tab_is_told_its_table_started_and_its_name_in_chat_once_each(pages, table):
    host = pages.open("/", viewport=DESKTOP)
    code = table.create_room(host, "Ben", "oh_hell", {"max_cards": 10, "rebound": False})
    ana = pages.open(f"/r/{code}", viewport=DESKTOP, permissions=["notifications"])
    ana.add_init_script(AWAY)
    ana.reload()
    table.join_and_sit(ana, "Ana")
    ana.evaluate("() => window.__setAway(true)")
    host.get_by_label("Message", exact=True).fill("hi all")
    host.get_by_label("Message", exact=True).press("Enter")
    host.get_by_label("Message", exact=True).fill("Ana, ready?")
    host.get_by_label("Message", exact=True).press("Enter")
    expect(ana.locator("#chat-log")).to_contain_text("Ana, ready?")
    ana.wait_for_function("() => window.__notes.length > 0")
    assert _notes(ana) == [
        {"title": "Ben said your name at Oh Hell", "body": "Ana, ready?", "tag": f"felt-mention-{code}"}
    ]
    expect(ana).to_have_title("(•) You were mentioned · Felt")
    for _ in range(2):
        host.locator("[data-bot-next]").click()
    expect(host.locator(".badge-bot")).to_have_count(2)
    host.locator("[data-start]").click()
    expect(ana.locator("#room-title")).to_contain_text("Playing")
    ana.wait_for_function("() => window.__notes.length > 1")
    assert [n["tag"] for n in _notes(ana)] == [f"felt-mention-{code}", f"felt-start-{code}"]
    # The deal's first decision may be Ana's: the start then says it is her turn.
    started = _notes(ana)[1]
    if started["body"] == "The cards are dealt and the table waits for you.":
        assert started["title"] == "Your turn at Oh Hell"
        expect(ana).to_have_title("(•) Your turn · Felt")
    else:
        assert (started["title"], started["body"]) == ("Your Oh Hell table started", "The cards are dealt.")
        expect(ana).to_have_title("(•) Your table started · Felt")
    # Ben's own turns and the chat's old lines tell Ana nothing more.
    host.get_by_label("Message", exact=True).fill("good luck")
    host.get_by_label("Message", exact=True).press("Enter")
    expect(ana.locator("#chat-log")).to_contain_text("good luck")
    assert len(_notes(ana)) == 2


def test_the_history_page_tells_your_turn_too(pages, table, server):
    page = pages.open("/", viewport=DESKTOP, permissions=["notifications"])
    page.add_init_script(AWAY)
    _start_against_bots(page, table, "oh_hell", {"max_cards": 10, "rebound": False})
    code = page.url.rsplit("/", 1)[-1]
    expect(page.locator("#controls .turn-banner")).to_be_visible()
    page.add_init_script("window.__blurred = true;")
    page.goto(server + "/history")
    page.wait_for_function("() => window.__notes.length > 0")
    assert [n["tag"] for n in _notes(page)] == [f"felt-turn-{code}"]
    expect(page).to_have_title(TURN_FLAG)
    expect(page.locator("#alerts-menu summary")).to_be_visible()
    page.set_viewport_size(PHONE)  # the header's menu fits a phone
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_the_host_hears_of_each_request_for_a_bots_seat_once_in_the_live_region_and_away(pages, table):
    host = pages.open("/", viewport=DESKTOP, permissions=["notifications"])
    host.add_init_script(AWAY)
    code = table.create_room(host, "Ana", "oh_hell", {"max_cards": 10, "rebound": False})
    for _ in range(3):
        host.locator("[data-bot-next]").click()
    expect(host.locator(".badge-bot")).to_have_count(3)
    host.locator("[data-start]").click()
    expect(host.locator("#room-title")).to_contain_text("Playing")
    friend = pages.open(f"/r/{code}", viewport=DESKTOP)
    friend.get_by_label("Your name", exact=True).fill("Bea")
    friend.get_by_role("button", name="Join", exact=True).click()

    def requests() -> list[dict]:
        return [n for n in _notes(host) if n["tag"] == f"felt-request-{code}"]

    # Looking at the table: the live region says it, no notification.
    friend.get_by_role("button", name="Ask for Bot 3's seat").click()
    expect(host.locator("#seat-live")).to_have_text("Bea asks for seat 3: Let them play, or No.")
    assert requests() == []
    host.get_by_role("button", name="No", exact=True).click()
    expect(host.locator("#seat-offers")).not_to_contain_text("Bea asks")

    host.evaluate("() => window.__setAway(true)")  # away: the next ask is told, once
    friend.get_by_role("button", name="Ask for Bot 2's seat").click()
    host.wait_for_function(f"() => window.__notes.some((n) => n.tag === 'felt-request-{code}')")
    told = {"title": "Bea asks for a seat at Oh Hell", "body": "Bea asks for seat 2: let them play or decline."}
    assert requests() == [{**told, "tag": f"felt-request-{code}"}]
    friend.get_by_label("Message", exact=True).fill("may I?")
    friend.get_by_label("Message", exact=True).press("Enter")
    expect(host.locator("#chat-log")).to_contain_text("may I?")
    assert len(requests()) == 1, "the same ask, drawn again, is not told again"
    host.evaluate("() => window.__setAway(false)")
    expect(host.locator("#seat-offers")).to_contain_text("Bea asks for seat 2")


def test_a_seat_request_alert_turned_off_in_the_menu_stays_silent(pages, table):
    host = pages.open("/", viewport=DESKTOP, permissions=["notifications"])
    host.add_init_script(AWAY)
    code = table.create_room(host, "Ana", "oh_hell", {"max_cards": 10, "rebound": False})
    host.locator("#alerts-menu summary").click()
    host.locator('[data-alert-kind="request"][data-alert-channel="system"]').uncheck()
    host.locator("#alerts-menu summary").click()
    for _ in range(3):
        host.locator("[data-bot-next]").click()
    expect(host.locator(".badge-bot")).to_have_count(3)
    host.locator("[data-start]").click()
    expect(host.locator("#room-title")).to_contain_text("Playing")
    friend = pages.open(f"/r/{code}", viewport=DESKTOP)
    friend.get_by_label("Your name", exact=True).fill("Bea")
    friend.get_by_role("button", name="Join", exact=True).click()
    host.evaluate("() => window.__setAway(true)")
    friend.get_by_role("button", name="Ask for Bot 3's seat").click()
    expect(host.locator("#seat-live")).to_contain_text("Bea asks for seat 3")
    host.wait_for_function("() => document.querySelector('link[rel~=icon]').dataset.alert")
    assert [n for n in _notes(host) if n["tag"] == f"felt-request-{code}"] == []
