"""A friend who arrives late, in a second browser, takes a bot's seat and plays the match out."""

from __future__ import annotations

import re

from playwright.sync_api import expect


def test_a_late_friend_asks_for_a_bots_seat_the_host_allows_it_and_they_play(pages, table):
    host = pages.open("/")
    code = table.create_room(host, "Ana", "oh_hell", {"max_cards": 2, "rebound": False})
    for _ in range(3):
        host.locator("[data-bot-next]").click()
    expect(host.locator(".badge-bot")).to_have_count(3)
    host.locator("[data-start]").click()
    expect(host.locator("#room-title")).to_contain_text("Playing")

    friend = pages.open(f"/r/{code}")
    expect(friend.locator("#join")).to_be_visible()  # a spectator without a name may pick one
    friend.get_by_label("Your name", exact=True).fill("Bea")
    friend.get_by_role("button", name="Join", exact=True).click()
    friend.get_by_role("button", name="Ask for Bot 3's seat").click()
    expect(friend.locator("#seat-offers")).to_contain_text("waiting for the host")

    expect(host.locator("#seat-offers")).to_contain_text("Bea asks for seat 3")
    host.get_by_role("button", name="Let them play").click()
    expect(friend.locator(".seat-you")).to_contain_text("Bea")
    expect(friend.locator("#seat-offers")).to_be_hidden()
    table.drive([host, friend], lambda: table.finished(host) and table.finished(friend))
    expect(friend.locator("#result")).to_contain_text(re.compile("Winner|You won"))


LEAVE = """async (code) => {
  const me = JSON.parse(localStorage.getItem('felt.player'));
  const r = await fetch(`/api/tables/${code}/leave`, { method: 'POST', headers: { Authorization: `Bearer ${me.token}` } });
  return r.status;
}"""


def test_a_player_who_left_takes_their_seat_back_from_the_bot_and_plays_on(pages, table):
    host = pages.open("/")
    code = table.create_room(host, "Ana", "oh_hell", {"max_cards": 2, "rebound": False})
    friend = pages.open(f"/r/{code}")
    table.join_and_sit(friend, "Bea")
    for _ in range(2):
        host.locator("[data-bot-next]").click()
    expect(host.locator(".badge-bot")).to_have_count(2)
    host.locator("[data-start]").click()
    expect(friend.locator("#room-title")).to_contain_text("Playing")
    assert friend.evaluate(LEAVE, code) == 204  # "Leave" in Your tables, confirmed
    expect(friend.locator("#seat-offers")).to_contain_text("You left seat 2")
    friend.reload()  # opening the table again later
    friend.get_by_role("button", name="Take my seat back").click()
    expect(friend.locator(".seat-you")).to_contain_text("Bea")
    expect(friend.locator("#seat-offers")).to_be_hidden()
    table.drive([host, friend], lambda: table.finished(host) and table.finished(friend))
    expect(friend.locator("#result")).to_contain_text(re.compile("Winner|You won"))
