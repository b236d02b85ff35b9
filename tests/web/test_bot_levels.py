"""The host chooses Easy or Strong for each bot in a real browser, and a Strong table plays out."""

from __future__ import annotations

import re

from playwright.sync_api import expect


def test_the_host_picks_strong_or_easy_bots_and_the_table_plays_to_the_end(pages, table):
    page = pages.open("/")
    table.create_room(page, "Ana", "oh_hell", {"max_cards": 1, "rebound": False})
    level = page.get_by_label("Bot level")
    level.select_option("strong")
    page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(1)
    expect(page.get_by_label("Bot level")).to_have_value("strong")  # kept across re-renders
    page.locator("[data-bot-next]").click()
    page.get_by_label("Bot level").select_option("easy")
    page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    expect(page.locator(".badge-bot", has_text="Strong bot")).to_have_count(2)
    expect(page.locator(".seat").filter(has_text="Strong bot 2")).to_have_count(1)
    page.locator("[data-start]").click()
    expect(page.locator("#room-title")).to_contain_text("Playing")
    table.drive([page], lambda: table.finished(page))
    expect(page.locator("#result")).to_contain_text(re.compile("Winner|You won"))
