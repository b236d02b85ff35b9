"""The lobby's "Your tables" in a real browser: a table you sit at is listed, opens, closes."""

from __future__ import annotations

from playwright.sync_api import expect


def test_your_tables_lists_a_waiting_table_which_its_host_can_open_and_close(pages, table):
    page = pages.open("/")
    code = table.create_room(page, "Lou", "bid_whist", {})
    page.goto(pages.base + "/")
    row = page.locator(f'[data-my-table="{code}"]')
    expect(page.get_by_role("heading", name="Your tables")).to_be_visible()
    expect(row).to_contain_text("waiting for players")
    row.get_by_role("link", name="Open").click()
    page.wait_for_url(f"**/r/{code}")
    page.wait_for_selector(".seat-you")
    page.goto(pages.base + "/")
    page.locator(f'[data-my-table="{code}"]').get_by_role("button", name="Close").click()
    expect(page.locator(f'[data-my-table="{code}"]')).to_have_count(0)
    expect(page.get_by_role("heading", name="Your tables")).to_be_hidden()


def test_a_code_typed_in_lower_case_with_spaces_opens_its_table(pages, table):
    """The server takes a code only as it is written (upper case, nothing around it); the
    client writes what a person typed that way, in the lobby and in a hand-edited link."""
    host = pages.open("/")
    code = table.create_room(host, "Lou", "bid_whist", {})
    guest = pages.open("/")
    guest.locator("#join-code").fill(f"  {code.lower()} ")
    guest.locator("#join-code").press("Enter")
    guest.wait_for_url(f"**/r/{code}")
    table.join_and_sit(guest, "Kit")
    guest.goto(f"{pages.base}/r/{code.lower()}")
    guest.wait_for_selector(".seat-you")
