"""A newcomer in the lobby: "Create room" is in view on a laptop without scrolling, and a
name typed in the lobby goes with them: one click on a table's "Join" seats them there."""

from __future__ import annotations

import pytest
from conftest import LAPTOP
from playwright.sync_api import expect


@pytest.mark.parametrize("locale", ["en-US", "pt-BR"])
def test_create_room_is_above_the_fold_on_a_laptop(pages, locale):
    page = pages.open("/", viewport=LAPTOP, locale=locale)
    page.wait_for_selector("#game option", state="attached")
    expect(page.locator("#game-summary")).not_to_be_empty()
    box = page.locator("#create").bounding_box()
    assert page.evaluate("window.scrollY") == 0
    assert box["y"] >= 0 and box["y"] + box["height"] <= LAPTOP["height"], box


def test_one_click_on_an_open_tables_join_seats_the_name_typed_in_the_lobby(pages, table):
    host = pages.open("/")
    code = table.create_room(host, "Lou", "bid_whist", {})
    guest = pages.open("/", viewport=LAPTOP)
    guest.get_by_label("Your name", exact=True).fill("Kit")
    guest.locator(f'#rooms a[href="/r/{code}"]').click()
    guest.wait_for_url(f"**/r/{code}")
    expect(guest.locator(".seat-you")).to_contain_text("Kit")
    expect(host.locator(".seat", has_text="Kit")).to_have_count(1)
    expect(guest.locator("#join")).to_be_hidden()


def test_a_code_joined_from_the_lobby_seats_the_name_typed_there_too(pages, table):
    host = pages.open("/")
    code = table.create_room(host, "Lou", "ribs", {"target": 1})
    guest = pages.open("/")
    guest.get_by_label("Your name", exact=True).fill("Kit")
    guest.locator("#join-code").fill(code)
    guest.locator("#join-code").press("Enter")
    guest.wait_for_url(f"**/r/{code}")
    expect(guest.locator(".seat-you")).to_contain_text("Kit")


def test_a_name_typed_in_the_lobby_fills_the_tables_join_form(pages, table):
    host = pages.open("/")
    code = table.create_room(host, "Lou", "ribs", {"target": 1})
    guest = pages.open("/")
    guest.get_by_label("Your name", exact=True).fill("Kit")
    guest.goto(f"{pages.base}/r/{code}")  # the invite link, pasted into the same tab
    expect(guest.locator("#join-name")).to_have_value("Kit")
    guest.get_by_role("button", name="Join", exact=True).click()
    expect(guest.locator(".seat-you")).to_contain_text("Kit")  # joining sits down: no third click
