// Which moves of the hand's log the turn clock played. The room names only the latest such move
// (``room.clock_played``, until the next move), so the page remembers the others of the hand
// by their place in its log, and forgets them when a new hand's log begins. Pure: no DOM.
import { deepEqual } from "./patch.js";

export class ClockMarks {
  constructor() {
    this.places = new Set();
    this.length = 0;
  }

  /** Look at the hand's log as it is now, and the room's ``clock_played`` (or null). */
  see(entries, clockPlayed) {
    if (entries.length < this.length) this.places.clear();
    this.length = entries.length;
    const last = entries[entries.length - 1];
    if (clockPlayed && last && last.seat === clockPlayed.seat && deepEqual(last.action, clockPlayed.action)) {
      this.places.add(entries.length - 1);
    }
  }

  /** True if the clock played the move at ``index`` of the log. */
  has(index) {
    return this.places.has(index);
  }
}
