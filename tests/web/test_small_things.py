"""The smaller things a player notices: a lost line pauses the table (nothing on it clickable,
the token in no URL or console line) and comes back on its own; an old link to a finished
table opens its match record; the last trick can be looked at into the next hand; a score
sheet wider than the sidebar says it scrolls; the replay's header names the hand whose trick
the table shows."""

from __future__ import annotations

import re
import time

from conftest import LAPTOP, PHONE, PROBE
from playwright.sync_api import expect


def _cut_able_line(page):
    """Route the room socket through Playwright so the test can cut it; returns its switch."""
    line = {"down": False, "routes": [], "urls": []}

    def route(ws):
        line["urls"].append(ws.url)
        if line["down"]:
            ws.close(code=4000, reason="network down (test)")
            return
        server = ws.connect_to_server()
        line["routes"].append((ws, server))
        ws.on_message(lambda m: server.send(m))
        server.on_message(lambda m: ws.send(m))

    page.route_web_socket(re.compile(r"/ws/rooms/"), route)
    return line


def _cut(line):
    line["down"] = True
    for ws, server in line["routes"]:
        server.close()
        ws.close(code=4000, reason="network down (test)")
    line["routes"].clear()


def test_a_lost_line_pauses_the_table_and_nothing_on_it_can_be_clicked(pages, table):
    page = pages.open(None, viewport=PHONE)
    console = []
    page.on("console", lambda msg: console.append(msg.text))
    line = _cut_able_line(page)
    page.goto(pages.base + "/")
    table.create_room(page, "Eve", "oh_hell", {"max_cards": 2, "rebound": False})
    token = page.evaluate("() => JSON.parse(localStorage.getItem('felt.player')).token")
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    page.locator("[data-start]").click()
    expect(page.locator("#controls .turn-banner")).to_be_visible(timeout=15000)
    choice = page.locator("#controls [data-control]:not([disabled])").first
    expect(page.locator("#paused")).to_have_count(0)

    _cut(line)
    expect(page.locator("#conn")).to_have_text("Reconnecting…")
    banner = page.locator("#paused")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Paused")
    expect(page.locator("body")).to_have_class(re.compile(r"\btable-paused\b"))
    assert page.evaluate("() => document.querySelector('#dock').inert && document.querySelector('#table').inert")
    box = choice.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    assert page.locator(".toast").count() == 0, page.locator(".toast").all_inner_texts()
    expect(page.locator("#controls .turn-banner")).to_be_visible()  # the decision is still to make

    line["down"] = False
    expect(page.locator("#conn")).to_have_text("Connected", timeout=20000)
    expect(banner).to_be_hidden()
    assert not page.evaluate("() => document.querySelector('#dock').inert")
    page.locator("#controls [data-control]:not([disabled])").first.click()
    page.wait_for_function("() => !document.querySelector('#controls [data-bid]')")
    assert len(line["urls"]) >= 2
    assert all(token not in url and "token" not in url for url in line["urls"]), line["urls"]
    assert not [text for text in console if token in text]


def test_an_old_link_to_a_finished_and_closed_table_opens_its_match_record(pages):
    """The server names the match played at the code (tests/edges/test_old_room_links_live.py);
    the page follows it. A code that never had a match still says the room is not found."""
    page = pages.open(None)
    body = '{"match_id": "0123456789abcdef"}'
    page.route(
        "**/api/rooms/ZZZZ2345/match",
        lambda route: route.fulfill(status=200, content_type="application/json", body=body),
    )
    # The record itself is the match page's business: here a stand-in page marks the arrival.
    page.route(
        "**/matches/0123456789abcdef",
        lambda route: route.fulfill(status=200, content_type="text/html", body="<p id=arrived>record</p>"),
    )
    page.goto(pages.base + "/r/ZZZZ2345")
    page.wait_for_url("**/matches/0123456789abcdef")
    expect(page.locator("#arrived")).to_be_visible()
    other = pages.open("/r/ZZZZ2346")
    expect(other.locator("#missing")).to_contain_text("no room")
    expect(other.get_by_role("link", name="Back to the lobby")).to_be_visible()


# One step of the first hand, looked at and clicked in one go in the page (a step decided
# outside could land in the second hand, dealt meanwhile): "stop" once a hand is on the sheet.
FIRST_HAND_ONLY = f"""() => {{
  if (document.querySelector('#sheet table.sheet tbody tr.sheet-hand')) return 'stop';
  const step = ({PROBE})();
  if (step === null) return null;
  const el = step === 'submit' ? document.querySelector('#controls [data-submit]:not([disabled])')
    : document.querySelector(`[data-key="${{CSS.escape(step)}}"]`);
  if (el) el.click();
  return step;
}}"""


