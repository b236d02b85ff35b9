"""Rotate partners in Chromium, four friends in four browsers, at phone and desktop widths: they
finish a group's Bid Whist, the host presses "Rotate partners", and every page goes to the new
table by itself, seated as the rotation says and told who it partners."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from playwright.sync_api import expect

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}
NAMES = ["Ana", "Rui", "Eva", "Bia"]


def friends(base: str) -> tuple[list[dict], str]:
    """Four players, all members of one group (made through the API)."""
    with httpx.Client(base_url=base) as http:
        four = [http.post("/api/players", json={"name": n}).json() for n in NAMES]
        auth = lambda p: {"Authorization": f"Bearer {p['token']}"}  # noqa: E731
        group = http.post("/api/groups", json={"name": "Friday"}, headers=auth(four[0])).json()
        invite = group["invite_url"].split("#invite=", 1)[1]
        for p in four[1:]:
            assert http.post(f"/api/groups/{group['code']}/join", json={"invite": invite}, headers=auth(p)).is_success
    return four, group["code"]


def as_player(pages, player: dict, viewport: dict):
    """A browser of ``player``'s own (their identity in its storage), not yet on any page."""
    page = pages.open(None, viewport=viewport)
    me = json.dumps({"id": player["id"], "name": player["name"], "token": player["token"]})
    page.add_init_script(f"localStorage.setItem('felt.player', {json.dumps(me)})")
    return page


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_rotate_partners_takes_all_four_pages_to_the_new_table_with_their_partners_told(pages, table, viewport):
    four, group = friends(pages.base)
    ana, rui, eva, bia = browsers = [as_player(pages, p, viewport) for p in four]
    ana.goto(f"{pages.base}/g/{group}")
    ana.locator("#new-game").select_option("bid_whist")
    ana.locator("#new-options-box > summary").click()
    ana.locator("#new-target").fill("1")  # one hand decides it
    ana.get_by_role("button", name="New table").click()
    ana.wait_for_url("**/r/*")
    first = ana.url.rsplit("/", 1)[-1]
    for seat, page in enumerate(browsers[1:], start=1):
        page.goto(f"{pages.base}/r/{first}")
        page.locator(f'[data-sit="{seat}"]').click()
        expect(page.locator(".seat-you")).to_contain_text(NAMES[seat])
    ana.locator("[data-start]").click()
    table.drive(browsers, lambda: all(table.finished(p) for p in browsers), timeout=180)

    ana.get_by_role("button", name="Rotate partners").click()
    for page in browsers:  # nobody presses anything: each page moves by itself
        page.wait_for_url(re.compile(r"/r/(?!" + first + r")[A-Z0-9]+$"), timeout=20000)
    new = ana.url.rsplit("/", 1)[-1]
    assert all(p.url.endswith(f"/r/{new}") for p in browsers)
    # Ana partnered Eva, Rui partnered Bia: now Ana is with Rui and Eva with Bia.
    partner = {"Ana": "Rui", "Rui": "Ana", "Eva": "Bia", "Bia": "Eva"}
    for page, name in zip(browsers, NAMES, strict=True):
        expect(page.locator(".seat-you")).to_contain_text(name)
        expect(page.locator("[data-partners]")).to_have_text(f"New partners: you are with {partner[name]}")
    expect(ana.locator("[data-start]")).to_be_enabled()  # all four seated: nothing for bots to fill
    expect(ana.locator("[data-bot]")).to_have_count(0)
    seats = [ana.locator(f'[data-seat-box="{i}"]') for i in range(4)]
    for seat, name in zip(seats, ["Ana", "Eva", "Rui", "Bia"], strict=True):
        expect(seat).to_contain_text(name)
    del rui, eva, bia
