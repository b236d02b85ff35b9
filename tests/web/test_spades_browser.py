"""Spades in a real browser against three bots: a person bids through the stepper (Nil first,
then 1 to 13), plays every card through the hand to the end of the match and sees the result
and a sheet with bags; blind nil offered to a team that is behind (look first, then taken),
in Portuguese too, on a phone and a desktop; and a group's "New table" with Spades' house rules."""

from __future__ import annotations

import re
import time

import httpx
from conftest import DESKTOP, PHONE
from playwright.sync_api import expect
from test_group_tables import member_page

BID = '#controls [data-key="bid-{n}"]'
HIGHER = '#controls [data-key="bid-higher"]'
LOWER = '#controls [data-key="bid-lower"]'


def start_with_bots(page, table, options: dict) -> str:
    """The lobby offers Spades and its options; Ana creates the room, three bots fill it."""
    expect(page.get_by_label("Game", exact=True).locator('option[value="spades"]')).to_have_text("Spades")
    code = table.create_room(page, "Ana", "spades", options)
    expect(page.locator("#room-title")).to_contain_text("Spades")
    for _ in range(3):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(3)
    page.locator("[data-start]").click()
    expect(page.locator("#room-title")).to_contain_text("Playing")
    return code


def bid(page, n: int) -> None:
    """Step the bid from where the stepper stands to ``n`` by keyboard (a step keeps the focus on
    its button), then bid."""
    shown = page.locator("#controls [data-bid]")
    at = int(shown.get_attribute("data-bid"))
    if at != n:
        page.locator(LOWER if n < at else HIGHER).focus()
        for _ in range(abs(n - at)):
            page.keyboard.press("Enter")
    expect(page.locator(BID.format(n=n))).to_have_text("Bid Nil" if n == 0 else f"Bid {n}")
    page.locator(BID.format(n=n)).click()
    # The bid is taken once the stepper is gone: until then the page still shows Ana's turn to
    # bid (the bid on its way), and a caller looking again would bid a second time.
    expect(page.locator('#controls [data-key^="bid-"]')).to_have_count(0)


def bidding(page) -> bool:
    return page.locator('#controls [data-key^="bid-"]').count() > 0


