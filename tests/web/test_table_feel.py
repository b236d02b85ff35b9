"""The table as a card player expects it, in a real browser: hand and controls in reach at
every decision on three screen sizes, each finished trick shown whole before it is swept,
the move log, the turn timer, replays that teach, and the client in Portuguese."""

from __future__ import annotations

import re
import time

import httpx
import pytest
from conftest import DESKTOP, PHONE, PROBE, SIZES
from playwright.sync_api import expect

from server.games import get_game

# Everything the player needs at a decision: each card of the hand and the controls' box.
OUT_OF_VIEW = """() => {
  const out = [];
  const els = [document.querySelector('#controls'), ...document.querySelectorAll('#hand button[data-card]')];
  for (const el of els) {
    if (!el) continue;
    const r = el.getBoundingClientRect();
    if (r.left < -1 || r.top < -1 || r.right > innerWidth + 1 || r.bottom > innerHeight + 1) {
      const [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom].map(Math.round);
      out.push(`${el.dataset.card || el.id} at ${left},${top}-${right},${bottom}`);
    }
  }
  return out;
}"""
SETTLE = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"

# Installed before any page script: records every finished trick the table holds, as shown.
HELD_RECORDER = """
window.__held = [];
new MutationObserver(() => {
  const felt = document.querySelector('.felt');
  const held = felt && felt.classList.contains('felt-held');
  const last = window.__held[window.__held.length - 1];
  if (!held) { if (last && !last.cleared) last.cleared = true; return; }
  const cards = [...felt.querySelectorAll('[data-trick-seat] .card')];
  const seats = [...felt.querySelectorAll('[data-trick-seat]')].map((el) => el.dataset.trickSeat).join(',');
  const box = felt.getBoundingClientRect();
  const inside = cards.every((c) => { const r = c.getBoundingClientRect();
    return r.width > 0 && r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom; });
  if (!last || last.cleared || last.seats !== seats) {
    window.__held.push({ seats, cards: cards.length, won: !!felt.querySelector('.play-won'), inside, cleared: false });
  }
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
"""

WHOLE_MATCHES = [
    ("oh_hell", {"max_cards": 5, "rebound": False}, "laptop"),
    ("bid_whist", {"target": 1}, "desktop"),
    ("tarbish", {"target": 1}, "phone"),
    ("ribs", {"target": 1}, "phone"),
]


def _start_against_bots(page, table, game, options, seats=None, timer=None):
    table.create_room(page, "Ana", game, options, seats=seats, timer=timer)
    for _ in range((seats or 4) - 1):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count((seats or 4) - 1)
    page.locator("[data-start]").click()
    expect(page.locator("#room-title")).to_contain_text(re.compile("Playing|Em jogo"))


def _check_every_size(page, base, where):
    for name, size in SIZES.items():
        page.set_viewport_size(size)
        page.evaluate(SETTLE)
        missing = page.evaluate(OUT_OF_VIEW)
        assert missing == [], f"{where} at {name} {size['width']}x{size['height']}: out of view: {missing}"
    page.set_viewport_size(base)
    page.evaluate(SETTLE)


