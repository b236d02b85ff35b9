"""A group's page in words a friend understands, in Chromium on a phone and a desktop: the
invite link says whose group it is before the newcomer gives a name, a member sits at a group
table in one click while a table they already sit at offers to take them back to their seat,
the standings say what their figures mean (a pair with no contract reads "no bids yet"), and
a change of the house rules says who made it and what it was."""

from __future__ import annotations

import re

from conftest import LAPTOP, PHONE
from playwright.sync_api import expect
from test_groups import _bid_whist_record, group_of_two, save_rules, store_group_matches


def test_an_invite_says_who_invites_and_sitting_takes_one_click(pages, artifacts):
    for size, viewport in (("phone", PHONE), ("desktop", LAPTOP)):
        ana = pages.open("/groups", viewport=viewport)
        ana.get_by_label("Your name", exact=True).fill("Ana")
        ana.get_by_role("button", name="Continue").click()
        ana.get_by_label("Group name").fill("Tuesday Club")
        ana.get_by_role("button", name="Create group").click()
        ana.wait_for_url(re.compile(r"/g/[a-z0-9]+$"))
        invite = ana.locator("#invite-link").input_value()

        rui = pages.open(None, viewport=viewport)
        rui.goto(invite)
        expect(rui.locator("#who-invites")).to_have_text("Ana invites you to Tuesday Club")
        expect(rui.get_by_label("Your name", exact=True)).to_be_visible()
        rui.screenshot(path=str(artifacts / f"group-invite-{size}.png"))
        rui.get_by_label("Your name", exact=True).fill("Rui")
        rui.get_by_role("button", name="Continue").click()
        expect(rui.locator("#members")).to_contain_text("Rui")
        expect(rui.locator("#who-invites")).to_be_hidden()

        ana.get_by_role("button", name="New table").click()
        ana.wait_for_url("**/r/*")
        ana.wait_for_selector(".seat-you")
        room = ana.url.rsplit("/", 1)[-1]
        ana.go_back()
        back = ana.locator(f'[data-back-table="{room}"]')
        expect(back).to_have_text("Back to your seat", timeout=20000)
        expect(ana.locator(f'[data-sit-table="{room}"]')).to_have_count(0)

        sit = rui.locator(f'[data-sit-table="{room}"]')
        expect(sit).to_have_text("Sit", timeout=20000)
        sit.click()  # one click: the table seats Rui on arrival
        rui.wait_for_url(f"**/r/{room}")
        expect(rui.locator(".seat-you")).to_contain_text("Rui")
        rui.go_back()
        expect(rui.locator(f'[data-back-table="{room}"]')).to_have_text("Back to your seat", timeout=20000)
        back.click()
        ana.wait_for_url(f"**/r/{room}")
        expect(ana.locator(".seat-you")).to_contain_text("Ana")
        expect(ana.locator(".seat-you")).to_have_count(1)


def test_the_standings_say_what_their_figures_mean(pages, tmp_path_factory, artifacts):
    ana, _, code, ana_id, rui_id = group_of_two(pages, "Whist night", PHONE)
    # One Bid Whist match of Ana and Rui as partners where the bots won every auction.
    hands = [{"dealer": 0, "declarer": 1, "scores": [0, 2, 0, 2]}]
    record = _bid_whist_record("NOBIDS", ana_id, rui_id, 0, hands)
    store_group_matches(tmp_path_factory, code, "NOBIDS", "bid_whist", [record])
    for viewport in (PHONE, LAPTOP):
        ana.set_viewport_size(viewport)
        ana.reload()
        ana.locator("#standings-game").select_option("bid_whist")
        pair = ana.locator("#pairs tbody tr")
        expect(pair).to_have_count(1, timeout=20000)
        expect(pair.locator("td")).to_have_text(["1", "1", "no bids yet"])
        expect(ana.locator("#pairs caption")).to_contain_text("Bids made: the contracts the pair won at the auction")
        expect(ana.locator("#standings-hint")).to_contain_text("Against: what their opponents scored")
        expect(ana.locator("#standings-hint")).to_be_visible()
    ana.screenshot(path=str(artifacts / "group-standings-words.png"), full_page=True)


def test_the_group_page_says_who_changed_the_house_rules_and_what(pages, artifacts):
    ana, rui, _, _, _ = group_of_two(pages, "Tuesday Club", PHONE)
    expect(ana.locator("#rules-changes")).to_have_count(0)  # nobody changed anything yet
    save_rules(rui, "Oh Hell")  # Rui sets a short Oh Hell with the page's form
    for viewport in (PHONE, LAPTOP):
        ana.set_viewport_size(viewport)
        ana.reload()
        said = ana.locator('#rules-changes [data-rules-changed="oh_hell"]')
        expect(said).to_contain_text("Rui changed Oh Hell: ", timeout=20000)
        expect(said).to_contain_text("Come back again: off")
        expect(said).to_contain_text("Most cards in a hand: 2")
        expect(said).not_to_contain_text("max_cards")
    ana.screenshot(path=str(artifacts / "group-rules-changed.png"), full_page=True)