def test_a_whole_spades_match_bid_and_played_through_the_page(pages, table, artifacts):
    page = pages.open("/", viewport=DESKTOP)
    start_with_bots(page, table, {"target": 60})
    expect(page.locator("#controls .turn-banner")).to_be_visible(timeout=30_000)
    expect(page.locator("#info")).to_contain_text("♠")  # spades are trump, always

    bids = 0
    checked_play = False
    deadline = time.monotonic() + 240
    while not table.finished(page):
        assert time.monotonic() < deadline, "the match did not finish within 240 s"
        if not table.my_turn(page):
            time.sleep(0.04)
            continue
        if bidding(page):
            expect(page.locator("#controls .prompt")).to_contain_text("How many tricks will you take?")
            expect(page.locator("#bid-bar")).to_contain_text(re.compile(r"Bids \d+ of 13"))
            if not bids:  # the stepper opens at Nil, the least bid
                expect(page.locator(BID.format(n=0))).to_have_text("Bid Nil")
                expect(page.locator(LOWER)).to_be_disabled()
            bids += 1
            bid(page, 3 if bids % 2 else 0)  # a 3, then a nil, then a 3...
            continue
        if not checked_play and page.locator(".seat-goal").count():
            checked_play = True
            info = page.locator("#info")
            expect(info).to_contain_text("Tricks of contracts")
            expect(info).to_contain_text("Bags")
            expect(info).to_contain_text(re.compile("broken|not broken"))
            expect(page.locator(".seat-you")).to_contain_text(re.compile(r"Bid (3|Nil)"))
            page.screenshot(path=str(artifacts / "spades-playing-desktop.png"), full_page=True)
        table.act_once(page)
    assert bids >= 1 and checked_play
    expect(page.locator("#result")).to_contain_text(re.compile("Winner|You won"))
    sheet = page.locator("#sheet table.sheet")
    expect(sheet.locator("thead")).to_contain_text("Bags")
    expect(sheet.locator("tbody tr.sheet-hand")).to_have_count(bids)
    expect(sheet.locator("tbody")).to_contain_text(re.compile(r"(3|Nil) \+ "))
    expect(sheet.locator("tbody")).to_contain_text("dealt by")
    page.screenshot(path=str(artifacts / "spades-finished-desktop.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_blind_nil_is_offered_to_a_team_behind_on_a_phone_and_in_portuguese(pages, table, artifacts):
    """Ana bids 13 until her team is 100 behind: then she may bid nil unseen. The first time
    she looks instead (and bids as usual); the next time she bids blind nil. axe-core finds
    nothing at the offer, nor in Portuguese once it is taken."""
    from test_accessibility import Audit  # axe-core, as the accessibility tests run it

    audit = Audit()
    page = pages.open("/", viewport=PHONE)
    start_with_bots(page, table, {"blind_nil": True})
    offers = 0
    deadline = time.monotonic() + 300
    while offers < 2:
        assert time.monotonic() < deadline, f"blind nil was offered {offers} times in 300 s"
        assert not table.finished(page)
        if not table.my_turn(page):
            time.sleep(0.04)
            continue
        look = page.locator('#controls [data-key="look"]')
        if look.count():
            offers += 1
            blind = page.locator('#controls [data-key="blind-nil"]')
            expect(blind).to_have_text("Blind nil")
            expect(look).to_have_text("Look at my cards")
            expect(page.locator("#hand button[data-card]")).to_have_count(0)  # not seen yet
            expect(page.locator("#hand [data-face-down]")).to_contain_text("face down until you bid blind nil")
            expect(page.locator("#controls .prompt")).to_contain_text("Bid blind nil, or look at your cards first.")
            expect(page.locator("#controls")).to_contain_text("200 points")
            expect(page.locator(".seat-you")).to_contain_text("May bid blind nil")
            page.screenshot(path=str(artifacts / f"spades-blind-offer-{offers}-phone.png"), full_page=True)
            audit.check(page, f"Spades on a phone: blind nil offered ({offers})")
            if offers == 1:
                look.focus()
                page.keyboard.press("Enter")
                expect(page.locator("#hand button[data-card]")).to_have_count(13)
                expect(page.locator('#controls [data-key="look"]')).to_have_count(0)
                expect(page.locator("#hand [data-face-down]")).to_have_count(0)
                bid(page, 13)
            else:
                blind.click()
                expect(page.locator(".seat-you")).to_contain_text("Bid Nil")
                expect(page.locator(".seat-you")).to_contain_text("Blind")
                expect(page.locator("#hand button[data-card]")).to_have_count(13)  # seen once bid
            continue
        if bidding(page):
            bid(page, 13)  # more than can be made: the team falls behind
            continue
        table.act_once(page)

    # Blind nil bid: Ana's own goal is 0 tricks, her partner's the team's contract.
    expect(page.locator(".seat-you .seat-goal")).to_be_visible(timeout=30_000)
    page.screenshot(path=str(artifacts / "spades-blind-nil-phone.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # The same table in Portuguese: the game, its words and the sheet's.
    page.locator("#lang").select_option("pt")
    page.wait_for_load_state()
    expect(page.locator("html")).to_have_attribute("lang", "pt-BR")
    expect(page.locator("#room-title")).to_contain_text("Espadas")
    expect(page.locator(".seat-you")).to_contain_text("Nulo")
    expect(page.locator(".seat-you")).to_contain_text("Às cegas")
    expect(page.locator("#info")).to_contain_text("Vazas dos contratos")
    expect(page.locator("#info")).to_contain_text("Sacos")
    expect(page.locator("#sheet table.sheet thead")).to_contain_text("Sacos")
    page.screenshot(path=str(artifacts / "spades-blind-nil-phone-pt.png"), full_page=True)
    audit.check(page, "Spades on a phone in Portuguese: blind nil bid")
    audit.assert_clean()


def test_a_group_makes_a_spades_table_with_its_house_rules(pages):
    """A group's "New table" offers Spades and its options, the house rules filled in."""
    page, group, auth = member_page(pages, PHONE)
    rules = {"options": {"target": 300, "blind_nil": True, "lose_at": -200}}
    with httpx.Client(base_url=pages.base) as http:
        assert http.put(f"/api/groups/{group}/rules/spades", json=rules, headers=auth).is_success
    page.reload()
    form = page.locator("#new-table")
    form.get_by_label("Game", exact=True).select_option("spades")
    form.locator("#new-options-box > summary").click()
    expect(form.get_by_label("Points to win", exact=True)).to_have_value("300")
    expect(form.get_by_label("Blind nil", exact=True)).to_be_checked()
    expect(form.get_by_label("Losing score", exact=True)).to_have_value("-200")
    form.get_by_label("Bag limit", exact=True).fill("5")
    form.get_by_role("button", name="New table").click()
    page.wait_for_url("**/r/*")
    with httpx.Client(base_url=pages.base) as http:
        room = http.get(f"/api/rooms/{page.url.rsplit('/', 1)[-1]}").json()
    assert room["game"] == "spades"
    assert room["options"] == {"target": 300, "blind_nil": True, "bag_limit": 5, "lose_at": -200}
    expect(page.locator("#table-rules")).to_contain_text("Spades")
    expect(page.locator("#table-rules")).to_contain_text("blind nil")
    expect(page.locator("#table-rules")).to_contain_text("5 bags")
