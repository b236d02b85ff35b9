"""Every card of the replay's trick is in full view: no seat's box, name or note lies over it.

Whole random matches of every game and seat count are stored as the server stores a finished
match, then the match page is stepped through, position by position, on a phone, a tablet and
a laptop: at each step the middle and the corners of every played card must be the card itself.
"""

from __future__ import annotations

import pytest
from storage_helpers import make_record

from server.storage import store
from server.storage.db import Database

SCREENS = {
    "phone": {"width": 390, "height": 844},
    "tablet": {"width": 768, "height": 1024},
    "laptop": {"width": 1366, "height": 768},
}
TABLES = [("oh_hell", n) for n in range(3, 8)] + [("bid_whist", 4), ("tarbish", 4)] + [("ribs", n) for n in range(4, 9)]

# Steps through every position and lists each played card that something else covers: the
# card's middle and its corners (3 px in, inside the rounding) must be the card or what is inside it.
COVERED = """(range) => {
  const found = [];
  const max = Number(range.max);
  let fullest = 0;
  let most = -1;
  for (let i = 0; i <= max; i++) {
    range.value = String(i);
    range.dispatchEvent(new Event("input", { bubbles: true }));
    const felt = document.querySelector(".felt");
    felt.scrollIntoView({ block: "center" });
    const cards = felt.querySelectorAll(".play .card");
    if (cards.length > most) [fullest, most] = [i, cards.length];
    for (const card of cards) {
      const r = card.getBoundingClientRect();
      const points = [[r.left + r.width / 2, r.top + r.height / 2], [r.left + 3, r.top + 3],
        [r.right - 3, r.top + 3], [r.left + 3, r.bottom - 3], [r.right - 3, r.bottom - 3]];
      for (const [x, y] of points) {
        const over = document.elementFromPoint(x, y);
        if (!over || !card.contains(over)) {
          const box = over && over.closest("[data-seat-box], .play");
          const what = !box ? over && over.tagName
            : box.dataset.seatBox !== undefined ? `seat ${box.dataset.seatBox}'s box`
            : `seat ${box.dataset.trickSeat}'s play`;
          const whose = card.closest(".play").dataset.trickSeat;
          found.push(`step ${i}: seat ${whose}'s card under ${what} at ${Math.round(x)},${Math.round(y)}`);
          break;
        }
      }
    }
  }
  return { found, max, fullest };
}"""


STEP_TO = "(el, n) => { el.value = String(n); el.dispatchEvent(new Event('input', { bubbles: true })); }"


@pytest.fixture(scope="module")
def stored(server, tmp_path_factory) -> dict[tuple[str, int], str]:
    """One stored match for each game and seat count, by (game, seats): its id."""
    (folder,) = tmp_path_factory.getbasetemp().glob("felt-browser[0-9]*")  # the server's folder
    db = Database(f"sqlite:///{folder / 'felt.db'}")
    ids = {}
    try:
        with db.session() as session:
            for game_name, players in TABLES:
                record = make_record(game_name, 1000 * players + len(game_name), players=players)
                store.save_match(session, record)
                ids[(game_name, players)] = record["id"]
    finally:
        db.dispose()
    return ids


@pytest.mark.parametrize("screen", list(SCREENS))
def test_every_played_card_is_in_full_view_at_every_step_of_the_replay(pages, stored, screen, artifacts):
    problems = []
    page = pages.open(None, viewport=SCREENS[screen])
    for (game_name, n), match_id in stored.items():
        page.goto(f"{pages.base}/matches/{match_id}")
        range_ = page.locator("#step-range")
        page.wait_for_function("() => Number(document.querySelector('#step-range')?.max) > 0", timeout=60000)
        result = range_.evaluate(COVERED)
        if result["found"]:
            found = result["found"]
            problems.append(f"{game_name} at {n} seats, {len(found)} covered in {result['max']} steps: {found[:3]}")
        # A picture of the first covered step, or else of the step with the most cards down.
        step = int(result["found"][0].split(":")[0].split()[1]) if result["found"] else result["fullest"]
        range_.evaluate(STEP_TO, step)
        page.locator(".felt").screenshot(path=str(artifacts / f"replay-trick-{screen}-{game_name}-{n}.png"))
    assert not problems, "\n".join(problems)
