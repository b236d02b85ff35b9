"""Small things a friend notices, in Chromium on a phone and a laptop: the turn timer's help
says what a slow table is (not the same words as for a 30-second clock), and adding a passkey
on a page opened at an IP address says it needs the host name."""

from __future__ import annotations

import json
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


def test_devices_can_be_named_and_say_where_they_were_last_used(pages, table, artifacts):
    for size, viewport in (("phone", PHONE), ("laptop", LAPTOP)):
        page = pages.open("/", viewport=viewport)
        table.create_room(page, "Ana", "oh_hell", {})
        me = json.loads(page.evaluate("localStorage.getItem('felt.player')"))
        http = page.context.request
        code = http.post(
            f"{pages.base}/api/players/me/links", headers={"Authorization": f"Bearer {me['token']}"}
        ).json()["code"]
        tablet = (
            "Mozilla/5.0 (Linux; Android 14; SM-X200) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"
        )
        assert http.post(f"{pages.base}/api/players/link", data={"code": code}, headers={"User-Agent": tablet}).ok
        page.goto(pages.base + "/devices")
        other = page.locator("[data-device]", has_not_text="this device")
        expect(other).to_have_count(1)
        label = other.locator("strong").inner_text()
        assert "Android" in label, label  # where it was used: its browser and system
        expect(other).to_contain_text("last used")
        other.get_by_text("Name it").click()
        other.get_by_label(f"A name for {label}").fill("Kitchen tablet")
        other.get_by_role("button", name="Save").click()
        named = page.locator("[data-device]", has_text="Kitchen tablet")
        expect(named.locator("strong")).to_have_text("Kitchen tablet")
        expect(named).to_contain_text(f"{label}, last used")
        page.screenshot(path=str(artifacts / f"devices-named-{size}.png"), full_page=True)
        page.reload()  # stored: the name stays
        expect(page.locator("[data-device] strong", has_text="Kitchen tablet")).to_have_count(1)
