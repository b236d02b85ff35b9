"""A finished Ribs trick shown as the rules resolve it: the Leader's Ribs face up, every pair
named and marked won or beaten, the seat that opens the next bidding marked, on a laptop
with four seats and on a phone with eight, and the same in the replay."""

from __future__ import annotations

import re

import pytest
from conftest import DESKTOP, PHONE
from playwright.sync_api import expect
from test_table_feel import _start_against_bots

# Installed before any page script: every resolved trick the table shows, as shown.
RESOLVED_RECORDER = """
window.__resolved = [];
const rect = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
// Whether the middle of ``el`` is covered by another seat or pair on the table (hit-tested
// for the moment, as a note lets clicks through).
const covered = (el) => {
  const r = el.getBoundingClientRect();
  el.style.setProperty('pointer-events', 'auto', 'important');
  const top = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  el.style.removeProperty('pointer-events');
  return !!top && !el.contains(top) && !!top.closest('.seat, .play');
};
new MutationObserver(() => {
  const felt = document.querySelector('.felt');
  const last = window.__resolved[window.__resolved.length - 1];
  if (!felt || !felt.querySelector('.play-resolved')) {
    if (last) last.cleared = true;
    return;
  }
  const plays = [...felt.querySelectorAll('.play-resolved')].map((el) => {
    const name = el.querySelector('.play-name');
    const seat = el.dataset.trickSeat;
    return {
      seat, outcome: el.dataset.outcome, ribs: el.classList.contains('play-ribs'),
      faceUp: el.querySelectorAll('.card:not(.card-back)').length,
      cards: el.querySelectorAll('.card').length,
      name: name ? name.textContent : null,
      nameWhole: !!name && name.getBoundingClientRect().width > 0 && name.scrollWidth <= name.clientWidth + 1,
      seatName: document.querySelector(`[data-seat-box="${seat}"] .seat-name-text`).textContent,
      box: rect(el), note: rect(el.querySelector('.play-note')), noteCovered: covered(el.querySelector('.play-note')),
    };
  });
  const spoken = felt.querySelector('.sr-only').textContent;
  if (last && !last.cleared && last.spoken === spoken) return;
  const badges = [...felt.querySelectorAll('.badge-next')];
  const next = badges.map((b) => b.closest('[data-seat-box]').dataset.seatBox);
  const nextCovered = badges.some(covered);
  window.__resolved.push({ plays, next, nextCovered, felt: rect(felt), spoken, cleared: false });
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
"""


def _overlap(a, b) -> bool:
    return a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1


def _inside(inner, outer) -> bool:
    return (
        inner[0] >= outer[0] - 1 and inner[1] >= outer[1] - 1 and inner[2] <= outer[2] + 1 and inner[3] <= outer[3] + 1
    )


def _check_resolved(shown: dict, seats: int) -> None:
    plays = shown["plays"]
    ribs = [p for p in plays if p["ribs"]]
    assert len(ribs) == 1 and ribs[0]["faceUp"] == 2, f"the Ribs are not shown face up: {plays}"
    assert len(plays) == seats, f"not every seat's pair is shown: {plays}"
    assert {p["outcome"] for p in plays} <= {"won", "beaten", "folded"}, plays
    for p in plays:
        assert p["cards"] == 2
        assert p["outcome"] == "folded" or p["faceUp"] == 2, f"a face-up pair shows a back: {p}"
        assert p["name"] == p["seatName"] and p["nameWhole"], f"a pair does not carry its player's whole name: {p}"
        assert _inside(p["box"], shown["felt"]) and _inside(p["note"], shown["felt"]), f"off the table: {p}"
        assert not p["noteCovered"], f"a seat or pair covers a pair's name: {p}"
    assert not shown["nextCovered"], "a pair covers the next opener's mark"
    # No pair's name covers another pair's cards or name.
    for i, p in enumerate(plays):
        for q in plays[i + 1 :]:
            assert not _overlap(p["note"], q["note"]), f"names overlap: {p} / {q}"
            assert not _overlap(p["note"], q["box"]) and not _overlap(q["note"], p["box"]), (
                f"a name covers cards: {p} / {q}"
            )
    assert "opens the next bidding" in shown["spoken"] or not shown["next"], shown["spoken"]


@pytest.mark.parametrize(("size", "seats"), [("desktop", 4), ("phone", 8), ("phone", 4)])
def test_a_finished_ribs_trick_shows_the_ribs_each_pair_result_and_who_opens_next(pages, table, artifacts, size, seats):
    page = pages.open("/", viewport=DESKTOP if size == "desktop" else PHONE)
    page.add_init_script(RESOLVED_RECORDER)
    _start_against_bots(page, table, "ribs", {"target": 1}, seats=seats)
    shot = False

    def look(_):
        nonlocal shot
        if not shot and page.locator(".felt .play-resolved").count():
            page.screenshot(path=str(artifacts / f"ribs-resolved-{size}-{seats}.png"))
            shot = True

    table.drive([page], lambda: table.finished(page), timeout=180, each=look)
    shown = page.evaluate("() => window.__resolved")
    # One hand to a target of 1: four tricks, each shown as resolved.
    assert len(shown) >= 4, f"only {len(shown)} resolved tricks were shown"
    for each in shown:
        _check_resolved(each, seats)
    # The Leader of a trick opens the next bidding; the match ends after the fourth.
    for each in shown[:3]:
        leader = next(p["seat"] for p in each["plays"] if p["ribs"])
        assert each["next"] == [leader], f"the next opener is not marked on the Leader: {each['next']} vs {leader}"
    assert shown[-1]["next"] == []

    # The replay: stepping by trick shows each trick resolved the same way.
    page.get_by_role("link", name="Match record & replay").click()
    page.wait_for_url(re.compile(r"/matches/"))
    expect(page.locator("#step-label")).to_contain_text("Deal", timeout=30000)  # the replay has loaded
    page.get_by_role("button", name="Next trick").click()
    felt = page.locator(".felt")
    expect(felt.locator(".play-resolved")).to_have_count(seats)
    expect(felt.locator(".play-ribs .card:not(.card-back)")).to_have_count(2)
    expect(felt.locator(".badge-next")).to_have_count(1)
    for seat in range(seats):
        name = page.locator(f'[data-seat-box="{seat}"] .seat-name-text').inner_text()
        expect(felt.locator(f'.play-resolved[data-trick-seat="{seat}"] .play-name')).to_have_text(name)
    page.screenshot(path=str(artifacts / f"ribs-replay-{size}-{seats}.png"))
