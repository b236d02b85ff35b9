"""The turn timer where the player looks: seconds counting down in the action bar, a warning
for the last ten (a short sound too, unless turned off), a live text and a seat label that
screen readers hear as they count, and a gold wipe that leaves the seat's text readable."""

from __future__ import annotations

import base64
import re

from conftest import DESKTOP, PHONE
from playwright.sync_api import expect
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


# Installed before any page script: a stand-in for the Web Audio API that counts the tones
# started, and every label the acting seat's ring gave screen readers.
AUDIO_RECORDER = """
window.__tones = 0;
window.__ring = [];
class FakeAudio {
  constructor() { this.state = 'running'; this.currentTime = 0; this.destination = {}; }
  resume() { return Promise.resolve(); }
  createGain() {
    const p = { setValueAtTime() {}, exponentialRampToValueAtTime() {} };
    return { gain: p, connect: (x) => x };
  }
  createOscillator() { return { frequency: {}, connect: (x) => x, start() { window.__tones += 1; }, stop() {} }; }
}
window.AudioContext = FakeAudio;
new MutationObserver(() => {
  const ring = document.querySelector('.seat-you .seat-timer');
  const label = ring && ring.getAttribute('aria-label');
  if (label && window.__ring[window.__ring.length - 1] !== label) window.__ring.push(label);
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });
"""


def test_a_short_sound_warns_at_ten_seconds_unless_turned_off_and_the_ring_label_counts(pages, table):
    page = pages.open("/", viewport=DESKTOP)
    page.add_init_script(AUDIO_RECORDER)
    # A 120 s timer: 6 s here, all of it under the ten seconds of the warning.
    _start_against_bots(page, table, "oh_hell", {"max_cards": 10, "rebound": False}, timer=120)
    toggle = page.locator("#controls .clock-sound")
    expect(toggle).to_have_text("Sound on")
    expect(page.locator("#turn-clock.turn-clock-warn")).to_be_visible(timeout=15000)
    page.wait_for_function("() => window.__tones > 0")
    # Turned off, the next turn's warning is silent.
    toggle.click()
    expect(page.locator("#controls .clock-sound")).to_have_text("Sound off")
    assert page.evaluate("() => localStorage.getItem('felt.clockSound')") == "off"
    tones = page.evaluate("() => window.__tones")
    # The seat's ring counts down for screen readers too, until the clock bids for Ana.
    expect(page.locator(".seat-you .seat-notes")).to_contain_text("Bid", timeout=20000)
    ring = page.evaluate("() => window.__ring")
    counts = [int(label.split()[0]) for label in ring]
    assert all(re.fullmatch(r"\d+ seconds? left", label) for label in ring), ring
    assert len(counts) >= 2 and counts[1] < counts[0], f"the seat's label did not count: {ring}"
    # Her next turn (the first trick) warns on screen, without a sound.
    expect(page.locator("#turn-clock.turn-clock-warn")).to_be_visible(timeout=20000)
    expect(page.locator("#controls .clock-sound")).to_have_text("Sound off")
    assert page.evaluate("() => window.__tones") == tones


# The background behind a text, from a screenshot of its box (the text hidden), against the
# text's colour: the worst contrast ratio of any pixel (WCAG's relative luminance).
WORST_CONTRAST = """async ({ png, color }) => {
  const img = new Image();
  img.src = 'data:image/png;base64,' + png;
  await img.decode();
  const canvas = document.createElement('canvas');
  canvas.width = img.width; canvas.height = img.height;
  const g = canvas.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, img.width, img.height).data;
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = (r, gg, b) => 0.2126 * f(r) + 0.7152 * f(gg) + 0.0722 * f(b);
  const text = lum(...color);
  let worst = 99;
  for (let i = 0; i < d.length; i += 4) {
    const back = lum(d[i], d[i + 1], d[i + 2]);
    worst = Math.min(worst, (Math.max(text, back) + 0.05) / (Math.min(text, back) + 0.05));
  }
  return worst;
}"""

# A still copy of the table over the live one (which the turn's end redraws), the ring
# held at ``ring`` of the wipe, every text of the acting seat hidden but measured by colour.
FREEZE = """(at) => {
  document.querySelector('#frozen')?.remove();
  const live = document.querySelector('#table .felt');
  const copy = live.cloneNode(true);
  copy.id = 'frozen';
  const box = live.getBoundingClientRect();
  // Pinned over the page's top, above the header and the controls, at the live table's size.
  for (const [k, v] of [['position', 'fixed'], ['left', '0'], ['top', '0'], ['width', `${box.width}px`],
    ['height', `${box.height}px`], ['z-index', '1000']]) copy.style.setProperty(k, v, 'important');
  document.querySelector('#table').after(copy);
  const ring = copy.querySelector('.seat-you .seat-timer');
  ring.style.setProperty('animation', 'none', 'important');
  ring.style.setProperty('--ring', String(at), 'important');
  const seat = copy.querySelector('.seat-you');
  return [...seat.querySelectorAll('.seat-name-text, .seat-notes span, .seat-turn')].map((el, i) => {
    el.dataset.measure = i;
    const color = getComputedStyle(el).color.match(/\\d+/g).slice(0, 3).map(Number);
    el.style.setProperty('color', 'transparent', 'important');
    return [i, color];
  });
}"""


def test_the_gold_wipe_never_makes_the_acting_seats_text_unreadable(pages, table):
    page = pages.open("/", viewport=DESKTOP)
    _start_against_bots(page, table, "oh_hell", {"max_cards": 10, "rebound": False}, timer=120)
    expect(page.locator(".seat-you.seat-acting .seat-timer")).to_be_visible(timeout=15000)
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        for ring in (1, 0.75, 0.5, 0.25, 0.02):
            texts = page.evaluate(FREEZE, ring)
            assert texts, "the acting seat shows no text"
            for i, color in texts:
                el = page.locator(f'#frozen [data-measure="{i}"]')
                png = el.screenshot(animations="disabled")
                worst = page.evaluate(WORST_CONTRAST, {"png": base64.b64encode(png).decode(), "color": color})
                assert worst >= 4.5, f"at {size['width']} px, {ring:.0%} of the wipe: text {i} at {worst:.2f}:1"