@pytest.mark.parametrize(("game", "options", "size"), WHOLE_MATCHES, ids=[g for g, _, _ in WHOLE_MATCHES])
def test_hand_and_controls_stay_in_view_at_every_decision_of_a_whole_match(
    pages, table, artifacts, game, options, size
):
    base = SIZES[size]
    page = pages.open("/", viewport=base)
    page.add_init_script(HELD_RECORDER)
    _start_against_bots(page, table, game, options)
    decisions = 0
    stepped = False
    shots: set[str] = set()
    for decisions, step in table.decisions(page):
        _check_every_size(page, base, f"decision {decisions} ({step})")
        playing = page.locator("#hand button[data-card]:not([disabled])").count() > 0
        if playing and not shots:
            for name, s in SIZES.items():
                page.set_viewport_size(s)
                page.evaluate(SETTLE)
                page.screenshot(path=str(artifacts / f"table-{game}-{name}.png"))
                shots.add(name)
            page.set_viewport_size(base)
        higher = page.locator('#controls [data-key="bid-higher"]:not([disabled])')
        if not stepped and higher.count():
            # A long bid list is a stepper: "higher" shows the next bid, "lower" goes back.
            bid = page.locator("#controls [data-bid]")
            first = bid.get_attribute("data-bid")
            higher.click()
            expect(bid).not_to_have_attribute("data-bid", first)
            page.locator('#controls [data-key="bid-lower"]').click()
            expect(bid).to_have_attribute("data-bid", first)
            stepped = True
        if step == "submit":
            page.locator("#controls [data-submit]:not([disabled])").first.click(timeout=5000)
        else:
            page.locator(f'[data-key="{step}"]').click(timeout=5000)
    assert decisions > 3
    assert shots == set(SIZES), "no decision with a playable card was seen"
    # Every trick was held on the table whole, its winner marked, and then cleared (the last
    # one within about a second of the end; earlier ones may give way to the next finished trick).
    page.wait_for_function("() => !document.querySelector('.felt-held')", timeout=10000)
    held = page.evaluate("() => window.__held")
    assert held, "no finished trick was ever shown"
    whole = [h for h in held if h["cards"] >= 4]
    assert whole, f"no finished trick showed all its cards together: {held[:5]}"
    assert all(h["inside"] for h in whole), "a held trick's card was outside the table"
    assert any(h["cleared"] for h in whole), "no held trick was ever cleared"
    if game != "ribs":
        assert all(h["won"] for h in whole), "a held trick did not mark its winner"
    page.screenshot(path=str(artifacts / f"table-{game}-{size}-finished.png"), full_page=True)


SYMBOLS = {"S": "\u2660\ufe0e", "H": "\u2665\ufe0e", "D": "\u2666\ufe0e", "C": "\u2663\ufe0e"}


def _log_lines(log: list[dict], names: list[str]) -> list[str]:
    """The move log as the English client should word it (Oh Hell: bids and plays)."""
    lines = []
    for entry in log:
        who, action = names[entry["seat"]], entry["action"]
        if action["type"] == "bid":
            lines.append(f"{who} bid {action['value']}")
        else:
            card = action["card"]
            lines.append(f"{who} played {card[:-1]}{SYMBOLS[card[-1]]}")
        if entry.get("won") is not None:
            lines.append(f"{names[entry['won']]} won the trick")
    return lines


def test_the_move_log_names_every_action_of_the_hand_in_order(pages, table):
    page = pages.open("/", viewport=DESKTOP)
    _start_against_bots(page, table, "oh_hell", {"max_cards": 3, "rebound": False})
    region = page.locator("#move-log")
    assert region.get_attribute("aria-live") == "polite"
    shown: list[list[str]] = []  # the panel at each of Ana's decisions in the first hand
    while not table.finished(page):
        step = page.evaluate(PROBE)
        if step is None:
            time.sleep(0.04)
            continue
        if re.search(r"Hand\s*1 of", page.locator("#info").inner_text()):
            shown.append(region.locator("li:not(.hint)").all_inner_texts())
        page.locator(f'[data-key="{step}"]').click(timeout=5000)
    # The same hand, replayed by the engine from the match record: its log after each move.
    record_href = page.get_by_role("link", name="Match record & replay").get_attribute("href")
    record = httpx.get(pages.base + "/api" + record_href).json()
    game = get_game("oh_hell")
    state = game.new_game(players=4, options=record["options"], seed=int(record["seed"]), dealer=record["dealer"])
    names = ["Ana", "Bot 2", "Bot 3", "Bot 4"]
    logs = [_log_lines(game.view(state, None)["log"], names)]
    for entry in record["actions"]:
        state = game.apply(state, entry["seat"], entry["action"])
        view = game.view(state, None)
        if view["hand_number"] != 1:
            break
        logs.append(_log_lines(view["log"], names))
    assert len(shown) >= 4  # a bid and three cards
    for lines in shown:
        assert lines in logs, f"the panel {lines} is not the hand's log at any point"
    assert any(line.endswith(" won the trick") for line in shown[-1]), shown[-1]
    assert len(shown[-1]) >= 4 + 8 + 2  # every bid, two whole tricks and their takers, at the last card


