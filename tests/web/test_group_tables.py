"""A group's "New table" in Chromium, at phone and desktop widths: it offers what the lobby's
form does (players, the turn timer and its slow clocks, the game's options showing the house
rules, open bot seats); a slow table and a timed table are made from it, and the timed one's
"Play again" keeps its clock and its group."""

from __future__ import annotations

import json

import httpx
import pytest
from playwright.sync_api import expect

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}


def member_page(pages, viewport: dict):
    """Ana's browser on the page of a group she owns, its house rules a short Oh Hell."""
    with httpx.Client(base_url=pages.base) as http:
        ana = http.post("/api/players", json={"name": "Ana"}).json()
        auth = {"Authorization": f"Bearer {ana['token']}"}
        group = http.post("/api/groups", json={"name": "Friday"}, headers=auth).json()
        rules = {"options": {"max_cards": 2, "rebound": False}}
        assert http.put(f"/api/groups/{group['code']}/rules/oh_hell", json=rules, headers=auth).is_success
    page = pages.open(None, viewport=viewport)
    me = json.dumps({"id": ana["id"], "name": "Ana", "token": ana["token"]})
    page.add_init_script(f"localStorage.setItem('felt.player', {json.dumps(me)})")
    page.goto(f"{pages.base}/g/{group['code']}")
    expect(page.locator("#new-table")).to_be_visible()
    return page, group["code"], auth


def room_of(pages, code: str) -> dict:
    with httpx.Client(base_url=pages.base) as http:
        return http.get(f"/api/rooms/{code}").json()


def group_tables(pages, group: str, auth: dict) -> list[str]:
    with httpx.Client(base_url=pages.base) as http:
        return [t["code"] for t in http.get(f"/api/groups/{group}", headers=auth).json()["tables"]]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_slow_table_and_a_timed_table_from_the_group_page_keep_their_clock_at_play_again(pages, table, viewport):
    page, group, auth = member_page(pages, viewport)
    form = page.locator("#new-table")
    form.get_by_label("Game", exact=True).select_option("oh_hell")
    form.locator("#new-options-box > summary").click()
    # The house rules are already in the form; the lobby's settings are all there.
    expect(page.locator("#new-max_cards")).to_have_value("2")
    expect(page.locator("#new-rebound")).not_to_be_checked()
    expect(form.get_by_label("Players", exact=True)).to_have_value("4")
    expect(form.get_by_label("Anyone may take a bot's seat")).not_to_be_checked()
    form.get_by_label("Turn timer", exact=True).select_option("86400")  # a day a move: a slow table
    form.get_by_label("Players", exact=True).fill("3")
    form.get_by_role("button", name="New table").click()
    page.wait_for_url("**/r/*")
    slow = page.url.rsplit("/", 1)[-1]
    summary = room_of(pages, slow)
    assert summary["turn_timer"] == 86400 and summary["seats"] == 3
    assert summary["options"]["max_cards"] == 2 and summary["private"] is True
    assert slow in group_tables(pages, group, auth)

    page.goto(f"{pages.base}/g/{group}")
    form = page.locator("#new-table")
    form.get_by_label("Game", exact=True).select_option("oh_hell")
    form.get_by_label("Turn timer", exact=True).select_option("30")
    form.locator("#new-options-box > summary").click()
    form.get_by_label("Anyone may take a bot's seat").check()
    form.get_by_role("button", name="New table").click()
    page.wait_for_url("**/r/*")
    timed = page.url.rsplit("/", 1)[-1]
    assert timed != slow
    summary = room_of(pages, timed)
    assert summary["turn_timer"] == 30 and summary["seats"] == 4
    expect(page.locator(".seat-you")).to_be_visible()
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    page.locator("[data-start]").click()
    table.drive([page], lambda: table.finished(page))
    page.get_by_role("button", name="Play again").click()
    page.wait_for_url(lambda url: "/r/" in url and not url.endswith(timed))
    again = page.url.rsplit("/", 1)[-1]
    summary = room_of(pages, again)
    assert summary["turn_timer"] == 30 and summary["options"]["max_cards"] == 2
    assert again in group_tables(pages, group, auth)  # still the group's table
