"""Small things a friend notices, in Chromium on a phone and a laptop: the turn timer's help
says what a slow table is (not the same words as for a 30-second clock), and adding a passkey
on a page opened at an IP address says it needs the host name."""

from __future__ import annotations

import re

from conftest import LAPTOP, PHONE
from playwright.sync_api import expect


def test_the_turn_timers_help_explains_a_slow_table(pages, artifacts):
    for size, viewport, locale in (("phone", PHONE, "en-US"), ("laptop", LAPTOP, "pt-BR")):
        page = pages.open("/", viewport=viewport, locale=locale)
        timer, helped = page.locator("#turn-timer"), page.locator("#turn-timer-help")
        said = {}
        for value in ("0", "30", "120", "3600", "259200"):
            timer.select_option(value)
            said[value] = helped.inner_text()
        assert said["30"] == said["120"] and said["3600"] == said["259200"]
        assert len({said["0"], said["30"], said["3600"]}) == 3, said
        if locale == "en-US":
            assert "a bot plays that turn" in said["30"]
            assert "hours or days" in said["3600"] and "nobody needs to stay online" in said["3600"]
        else:
            assert "horas ou dias" in said["3600"]
        expect(timer).to_have_attribute("aria-describedby", "turn-timer-help")
        timer.select_option("259200")
        page.screenshot(path=str(artifacts / f"timer-help-slow-{size}.png"))


def test_a_passkey_on_a_page_at_an_ip_address_says_it_needs_the_host_name(pages, table):
    assert re.match(r"http://127\.0\.0\.1:\d+$", pages.base)
    for viewport in (PHONE, LAPTOP):
        page = pages.open("/", viewport=viewport)
        table.create_room(page, "Ana", "oh_hell", {})
        page.goto(pages.base + "/devices")
        page.get_by_role("button", name="Add a passkey").click()
        expect(page.locator(".toast")).to_contain_text("Passkeys need the site's name in the address, not an IP")
        page.goto(pages.base + "/devices")
        page.evaluate("localStorage.removeItem('felt.player')")
        page.reload()
        page.get_by_role("button", name="Sign in with a passkey").click()
        expect(page.locator("#enter-error")).to_contain_text("open Felt by its host name")
    # Chromium logs each refused call (two per size); nothing else may be logged.
    logged = re.compile(r"http://127\.0\.0\.1:\d+/devices: .*status of 400 \(Bad Request\)$")
    refused = [e for e in pages.errors if logged.match(e)]
    assert len(refused) == 4, pages.errors
    pages.errors[:] = [e for e in pages.errors if e not in refused]
