"""The action bar and the hand (the dock, kept at the bottom of the screen) never cover a seat
at the table: not your own seat while you discard in Bid Whist, not the bottom seats of seven
players on a phone. Checked at every decision of a whole match."""

from __future__ import annotations

import pytest
from conftest import SIZES
from playwright.sync_api import expect

# Seats whose visible part lies under the dock's visible part (by more than 2 px either way).
COVERED = """() => {
  const dock = document.querySelector('#dock').getBoundingClientRect();
  const top = Math.max(dock.top, 0), bottom = Math.min(dock.bottom, innerHeight);
  if (bottom <= top) return [];
  const out = [];
  for (const seat of document.querySelectorAll('[data-seat-box]')) {
    const r = seat.getBoundingClientRect();
    const w = Math.min(r.right, dock.right) - Math.max(r.left, dock.left);
    const h = Math.min(r.bottom, bottom) - Math.max(r.top, top);
    if (w > 2 && h > 2) out.push(`seat ${seat.dataset.seatBox} ${Math.round(w)}x${Math.round(h)} under the dock`);
  }
  return out;
}"""
SETTLE = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"

MATCHES = [
    ("bid_whist", {"target": 1}, 4, "phone"),
    ("bid_whist", {"target": 1}, 4, "laptop"),
    ("oh_hell", {"max_cards": 2, "rebound": False}, 7, "phone"),
]


@pytest.mark.parametrize(("game", "options", "seats", "size"), MATCHES, ids=[f"{g}-{n}-{s}" for g, _, n, s in MATCHES])
def test_the_dock_never_covers_a_seat_at_any_decision(pages, table, game, options, seats, size):
    page = pages.open("/", viewport=SIZES[size])
    table.create_room(page, "Ana", game, options, seats=seats if seats != 4 else None)
    for _ in range(seats - 1):
        page.locator("[data-bot-next]").click()
    expect(page.locator(".badge-bot")).to_have_count(seats - 1)
    page.locator("[data-start]").click()
    decisions, kinds, steps = 0, set(), []
    for decisions, step in table.decisions(page):
        steps.append(step)
        page.evaluate(SETTLE)
        kinds.add(
            page.evaluate(
                "() => [...new Set([...document.querySelectorAll('#controls [data-act], #controls [data-submit]')]"
                ".map((b) => b.dataset.act || b.dataset.submit))].join(',')"
            )
        )
        covered = page.evaluate(COVERED)
        assert covered == [], f"decision {decisions} ({step}): {covered}"
        higher = page.locator('#controls [data-key="bid-higher"]:not([disabled])')
        if game == "bid_whist" and higher.count():
            while higher.count():  # bid high, to win the kitty and discard at this table
                higher.click()
                page.evaluate(SETTLE)
                assert page.evaluate(COVERED) == []
            page.locator("#controls [data-bid]").click()
            continue
        bids = page.locator("#controls [data-bid]:not([disabled])")
        if game == "bid_whist" and bids.count() > 1:
            bids.last.click()  # the highest bid, to win the kitty and discard at this table
            continue
        if step == "submit":
            page.locator("#controls [data-submit]:not([disabled])").first.click(timeout=5000)
        else:
            page.locator(f'[data-key="{step}"]').click(timeout=5000)
    assert decisions > 3, kinds
    if game == "bid_whist":
        assert any("discard" in k for k in kinds), f"no discard of yours was seen: {kinds} {steps}"
