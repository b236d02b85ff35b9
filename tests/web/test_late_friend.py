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
  const r = await fetch(`/api/tables/${code}/leave`, {
    method: 'POST', headers: { Authorization: `Bearer ${me.token}` },
  });
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


STEP_TO = "(el, n) => { el.value = String(n); el.dispatchEvent(new Event('input', { bubbles: true })); }"
RECORD = "async (id) => (await fetch(`/api/matches/${id}`)).json()"


def test_after_a_late_friend_takes_a_bots_seat_the_log_sheet_and_replay_name_the_bot_for_its_plays(pages, table):
    host = pages.open("/")
    table.create_room(host, "Ana", "oh_hell", {"max_cards": 2, "rebound": False})
    code = host.url.rsplit("/", 1)[-1]
    for _ in range(3):
        host.locator("[data-bot-next]").click()
    host.locator("[data-start]").click()
    log = host.locator("#move-log")
    # Ana plays her turns until Bot 3 has made a decision in this hand.
    table.drive([host], lambda: "Bot 3 " in log.inner_text(), timeout=60)

    friend = pages.open(f"/r/{code}")
    friend.get_by_label("Your name", exact=True).fill("Bea")
    friend.get_by_role("button", name="Join", exact=True).click()
    friend.get_by_role("button", name="Ask for Bot 3's seat").click()
    host.get_by_role("button", name="Let them play").click()
    expect(friend.locator(".seat-you")).to_contain_text("Bea")
    # The bot's earlier decisions stay the bot's, on both pages.
    for page in (host, friend):
        expect(page.locator("#move-log")).to_contain_text("Bot 3 ")
    table.drive([host, friend], lambda: table.finished(host) and table.finished(friend))
    expect(friend.locator("#sheet")).to_contain_text("Bot 3 → Bea")

    friend.get_by_role("link", name=re.compile("record|replay", re.I)).first.click()
    friend.wait_for_url("**/matches/*")
    match_id = friend.url.rsplit("/", 1)[-1].split("#")[0]
    record = friend.evaluate(RECORD, match_id)
    late = record["players"][2]["occupants"][1]
    assert late["name"] == "Bea"
    seat_steps = [i + 1 for i, a in enumerate(record["actions"]) if a["seat"] == 2]  # step n shows action n - 1
    before = [n for n in seat_steps if n - 1 < late["from"]]
    after = [n for n in seat_steps if n - 1 >= late["from"]]
    assert before and after
    steps = friend.locator("#step-range")
    expect(steps).not_to_have_attribute("max", "0", timeout=60000)  # the replay is built in a worker process
    steps.evaluate(STEP_TO, before[0])
    expect(friend.locator("#step-action")).to_contain_text(re.compile(r"^Bot 3 "))
    steps.evaluate(STEP_TO, after[0])
    expect(friend.locator("#step-action")).to_contain_text(re.compile(r"^Bea "))
    expect(friend.locator("#sheet")).to_contain_text("Bot 3 → Bea")