def test_the_turn_timer_plays_for_an_idle_seat_and_the_player_comes_back(pages, table):
    page = pages.open("/", viewport=DESKTOP)
    _start_against_bots(page, table, "oh_hell", {"max_cards": 10, "rebound": False}, timer=30)
    mine = page.locator(".seat-you")
    expect(mine.locator(".seat-timer")).to_have_count(1, timeout=15000)  # the ring on your seat
    # Ana does nothing: a bot bids for her, then plays her next turn and the seat goes away.
    expect(mine.locator(".seat-notes")).to_contain_text("Bid", timeout=15000)
    expect(mine.locator(".badge-away")).to_be_visible(timeout=20000)
    page.get_by_role("button", name="I'm back").click()
    expect(mine.locator(".badge-away")).to_have_count(0)


def test_the_replay_shows_every_hand_and_opens_at_a_hand_from_the_sheet(pages, table, artifacts):
    page = pages.open("/", viewport=DESKTOP)
    _start_against_bots(page, table, "oh_hell", {"max_cards": 2, "rebound": False})
    table.drive([page], lambda: table.finished(page))
    record = page.get_by_role("link", name="Match record & replay").get_attribute("href")
    # The table's own sheet links each hand to its place in the replay.
    link = page.locator("#sheet a[data-replay-hand='2']")
    expect(link).to_have_attribute("href", f"{record}#hand-2")
    link.click()
    page.wait_for_url(re.compile(r"/matches/.+#hand-2$"))
    expect(page.locator("#step-label")).to_contain_text("hand 2")
    rows = page.locator("#hands .hand-list li")
    expect(rows).to_have_count(4)
    for i in range(4):  # every hand face up: hand 2 deals one card each
        expect(rows.nth(i).locator(".card:not(.card-back)")).to_have_count(1)
    page.screenshot(path=str(artifacts / "replay-desktop.png"), full_page=True)
    # By trick: the next trick's step shows the whole trick with its winner.
    page.get_by_role("button", name="First position").click()
    page.get_by_role("button", name="Next trick").click()
    expect(page.locator(".felt .play-won")).to_have_count(1)
    expect(page.locator(".felt [data-trick-seat]")).to_have_count(4)
    page.get_by_role("button", name="Next hand").click()
    expect(page.locator("#step-label")).to_contain_text("hand 2")
    # A phone sees the same replay without sideways scrolling.
    page.set_viewport_size(PHONE)
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
    page.screenshot(path=str(artifacts / "replay-phone.png"), full_page=True)


ENGLISH_ON_SCREEN = """async () => {
  const games = Object.values(await import('/static/js/games/index.js'));
  const en = Object.assign({}, (await import('/static/js/locales/en.js')).default, ...games.map((g) => g.strings.en));
  const pt = Object.assign({}, (await import('/static/js/locales/pt.js')).default, ...games.map((g) => g.strings.pt));
  const ptValues = new Set(Object.values(pt).filter((v) => typeof v === 'string'));
  const fragments = new Set();
  for (const value of Object.values(en)) {
    if (typeof value !== 'string') continue;
    for (const part of value.split(/\\{\\w+\\}/)) {
      const text = part.trim();
      const english = text.length >= 4 && /[a-z]{3}/i.test(text);
      if (english && !ptValues.has(text) && ![...ptValues].some((p) => p.includes(text))) fragments.add(text);
    }
  }
  const screen = document.body.innerText;
  const esc = (s) => s.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&');
  return [...fragments].filter((f) => new RegExp(`(^|[^\\\\p{L}])${esc(f)}($|[^\\\\p{L}])`, 'u').test(screen));
}"""


