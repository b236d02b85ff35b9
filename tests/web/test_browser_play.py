"""Playing Felt in a real browser: create, invite, fill with bots, play every game to the end."""

from __future__ import annotations

import re
import time

import pytest
from conftest import DESKTOP, PHONE, say_in_chat
from playwright.sync_api import expect


def test_a_player_plays_a_whole_short_oh_hell_match_against_three_bots(pages, table, artifacts):
    page = pages.open("/")
    expect(page.get_by_label("Game", exact=True)).to_be_visible()
    page.screenshot(path=str(artifacts / "lobby-desktop.png"), full_page=True)
    code = table.create_room(page, "Ana", "oh_hell", {"max_cards": 2, "rebound": False})

    expect(page.locator(".seat-you")).to_contain_text("Ana")
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    expect(page.locator("[data-start]")).to_be_enabled()
    expect(page.locator(".badge-bot")).to_have_count(3)
    # The host may take a bot out again and put one back.
    page.locator("[data-bot-remove]").first.click()
    expect(page.locator(".badge-bot")).to_have_count(2)
    expect(page.locator("[data-start]")).to_be_disabled()
    page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    page.locator("[data-start]").click()
    expect(page.locator("#room-title")).to_contain_text("Playing")
    expect(page.locator("#fair code.hash")).to_have_count(1)

    # The first move by keyboard: the live region says it is your turn; Enter on a focused control acts.
    expect(page.locator("#controls .turn-banner")).to_be_visible(timeout=15000)
    expect(page.locator("#announce")).to_contain_text("Your turn")
    first = page.locator("#controls [data-control]:not([disabled])").first
    first.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#hand button[data-card]")).to_have_count(2)
    page.wait_for_function("() => !document.querySelector('#controls [data-bid]')")

    refreshed = {"done": False}

    def refresh_mid_hand(actions: int) -> None:
        if actions == 2 and not refreshed["done"]:
            refreshed["done"] = True
            page.reload()
            expect(page.locator(".seat-you")).to_contain_text("Ana")
            expect(page.locator("#conn")).to_have_text("Connected")
            expect(page.locator("#hand button[data-card]").first).to_be_visible()

    table.drive([page], lambda: table.finished(page), each=refresh_mid_hand)
    assert refreshed["done"], "the match ended before the refresh was tried"
    expect(page.locator("#result")).to_contain_text(re.compile("Winner|You won"))
    page.screenshot(path=str(artifacts / "oh_hell-finished-desktop.png"), full_page=True)
    expect(page.locator("#sheet table.sheet tbody tr.sheet-hand")).to_have_count(2)  # hands of 2 and 1 cards
    expect(page.locator("#fair .verify.ok")).to_be_visible()
    record = page.get_by_role("link", name="Match record & replay")
    match_href = record.get_attribute("href")
    assert match_href and match_href.startswith("/matches/")

    # Play again: a new room with the same game, the host seated at once.
    page.get_by_role("button", name="Play again").click()
    page.wait_for_url(re.compile(rf"/r/(?!{code})"))
    expect(page.locator(".seat-you")).to_contain_text("Ana")
    expect(page.locator("#room-title")).to_contain_text("Oh Hell")

    # The match record: score sheet, the seed verified, a replay stepped by keyboard.
    page.goto(pages.base + match_href)
    expect(page.locator("#fair .verify.ok")).to_contain_text("✓")
    expect(page.locator("#sheet table.sheet tbody tr.sheet-hand")).to_have_count(2)
    expect(page.locator("#step-label")).to_contain_text("Deal")
    expect(page.locator("#hands .hand-list li")).to_have_count(4)
    page.keyboard.press("ArrowRight")
    expect(page.locator("#step-label")).to_contain_text("Action 1 of")
    page.keyboard.press("End")
    total = page.locator("#step-label").inner_text()
    page.get_by_role("button", name="Previous action").click()
    assert page.locator("#step-label").inner_text() != total
    page.get_by_role("button", name="First position").click()
    expect(page.locator("#step-label")).to_contain_text("Deal")
    page.screenshot(path=str(artifacts / "match-desktop.png"), full_page=True)

    page.goto(pages.base + "/history")
    expect(page.locator("#mine .match-row")).to_have_count(1)
    expect(page.locator("#mine .match-row")).to_contain_text("Oh Hell")


GAMES = [
    ("oh_hell", {"max_cards": 2, "rebound": False}),
    ("bid_whist", {"target": 1}),
    ("tarbish", {"target": 1}),
    ("ribs", {"target": 1}),
]


