"""The lobby's "Your tables" in a real browser: a table you sit at is listed, opens, closes; one
whose match you left stays listed to take the seat back."""

from __future__ import annotations

import pytest
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


def test_leave_in_your_tables_asks_first_in_an_accessible_dialog(pages, table):
    """ "Leave" cannot be undone: a modal dialog asks (not window.confirm); Stay and Esc keep the seat."""
    host = pages.open("/")
    code = table.create_room(host, "Lou", "bid_whist", {})
    guest = pages.open("/")
    guest.goto(f"{pages.base}/r/{code}")
    table.join_and_sit(guest, "Kit")
    guest.on("dialog", lambda d: pytest.fail(f"a browser dialog opened: {d.message}"))
    guest.goto(pages.base + "/")
    row = guest.locator(f'[data-my-table="{code}"]')
    leave = row.get_by_role("button", name="Leave")
    leave.click()
    dialog = guest.get_by_role("alertdialog", name="Leave your Bid Whist table?")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("someone else")
    expect(dialog.get_by_role("button", name="Stay")).to_be_focused()
    dialog.get_by_role("button", name="Stay").click()
    expect(dialog).to_have_count(0)
    expect(leave).to_be_focused()
    leave.click()
    guest.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(row).to_have_count(1)
    leave.click()
    dialog.get_by_role("button", name="Leave the table").click()
    expect(row).to_have_count(0)
    seats = host.locator(".seat-you")
    expect(seats).to_have_count(1)
    expect(host.locator(".seat", has_text="Kit")).to_have_count(0)


def test_the_leave_question_is_in_portuguese(pages, table):
    host = pages.open("/")
    code = table.create_room(host, "Lou", "bid_whist", {})
    guest = pages.open("/", locale="pt-BR")
    guest.goto(f"{pages.base}/r/{code}")
    guest.locator("#join-name").fill("Kit")
    guest.locator("#join-form button[type=submit]").click()
    guest.wait_for_selector(".seat-you")
    guest.goto(pages.base + "/")
    guest.locator(f'[data-my-table="{code}"] [data-table-leave]').click()
    dialog = guest.get_by_role("alertdialog", name="Sair da sua mesa de Bid Whist?")
    expect(dialog).to_contain_text("Seu lugar fica livre")
    expect(dialog.get_by_role("button", name="Ficar")).to_be_visible()
    expect(dialog.get_by_role("button", name="Sair da mesa")).to_be_visible()


def test_a_table_left_in_play_stays_in_your_tables_to_take_the_seat_back(pages, table):
    """Leaving a match in play is not for good: the table stays listed, marked, until its match
    ends, and "Take my seat back" opens it where the seat is taken back from the bot."""
    host = pages.open("/")
    code = table.create_room(host, "Ana", "oh_hell", {"max_cards": 2, "rebound": False})
    friend = pages.open(f"/r/{code}")
    table.join_and_sit(friend, "Bea")
    for _ in range(2):
        host.locator("[data-bot-next]").click()
    expect(host.locator(".badge-bot")).to_have_count(2)
    host.locator("[data-start]").click()
    expect(friend.locator("#room-title")).to_contain_text("Playing")
    friend.goto(pages.base + "/")
    row = friend.locator(f'[data-my-table="{code}"]')
    row.get_by_role("button", name="Leave").click()
    dialog = friend.get_by_role("alertdialog", name="Leave your Oh Hell table?")
    expect(dialog).to_contain_text("take it back")
    dialog.get_by_role("button", name="Leave the table").click()
    expect(row).to_contain_text("you left: a bot plays your seat")
    expect(row.get_by_role("button", name="Leave")).to_have_count(0)
    row.get_by_role("link", name="Take your seat back at your Oh Hell table").click()
    friend.wait_for_url(f"**/r/{code}")
    friend.get_by_role("button", name="Take my seat back").click()
    expect(friend.locator(".seat-you")).to_contain_text("Bea")
    friend.goto(pages.base + "/")
    expect(row).not_to_contain_text("you left")
    expect(row.get_by_role("button", name="Leave")).to_have_count(1)


def test_the_take_back_row_is_in_portuguese(pages, table):
    host = pages.open("/")
    code = table.create_room(host, "Lou", "oh_hell", {"max_cards": 2, "rebound": False})
    guest = pages.open("/", locale="pt-BR")
    guest.goto(f"{pages.base}/r/{code}")
    guest.locator("#join-name").fill("Kit")
    guest.locator("#join-form button[type=submit]").click()
    guest.wait_for_selector(".seat-you")
    for _ in range(2):
        host.locator("[data-bot-next]").click()
    expect(host.locator(".badge-bot")).to_have_count(2)
    host.locator("[data-start]").click()
    expect(host.locator("#room-title")).to_contain_text("Playing")
    guest.goto(pages.base + "/")
    row = guest.locator(f'[data-my-table="{code}"]')
    row.locator("[data-table-leave]").click()
    dialog = guest.get_by_role("alertdialog")
    expect(dialog).to_contain_text("Até o fim desta partida você pode voltar")
    dialog.get_by_role("button", name="Sair da mesa").click()
    expect(row).to_contain_text("você saiu: um robô joga no seu lugar")
    expect(row.get_by_role("link", name="Voltar ao seu lugar na sua mesa de Oh Hell")).to_be_visible()
