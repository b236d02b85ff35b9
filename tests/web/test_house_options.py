"""House options at the table, in a real browser: Oh Hell's blind hand and its no-trump hands
are shown as the rules file says (server/games/oh_hell/rules.md), and a whole match plays to the end."""

from __future__ import annotations

import re

from conftest import DESKTOP
from playwright.sync_api import expect


def test_a_blind_no_trump_oh_hell_match_shows_the_foreheads_and_plays_to_the_end(pages, table):
    page = pages.open("/", viewport=DESKTOP)
    options = {"start": "low", "rebound": False, "max_cards": 2, "trump": "no_trump", "blind_one": True}
    table.create_room(page, "Ana", "oh_hell", options)
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    page.locator("[data-start]").click()
    expect(page.locator("#room-title")).to_contain_text(re.compile("Playing|Em jogo"))

    info = page.locator("#info")
    expect(info).to_contain_text("no trump")
    # The first hand is the blind one: the three bots' cards on their foreheads, never Ana's own.
    expect(info).to_contain_text("On the foreheads")
    expect(info.locator(".blind-card .card")).to_have_count(3, timeout=20_000)
    expect(page.locator("#controls .turn-banner")).to_be_visible(timeout=20_000)
    expect(page.locator("#hand button[data-card]")).to_have_count(0)

    table.drive([page], lambda: table.finished(page), timeout=120)
    expect(page.locator("#result .result-panel")).to_be_visible()


def test_a_bid_whist_match_with_jokers_thirteen_books_and_directions_plays_to_the_end(pages, table):
    """Bid Whist at 2 jokers, thirteen books, uptown/downtown and no trump (docs/rules/
    bid_whist.md): the bids offer their direction, the contract's direction is marked with an
    arrow on the table, jokers are cards named in words, and the sheet shows the direction."""
    page = pages.open("/", viewport=DESKTOP)
    options = {"jokers": 2, "books": "thirteen", "directions": True, "no_trump": True, "game_to": 15}
    table.create_room(page, "Ana", "bid_whist", options)
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    page.locator("[data-start]").click()
    expect(page.locator("#room-title")).to_contain_text(re.compile("Playing|Em jogo"))

    # The jokers as the table draws them: a card whose visible words are its name.
    faces = page.evaluate("""async () => {
      const { cardView, cardButton, cardText } = await import('/static/js/cards.js');
      return ['BJ', 'LJ'].map((c) => {
        const v = cardView(c), b = cardButton(c, 0);
        return [v.getAttribute('aria-label'), v.textContent, b.getAttribute('aria-label'),
                b.textContent, v.className, cardText(c)];
      });
    }""")
    for (label, text, button_label, button_text, classes, short), name in zip(
        faces, ["Big joker", "Little joker"], strict=True
    ):
        assert label == button_label == short == name
        assert text.startswith(name) and button_text.startswith(name) and "card-joker" in classes

    # What the table showed along the way, noted on every change of the page.
    page.evaluate("""() => {
      const seen = window.__bw = { bids: [], takes: [], direction: [], jokers: [] };
      const note = () => {
        for (const b of document.querySelectorAll('#controls [data-bid]')) {
          seen.bids.push([b.dataset.bid, b.dataset.direction || null, b.textContent]);
        }
        for (const b of document.querySelectorAll('#controls [data-act="take"]')) {
          seen.takes.push([b.dataset.direction || null, b.textContent]);
        }
        for (const m of document.querySelectorAll('#info .bw-direction')) {
          seen.direction.push([m.dataset.direction, m.textContent, !!m.querySelector('.bw-arrow')]);
        }
        for (const c of document.querySelectorAll("[data-card='BJ'], [data-card='LJ'], .card-joker")) {
          seen.jokers.push([c.getAttribute('aria-label'), c.textContent]);
        }
      };
      new MutationObserver(note).observe(document.body, { childList: true, subtree: true });
    }""")
    table.drive([page], lambda: table.finished(page), timeout=240)
    expect(page.locator("#result .result-panel")).to_be_visible()
    seen = page.evaluate("() => window.__bw")
    # Ana bids in every hand she does not deal (a match of one hand she deals: she takes or passes)
    assert seen["bids"] or seen["takes"], "Ana was asked to bid"
    if seen["bids"]:
        assert {d for _, d, _ in seen["bids"]} <= {"uptown", "downtown", "no_trump"}
        assert len({d for _, d, _ in seen["bids"]}) >= 2, "each bid control names its direction"
    for direction, text in seen["takes"]:  # a forced take names its direction
        assert direction is None or re.search("uptown|downtown|no trump", text)
    assert all(re.search("uptown|downtown|no trump", text) for _, _, text in seen["bids"])
    assert seen["direction"], "the contract's direction was marked on the table"
    for direction, text, arrow in seen["direction"]:
        assert arrow == (direction != "no_trump") or "no trump" in text
    for label, text in seen["jokers"]:
        assert label in ("Big joker", "Little joker") and text.startswith(label)
    about = page.locator("#sheet .sheet-about")
    expect(about.nth(1)).to_contain_text(re.compile("uptown|downtown|no trump"))
