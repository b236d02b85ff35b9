// The table fits the screen: the felt sized so that the table, your controls and your hand
// are seen together, and a new decision of yours brought into view.
import { $ } from "../dom.js";
import { legal, page, room, view } from "./page.js";

/** Scroll the page, only as far as needed, so that `el` is on screen. */
function scrollToShow(el) {
  const r = el.getBoundingClientRect();
  if (r.height === 0) return;
  const margin = 8;
  const top = $(".topbar").getBoundingClientRect().bottom; // the header stays on top of the page
  let by = 0;
  if (r.top < top) by = r.top - top - margin;
  else if (r.bottom > window.innerHeight) by = Math.min(r.bottom - window.innerHeight + margin, r.top - top - margin);
  if (by) window.scrollBy({ top: by, behavior: "instant" });
}

/** Scroll, only as far as needed, so that the whole table (the facts and score above it, every
 * seat) and your controls and hand are in view together, under the header. When they cannot
 * all be (a dock too tall for the window), your controls and hand come first. */
function showTheTable() {
  const dock = $("#dock");
  const first = [$("#info"), $("#score-strip"), $("#table")].find((el) => !el.hidden && el.offsetHeight > 0);
  if (!first) return;
  const flow = document.body.classList.contains("dock-in-flow");
  const margin = 8;
  const head = $(".topbar").getBoundingClientRect().bottom;
  const top = first.getBoundingClientRect().top;
  const bottom = (flow ? dock : $("#table")).getBoundingClientRect().bottom;
  const limit = window.innerHeight - (flow ? 0 : dock.offsetHeight); // where a sticky dock's top may come
  if (bottom - top > limit - head) {
    scrollToShow(dock);
    return;
  }
  const by = top < head + margin ? top - head - margin : bottom > limit ? Math.min(bottom - limit + margin, top - head - margin) : 0;
  if (by) window.scrollBy({ top: by, behavior: "instant" });
}

/** A new decision of yours brings the table, your hand and controls into view, the end its
 * result; a chat line, a bot's move or anything else leaves the page where you put it. */
export function bringUpWhatMatters() {
  const finished = room().status === "finished" && page.state.result;
  const mine = page.state.you !== null && legal().length > 0 && room().status === "playing";
  const key = finished ? "result" : mine ? JSON.stringify([view()?.hand_number ?? null, view()?.hand ?? null, legal()]) : null;
  if (key === null || key === page.shownDecision) return;
  page.shownDecision = key;
  if (finished) scrollToShow($("#result"));
  else showTheTable();
}

/** Size the felt so that the table, your controls and your hand fit the window together. When
 * they cannot (a tall dock: a discard of many cards, a phone), the dock leaves the bottom of the
 * screen and follows the table instead of covering its bottom seats. */
export function fitTable() {
  const felt = $("#table .felt");
  if (!felt) return false;
  const overhang = seatOverhang(felt);
  $("#table").style.paddingBottom = overhang ? `${overhang}px` : "";
  const top = $("#table").getBoundingClientRect().top + window.scrollY;
  const dock = $("#dock").offsetHeight;
  const room = Math.floor(window.innerHeight - top - dock - 12 - overhang);
  const min = parseFloat(getComputedStyle(felt).getPropertyValue("--felt-min")) || 240;
  const flow = room < min;
  const changed = document.body.classList.contains("dock-in-flow") !== flow;
  document.body.classList.toggle("dock-in-flow", flow);
  // The felt shrinks at once (a pixel too tall is a pixel of a seat under the dock) but grows
  // only by a few pixels or more, so that a scroll bar coming and going cannot make it swing.
  if (room < page.fitted || room - page.fitted >= 4) {
    page.fitted = room;
    document.documentElement.style.setProperty("--felt-fit", `${room}px`);
  }
  return changed;
}

/** How far the seats reach below the felt's edge (a seat's box is centred on its place). */
function seatOverhang(felt) {
  const bottom = felt.getBoundingClientRect().bottom;
  const lowest = Math.max(bottom, ...[...felt.querySelectorAll("[data-seat-box]")].map((el) => el.getBoundingClientRect().bottom));
  return Math.ceil(lowest - bottom);
}

/** A decision of yours is kept in view, the table with it, as the page's parts change size. */
export function keepDecisionInView() {
  const mine = page.state && page.state.you !== null && legal().length > 0 && room().status === "playing";
  if (mine) showTheTable();
}

/** After the window, the dock or what is above the table changes size, the felt fits again and,
 * a frame later (once the seats have moved with it), a decision of yours is still in view. */
function refit() {
  fitTable();
  cancelAnimationFrame(page.keeping);
  page.keeping = requestAnimationFrame(() => {
    fitTable();
    keepDecisionInView();
  });
}

window.addEventListener("resize", refit);
// The dock's height, and everything above the table (the header, a panel, the rules line, the
// score strip), changes the room the felt has: each change fits it again before the next frame.
const fitter = new ResizeObserver(refit);
for (const el of document.querySelectorAll(".topbar, #dock, .play-area > :not(#table, #dock)")) fitter.observe(el);