def test_the_portuguese_client_plays_a_whole_match_with_no_english_on_screen(pages, table, artifacts):
    page = pages.open(None, viewport=PHONE, locale="pt-BR")
    page.goto(pages.base + "/")
    expect(page.get_by_label("Seu nome", exact=True)).to_be_visible()
    assert page.evaluate(ENGLISH_ON_SCREEN) == []
    page.get_by_label("Seu nome", exact=True).fill("Ana")
    page.get_by_label("Jogo", exact=True).select_option("tarbish")
    page.locator("#options-box > summary").click()
    page.locator("#opt-target").fill("1")
    assert page.evaluate(ENGLISH_ON_SCREEN) == []
    page.get_by_role("button", name="Criar mesa").click()
    page.wait_for_url("**/r/*")
    for _ in range(3):
        page.get_by_role("button", name="Pôr robô").first.click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    assert page.evaluate(ENGLISH_ON_SCREEN) == []
    page.get_by_role("button", name="Começar").click()
    seen = {"checks": 0}

    def check(actions: int) -> None:
        if actions % 3 == 0:
            found = page.evaluate(ENGLISH_ON_SCREEN)
            assert found == [], f"English on a Portuguese screen: {found}"
            seen["checks"] += 1

    table.drive([page], lambda: table.finished(page), timeout=240, each=check)
    expect(page.locator("#result")).to_contain_text(re.compile("Vencedor|Você venceu"))
    assert page.evaluate(ENGLISH_ON_SCREEN) == []
    assert seen["checks"] > 2
    page.screenshot(path=str(artifacts / "portuguese-finished-phone.png"), full_page=True)
    page.get_by_role("link", name="Súmula e replay").click()
    expect(page.locator("#hands .hand-list li")).to_have_count(4)
    assert page.evaluate(ENGLISH_ON_SCREEN) == []
    # The switch in the header turns the page back into English.
    page.locator("#lang").select_option("en")
    expect(page.locator("#replay-h")).to_have_text("Replay")
    expect(page.locator("#sheet-h")).to_have_text("Score sheet")


def test_the_lobby_speaks_plainly_and_a_late_watcher_is_told_the_game_is_on(pages, table):
    page = pages.open("/", viewport=DESKTOP)
    name = page.get_by_label("Your name", exact=True)
    assert name.get_attribute("maxlength") == "24"  # the server's limit
    page.get_by_role("button", name="Create room").click()
    # The problem is said beside the name field, and the field says it is the one in error.
    expect(page.locator("#name-error")).to_have_text("Please enter your name first.")
    assert page.evaluate("() => document.activeElement.id") == "name"
    assert name.get_attribute("aria-invalid") == "true"
    page.get_by_label("Game", exact=True).select_option("oh_hell")
    page.locator("#options-box > summary").click()
    for label in ("Most cards in a hand", "Fewest cards in a hand", "Hook rule", "Scoring"):
        expect(page.get_by_label(label, exact=True)).to_be_visible()
    assert "min(10" not in page.locator("#options").inner_text()
    assert "Max Cards" not in page.locator("#options").inner_text()
    name.fill("Ana")
    expect(page.locator("#name-error")).to_have_text("Please enter your name first.")  # until the next try
    _start_against_bots(page, table, "bid_whist", {"target": 1})
    # Someone opens the invite link after the start: told the game is on, no empty seat to
    # take, and a name to pick (to chat, or to ask for a bot's seat).
    late = pages.open(None, viewport=PHONE)
    late.goto(page.url)
    expect(late.locator("#controls")).to_contain_text("already in play")
    expect(late.locator("#join")).to_be_visible()
    expect(late.locator("[data-sit]")).to_have_count(0)