def test_the_last_trick_stays_in_view_into_the_next_hand_and_the_sheet_says_it_scrolls(pages, table):
    page = pages.open("/", viewport=LAPTOP)
    table.create_room(page, "Ana", "oh_hell", {"max_cards": 2, "rebound": False})
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    page.locator("[data-start]").click()
    deadline = time.monotonic() + 120
    while (step := page.evaluate(FIRST_HAND_ONLY)) != "stop":  # play the first hand, nothing of the second
        assert time.monotonic() < deadline, "the first hand never ended"
        if step is None:
            time.sleep(0.05)
    # The second hand is dealt: its bids come first, so no trick of it has been played.
    expect(page.locator("#controls [data-bid]").first).to_be_visible(timeout=15000)
    last = page.locator("#last-trick")
    expect(last).to_contain_text("The last trick of hand 1")
    expect(last.locator("ul.last-trick > li")).to_have_count(4)
    expect(last).to_contain_text("Won by")
    # The sheet is wider than the sidebar: a line says so and the box is marked.
    sheet = page.locator("#sheet")
    assert sheet.evaluate("el => el.scrollWidth > el.clientWidth"), "the sheet fits: nothing to cue"
    expect(page.locator("#sheet-more")).to_be_visible()
    expect(page.locator("#sheet-more")).to_contain_text("scroll it sideways")
    expect(sheet).to_have_class(re.compile(r"\bsheet-scrolls\b"))


# The relative luminance of a CSS rgb() colour, and the contrast of two (WCAG 2).
CONTRAST = """([fg, bg]) => {
  const lum = (css) => {
    const [r, g, b] = css.match(/[\\d.]+/g).slice(0, 3).map(Number).map((v) => v / 255)
      .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


def test_the_kitty_star_is_big_and_stands_out_on_its_card_even_when_it_cannot_be_played(pages):
    page = pages.open("/")
    style = page.evaluate("""() => {
      const hand = document.createElement('div');
      hand.className = 'hand-live';
      hand.innerHTML = '<button class="card card-button from-kitty" disabled><span class="card-pip">A</span></button>';
      document.body.append(hand);
      const card = hand.firstChild;
      const star = getComputedStyle(card, '::after');
      return { content: star.content, size: parseFloat(star.fontSize), color: star.color,
               card: getComputedStyle(card).backgroundColor, opacity: getComputedStyle(card).opacity };
    }""")
    assert style["content"] == '"★"'
    assert style["size"] >= 16, style
    assert float(style["opacity"]) == 1, style  # a card that cannot be played dims its face, not its star
    assert page.evaluate(CONTRAST, [style["color"], style["card"]]) >= 4.5, style


def test_the_replay_header_names_the_hand_whose_last_trick_the_table_shows(pages, table):
    page = pages.open("/", viewport=LAPTOP)
    table.create_room(page, "Ana", "oh_hell", {"max_cards": 2, "rebound": False})
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    page.locator("[data-start]").click()
    table.drive([page], lambda: table.finished(page))
    page.get_by_role("link", name="Match record & replay").click()
    page.wait_for_url(re.compile(r"/matches/"))
    label = page.locator("#step-label")
    expect(label).to_contain_text("Deal", timeout=30000)  # the replay has loaded
    felt = page.locator("#table .felt")
    # Step by step across the first hand's end: its final trick is on the table under "hand 1",
    # and the first step under "hand 2" shows no trick of hand 1.
    held = False
    while "hand 2" not in label.inner_text():
        held = "felt-held" in (felt.get_attribute("class") or "")
        before = label.inner_text()
        page.locator('[data-step="next"]').click()
        expect(label).not_to_have_text(before)
    assert held, "the first hand's final trick was shown under another hand's header"
    expect(felt).not_to_have_class(re.compile(r"\bfelt-held\b"))
    page.locator('[data-step="prev"]').click()
    expect(label).to_contain_text("hand 1")
    expect(felt).to_have_class(re.compile(r"\bfelt-held\b"))
    # "Next hand" from the deal goes to the second hand: its deal, under "hand 2", without the
    # first hand's final trick (stepping back by one action shows that trick again).
    page.locator('[data-step="first"]').click()
    page.locator('[data-step="nextHand"]').click()
    expect(label).to_contain_text("hand 2")
    expect(felt).not_to_have_class(re.compile(r"\bfelt-held\b"))
