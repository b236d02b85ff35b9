"""House options at the table, in a real browser: Oh Hell's blind hand and its no-trump hands
are shown as the rules file says (docs/rules/oh_hell.md), and a whole match plays to the end."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from conftest import DESKTOP  # noqa: E402  (the browser folder's own conftest)


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
