"""Taking a move back in the browser: the last mover's "Take back", the next player's one-tap
"Allow", and the move undone on every page."""

from __future__ import annotations

import time

from playwright.sync_api import expect


def test_a_player_takes_a_move_back_and_the_next_player_allows_it(pages, table):
    ana = pages.open("/")
    code = table.create_room(ana, "Ana", "oh_hell", {"max_cards": 3, "rebound": False}, seats=3)
    others = [pages.open(f"/r/{code}"), pages.open(f"/r/{code}")]
    for page, name in zip(others, ("Bea", "Cid"), strict=True):
        table.join_and_sit(page, name)
    ana.locator("[data-start]").click()
    expect(ana.locator("#room-title")).to_contain_text("Playing")
    take_back = ana.get_by_role("button", name="Take back", exact=True)
    deadline = time.monotonic() + 90
    while True:  # until a move of Ana's may be taken back (the bid that ends the bidding may not)
        assert time.monotonic() < deadline, "Ana never made a move she could take back"
        if table.act_once(ana):
            try:
                expect(take_back).to_be_visible(timeout=2000)
                if not table.my_turn(ana):  # when Ana acts next (she took the trick) nobody is asked
                    break
            except AssertionError:
                pass
        for page in others:
            table.act_once(page)
        time.sleep(0.04)
    take_back.focus()
    ana.keyboard.press("Enter")  # reachable from the keyboard
    expect(ana.locator("#courtesies")).to_contain_text("Waiting for")
    asked = None
    while asked is None:  # the next player to act is asked
        assert time.monotonic() < deadline + 15, "nobody was asked to allow the take-back"
        asked = next((p for p in others if p.locator("#courtesies .undo-ask").count()), None)
        time.sleep(0.04)
    expect(asked.locator("#courtesies")).to_contain_text("Ana asks to take back their last move.")
    expect(asked.locator("#announce")).to_contain_text("Ana asks to take back")
    asked.get_by_role("button", name="Allow", exact=True).click()
    expect(ana.locator("#controls .turn-banner")).to_be_visible()  # Ana's move again
    expect(take_back).to_be_hidden()
    expect(asked.locator("#courtesies .undo-ask")).to_have_count(0)
