// The finished trick: held on the table a moment, then swept to its winner.
import { finalTrickOf } from "../table.js";
import { page, view } from "./page.js";
import { render } from "./table_view.js";

const HOLD_MS = 1100; // how long a finished trick stays before it is swept to its winner
const SWEEP_MS = 380;
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
/** The trick a view has just finished: its last_trick, or the last hand's final trick. */
function finishedTrick(v) {
  if (!v) return null;
  const last = v.last_trick || (Array.isArray(v.history) ? finalTrickOf(v.history[v.history.length - 1]) : null);
  const plays = last && (Array.isArray(last.cards) ? last.cards : Array.isArray(last.plays) ? last.plays : null);
  return plays && plays.length ? { last, plays } : null;
}

/** Hold a trick that has just been finished (never one that was already there on arrival). */
export function trackTrick() {
  const done = finishedTrick(view());
  const key = done ? JSON.stringify([view().hand_number ?? null, done.last]) : null;
  const first = page.lastTrickKey === undefined;
  if (key === page.lastTrickKey) return;
  page.lastTrickKey = key;
  if (first || !done) return;
  clearTimeout(page.held?.timer);
  page.held = { plays: done.plays, last: done.last, winner: done.last.winner ?? null, ms: HOLD_MS, sweepAt: null, timer: null };
  scheduleSweep();
}

/** Sweep the held trick after its time, counted only while you look. */
function scheduleSweep() {
  clearTimeout(page.held.timer);
  if (document.hidden) return; // you were not looking: it waits for you (see visibilitychange)
  page.held.timer = setTimeout(sweepHeld, page.held.ms);
}

/** Sweep the held trick toward its winner (at once without motion). */
function sweepHeld() {
  if (!page.held) return;
  if (reducedMotion.matches) {
    releaseHeld();
    return;
  }
  if (page.held.winner === null) { // nothing to sweep (a trick nobody wins): held as long as the others
    page.held.timer = setTimeout(releaseHeld, SWEEP_MS);
    return;
  }
  page.held.sweepAt = performance.now();
  render();
  page.held.timer = setTimeout(releaseHeld, SWEEP_MS);
}

/** Take the held trick off the table. */
export function releaseHeld() {
  if (!page.held) return;
  clearTimeout(page.held.timer);
  page.held = null;
  if (page.state) render();
}

document.addEventListener("visibilitychange", () => {
  if (page.held && !document.hidden && page.held.sweepAt === null) {
    page.held.ms = HOLD_MS * 2; // back from elsewhere: a longer look
    scheduleSweep();
  }
});

/** What the middle of the table shows: the held trick while it is held, else the trick in play. */
export function tableTrick() {
  if (!page.held) return { plays: view()?.trick || [], winner: null, sweep: null };
  const sweep = page.held.sweepAt === null ? null : { elapsed: Math.round(performance.now() - page.held.sweepAt), ms: SWEEP_MS };
  return { plays: page.held.plays, last: page.held.last, winner: page.held.winner, sweep, held: true };
}