@pytest.mark.parametrize(("game", "options"), GAMES, ids=[g for g, _ in GAMES])
def test_four_friends_play_a_hand_of_each_game_together(pages, table, artifacts, game, options):
    host = pages.open("/")
    table.create_room(host, "Ana", game, options)
    invite = host.locator("#invite-url").input_value()
    assert re.search(r"/r/[A-Z0-9]+$", invite)

    friends = []
    for name, viewport in (("Bea", PHONE), ("Cy", None), ("Dee", None)):
        friend = pages.open(None, viewport=viewport)
        friend.goto(invite)
        table.join_and_sit(friend, name)
        friends.append(friend)
    players = [host, *friends]
    expect(host.locator(".seat:not(.seat-empty)")).to_have_count(4)

    watcher = pages.open(None)
    watcher.goto(invite)
    expect(watcher.locator("#controls")).to_contain_text("watching")

    host.locator("[data-start]").click()
    for page in players:
        expect(page.locator("#room-title")).to_contain_text("Playing")

    # Chat is plain text for everyone, markup and all.
    say_in_chat(friends[0], "hi <b>all</b>")  # Bea's phone opens its chat to type
    expect(host.locator("#chat-log")).to_contain_text("hi <b>all</b>")
    assert host.locator("#chat-log b").count() == 0
    # The chat drawer is closed at the table: the header's Chat button counts the new line.
    expect(host.locator("#chat-unread")).to_have_text("1")
    host.locator("#chat-jump").click()
    expect(host.locator("#chat-unread")).to_be_hidden()
    expect(host.locator("#chat-text")).to_be_focused()
    host.evaluate("() => window.scrollTo(0, 0)")

    shots = {"done": False}

    def screenshot_mid_hand(actions: int) -> None:
        if shots["done"] or actions < 6:
            return
        if host.locator(".felt .play").count() == 0:
            return
        shots["done"] = True
        host.screenshot(path=str(artifacts / f"{game}-desktop.png"), full_page=True)
        friends[0].screenshot(path=str(artifacts / f"{game}-phone.png"), full_page=True)

    actions = table.drive(
        players, lambda: all(table.finished(p) for p in players), timeout=150, each=screenshot_mid_hand
    )
    assert actions > 8
    assert shots["done"], "no moment with cards on the table was seen"
    expect(watcher.locator("#result .result-panel")).to_be_visible()
    friends[0].screenshot(path=str(artifacts / f"{game}-finished-phone.png"), full_page=True)
    for page in players:
        expect(page.locator("#sheet table.sheet tbody tr").first).to_be_visible()
        expect(page.get_by_role("link", name="Match record & replay")).to_be_visible()
    # Play again from one seat gives the others a link to the next game.
    host.get_by_role("button", name="Play again").click()
    host.wait_for_url(re.compile(r"/r/"))
    expect(friends[1].get_by_role("link", name="Join the next game")).to_be_visible()


def test_a_gap_in_versions_resyncs_and_a_dropped_connection_comes_back_to_the_same_seat(pages, table):
    """The socket runs through a Playwright route that can lose a patch or cut the line."""
    page = pages.open(None, viewport=PHONE)
    line = {"down": False, "drop_patch": False, "resyncs": 0, "routes": []}

    def route(ws):
        if line["down"]:
            ws.close(code=4000, reason="network down (test)")
            return
        server = ws.connect_to_server()
        line["routes"].append((ws, server))

        def from_page(message):
            if '"resync"' in str(message):
                line["resyncs"] += 1
            server.send(message)

        def from_server(message):
            if line["drop_patch"] and '"type":"patch"' in str(message):
                line["drop_patch"] = False  # lost on the way: the next patch shows a gap
                return
            ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/rooms/"), route)
    page.goto(pages.base + "/")
    table.create_room(page, "Eve", "ribs", {"target": 1})
    expect(page.locator("#conn")).to_have_text("Connected")

    line["drop_patch"] = True
    page.locator("[data-bot-next]").click()  # its patch is lost: nothing changes yet
    time.sleep(0.3)
    expect(page.locator(".badge-bot")).to_have_count(0)
    typing = page.locator("#chat-text")
    if not typing.is_visible():  # a phone: the chat's input shows with the chat open
        page.locator("#chat-jump").click()
    typing.fill("anyone there?")
    typing.press("Enter")  # the next patch skips a version: resync
    expect(page.locator(".badge-bot")).to_have_count(1)
    expect(page.locator("#chat-log")).to_contain_text("anyone there?")
    page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(2)
    assert line["resyncs"] == 1

    line["down"] = True
    for ws, server in line["routes"]:
        server.close()
        ws.close(code=4000, reason="network down (test)")
    expect(page.locator("#conn")).to_have_text("Reconnecting…")
    time.sleep(1.0)
    line["down"] = False
    expect(page.locator("#conn")).to_have_text("Connected", timeout=20000)
    expect(page.locator(".seat-you")).to_contain_text("Eve")
    expect(page.locator(".badge-bot")).to_have_count(2)
    page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)


