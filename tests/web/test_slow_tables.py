"""A slow table in the browser: the lobby offers clocks of hours and days a move, the table tells
the time left in hours and minutes (no seconds countdown), and "Your tables" lists the table
where it is your turn first with the time you have left. The browser server scales every clock
by 0.05: three days a move are 3 h 36 min there."""

from __future__ import annotations

import re

from conftest import DESKTOP
from playwright.sync_api import expect
from test_table_feel import _start_against_bots

THREE_DAYS = 259200


def test_a_slow_table_tells_the_time_left_in_hours_at_the_table_and_in_your_tables(pages, table, server):
    page = pages.open("/", viewport=DESKTOP)
    timer = page.get_by_label("Turn timer", exact=True)
    expect(timer.locator("option")).to_have_text(
        [
            "Off",
            "30 seconds",
            "1 minute",
            "2 minutes",
            "1 hour a move (slow table)",
            "12 hours a move (slow table)",
            "1 day a move (slow table)",
            "3 days a move (slow table)",
        ]
    )
    _start_against_bots(page, table, "oh_hell", {"max_cards": 10, "rebound": False}, timer=THREE_DAYS)
    code = page.url.rsplit("/", 1)[-1]
    expect(page.locator("#controls .turn-banner")).to_be_visible()
    expect(page.locator("#turn-clock")).to_have_text(re.compile(r"^3 h 3\d min left$"))
    page.goto(server + "/")
    row = page.locator(f'#mine [data-my-table="{code}"]')
    expect(page.locator("#mine [data-my-table]").first).to_have_attribute("data-my-table", code)
    expect(row.locator("[data-your-turn]")).to_have_text("your turn")
    expect(row.locator("[data-time-left]")).to_have_text(re.compile(r"^ · 3 h 3\d min left$"))
