"""'Why?' beside the prompt: at a decision the player can ask which rule shapes the choices,
and the line stays open while the same rule holds."""

from __future__ import annotations

import re
import time

from conftest import DESKTOP, PHONE, PROBE
from playwright.sync_api import expect
from test_table_feel import _start_against_bots

KNOWN = re.compile(
    r"^(You lead this trick|You must follow suit: you hold an? (spade|heart|diamond|club)\.|You hold no \w+: any card"
    r"|The dealer may not bid \d+: the bids would add up|You open the bidding|Each bid is exactly one more"
    r"|No bid may be above|You won the bidding|Play any two cards face up|You have folded once)"
)


def _ask_and_play(page, table, seen: list[str], deadline: float, most: int = 10) -> None:
    """Play the match out, asking "Why?" at the first ``most`` decisions that offer it."""
    asked = 0
    while not table.finished(page):
        assert time.monotonic() < deadline, "the match did not finish in time"
        if page.evaluate(PROBE) is None:
            time.sleep(0.04)
            continue
        ask = page.locator("#controls .why-ask")
        if ask.count() and asked < most:
            asked += 1
            expect(page.locator("#why-text")).to_be_hidden()
            ask.click()
            expect(ask).to_have_attribute("aria-expanded", "true")
            text = page.locator("#why-text")
            expect(text).to_be_visible()
            seen.append(text.inner_text())
            # Asked once, the line stays open through the table's redraws for this decision.
            page.evaluate("() => new Promise((done) => setTimeout(done, 300))")
            if page.locator("#controls .why-ask").count():
                expect(page.locator("#why-text")).to_be_visible()
            ask.click()
            expect(page.locator("#why-text")).to_be_hidden()
        table.act_once(page)


def test_why_names_the_rule_behind_the_choices_in_oh_hell_and_ribs(pages, table):
    seen: list[str] = []
    page = pages.open("/", viewport=DESKTOP)
    _start_against_bots(page, table, "oh_hell", {"max_cards": 4, "rebound": False})
    _ask_and_play(page, table, seen, time.monotonic() + 150)
    phone = pages.open("/", viewport=PHONE)
    _start_against_bots(phone, table, "ribs", {"target": 1})
    ribs_from = len(seen)
    _ask_and_play(phone, table, seen, time.monotonic() + 150)
    assert seen[:ribs_from], "Oh Hell never offered a reason"
    assert len(seen) > ribs_from, "Ribs never offered a reason"
    unknown = [line for line in seen if not KNOWN.match(line)]
    assert unknown == [], unknown
    # Every Ribs decision has its rule: the opening bid or the raise, the Ribs or the pair.
    assert any(line.startswith(("You open the bidding", "Each bid is exactly one more")) for line in seen[ribs_from:])