def test_an_unknown_room_says_so(pages):
    page = pages.open("/r/NOSUCH22")
    expect(page.locator("#missing")).to_contain_text("no room")
    expect(page.get_by_role("link", name="Back to the lobby")).to_be_visible()


# Pairs of seat boxes that cover each other by more than 2 px either way.
SEATS_OVERLAP = """() => {
  const boxes = [...document.querySelectorAll('[data-seat-box]')]
    .map((el) => [el.dataset.seatBox, el.getBoundingClientRect()]);
  const out = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [a, r] = boxes[i], [b, q] = boxes[j];
    const w = Math.min(r.right, q.right) - Math.max(r.left, q.left);
    const h = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
    const size = (box) => `${Math.round(box.width)}x${Math.round(box.height)}`;
    if (w > 2 && h > 2) out.push(`${a}/${b} ${Math.round(w)}x${Math.round(h)} ${size(r)} ${size(q)}`);
  }
  return out;
}"""


# Installed before any page script: whenever the middle of the table holds more than one
# play (a seat's pair, the Ribs), records the most plays seen and every pair covering another.
PLAYS_RECORDER = """
window.__plays = { most: 0, overlaps: [] };
new MutationObserver(() => {
  const boxes = [...document.querySelectorAll('.felt .play')]
    .filter((el) => !el.classList.contains('play-sweep'))
    .map((el) => [el.dataset.trickSeat ?? 'ribs', el.getBoundingClientRect()]);
  window.__plays.most = Math.max(window.__plays.most, boxes.length);
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [a, r] = boxes[i], [b, q] = boxes[j];
    const w = Math.min(r.right, q.right) - Math.max(r.left, q.left);
    const h = Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top);
    if (w > 2 && h > 2) window.__plays.overlaps.push(`${a}/${b} ${Math.round(w)}x${Math.round(h)}`);
  }
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
"""


@pytest.mark.parametrize("seats", [6, 8, 10])
def test_a_big_ribs_table_fits_a_phone_and_plays_to_the_end(pages, table, artifacts, seats):
    page = pages.open("/", viewport=PHONE)
    page.add_init_script(PLAYS_RECORDER)
    table.create_room(page, "Ana", "ribs", {"target": 1}, seats=seats)
    for _ in range(seats - 1):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(seats - 1)
    page.locator("[data-start]").click()
    expect(page.locator("#room-title")).to_contain_text("Playing")
    expect(page.locator("#hand button[data-card]").first).to_be_visible(timeout=15000)
    # Every seat is on the table, none covers another, and nothing makes a phone scroll sideways.
    expect(page.locator("[data-seat-box]")).to_have_count(seats)
    assert page.evaluate(SEATS_OVERLAP) == []
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.screenshot(path=str(artifacts / f"ribs-{seats}-seats-phone.png"), full_page=True)
    whole = lambda: page.locator(".felt .play:not(.play-sweep)").count() >= seats - 1  # noqa: E731
    table.drive([page], lambda: whole() or table.finished(page), timeout=180)
    if whole():
        page.screenshot(path=str(artifacts / f"ribs-{seats}-seats-trick-phone.png"))
    table.drive([page], lambda: table.finished(page), timeout=180)
    expect(page.locator("#result")).to_contain_text(re.compile("Winner|You won|won"))
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.screenshot(path=str(artifacts / f"ribs-{seats}-seats-finished-phone.png"), full_page=True)
    # Whole tricks were on the table (every other seat's pair), none covering another.
    plays = page.evaluate("() => window.__plays")
    assert plays["most"] >= seats - 1, plays  # the bidder plays no pair: the Ribs are theirs
    assert plays["overlaps"] == []
    page.set_viewport_size(DESKTOP)  # the same table on a desktop
    assert page.evaluate(SEATS_OVERLAP) == []
    page.screenshot(path=str(artifacts / f"ribs-{seats}-seats-finished-desktop.png"), full_page=True)
