"""The turn timer where the player looks: seconds counting down in the action bar, a warning
for the last ten, and a live text that screen readers hear as it counts."""

from __future__ import annotations

from playwright.sync_api import expect

from conftest import DESKTOP  # noqa: E402  (the browser folder's own conftest)
from test_table_feel import _start_against_bots

# Installed before any page script: every count the action bar and the live text showed.
CLOCK_RECORDER = """
window.__clock = { shown: [], warned: false, spoken: [] };
new MutationObserver(() => {
  const el = document.querySelector('#turn-clock');
  const c = window.__clock;
  if (el) {
    if (c.shown[c.shown.length - 1] !== el.textContent) c.shown.push(el.textContent);
    if (el.classList.contains('turn-clock-warn')) c.warned = true;
  }
  const live = document.querySelector('#clock-live');
  if (live && live.textContent && c.spoken[c.spoken.length - 1] !== live.textContent) c.spoken.push(live.textContent);
}).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
"""


def test_the_action_bar_counts_down_the_turn_and_warns_for_the_last_ten_seconds(pages, table):
    page = pages.open("/", viewport=DESKTOP)
    page.add_init_script(CLOCK_RECORDER)
    # A 60 s timer: 3 s here (the test server runs the clock 20 times faster).
    _start_against_bots(page, table, "oh_hell", {"max_cards": 10, "rebound": False}, timer=60)
    expect(page.locator("#controls #turn-clock")).to_be_visible(timeout=15000)
    # Ana waits: the clock runs out and a bot bids for her.
    expect(page.locator(".seat-you .seat-notes")).to_contain_text("Bid", timeout=20000)
    clock = page.evaluate("() => window.__clock")
    counts = [int(text.split()[0]) for text in clock["shown"]]
    # Her first turn's countdown (her next turn may have started since: it counts from the top).
    first = counts[:1]
    for n in counts[1:]:
        if n > first[-1]:
            break
        first.append(n)
    assert len(first) >= 2, f"the countdown did not count: {clock['shown']}"
    assert all(text.endswith(" s") for text in clock["shown"])
    assert clock["warned"], "no warning was shown for the last ten seconds"
    assert clock["spoken"] and all("left" in line for line in clock["spoken"]), clock["spoken"]
    assert any(line.startswith("Hurry: ") for line in clock["spoken"]), clock["spoken"]
    assert len(set(clock["spoken"])) >= 2, f"the live text did not count: {clock['spoken']}"
