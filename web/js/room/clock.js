// The turn clock: your countdown beside "Your turn", its warning sound, and each seat ring's
// time left for screen readers.
import { soundToggle, warnOnce } from "../clock_sound.js";
import { $, h } from "../dom.js";
import { t } from "../i18n.js";
import { isSlow, timeLeft } from "../slowclock.js";
import { page, room, view } from "./page.js";

/** The turn timer's deadline for the seats to act, when the table has one running. */
export function turnTimer() {
  const r = room();
  if (!r.turn_timer || !r.deadline || r.status !== "playing") return null;
  return { seats: view()?.to_act || [], deadline: r.deadline, total: r.turn_timer * 1000, slow: isSlow(r.turn_timer) };
}

const WARN_MS = 10000; // the countdown turns to a warning with this much time left

/** Your turn's countdown, beside "Your turn" in the action bar (when a clock runs for you),
 *  and the toggle of its warning sound. */
export function turnClock() {
  const timer = turnTimer();
  if (!timer || !timer.seats.includes(page.state.you)) return null;
  const el = h("span", { class: "turn-clock", id: "turn-clock", "aria-hidden": "true" });
  showClock(el, timer);
  return [el, soundToggle()];
}

/** Draw the seconds left; screen readers hear them every 10 s and each of the last 5. */
function showClock(el, timer) {
  if (timer.slow) { // hours or days a decision: told in hours and minutes, no countdown to hear
    el.textContent = timeLeft(timer.deadline);
    el.classList.add("turn-clock-slow");
    return;
  }
  const left = Math.max(0, timer.deadline - Date.now());
  const secs = Math.ceil(left / 1000);
  el.textContent = t("timer.short", { n: secs });
  el.classList.toggle("turn-clock-warn", left <= WARN_MS);
  if (left <= WARN_MS && left > 0) warnOnce(timer.deadline); // a short sound, unless turned off
  if (secs !== page.spokenSecs && (secs % 10 === 0 || secs <= 5)) {
    page.spokenSecs = secs;
    $("#clock-live").textContent = t(left <= WARN_MS ? "timer.hurry" : "timer.left", { n: secs });
  }
}

// The clocks tick between views: your countdown and each seat ring's spoken label.
setInterval(() => {
  const timer = page.state && turnTimer();
  const el = $("#turn-clock");
  if (el && timer) showClock(el, timer);
  else if (page.spokenSecs !== null) {
    page.spokenSecs = null;
    $("#clock-live").textContent = "";
  }
  if (!timer) return;
  const secs = Math.ceil(Math.max(0, timer.deadline - Date.now()) / 1000);
  const label = timer.slow ? timeLeft(timer.deadline) : t("timer.left", { n: secs });
  for (const ring of document.querySelectorAll(".seat-timer")) ring.setAttribute("aria-label", label);
}, 250);

