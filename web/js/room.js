// The table page /r/{code}: one socket, the room view kept current, everything drawn from it.
import { $, h, fill, keepFocus, toast } from "./dom.js";
import { api, canonicalCode, ensurePlayer, identity, matchUrl, roomUrl } from "./api.js";
import { RoomConnection } from "./connection.js";
import { finalTrickOf, playCards, renderTable } from "./table.js";
import { SUITS, cardBack, cardButton, cardView, suitName } from "./cards.js";
import { scoreSheet } from "./sheet.js";
import { actionText, bidText, descriptor, gameTitle, infoItems, passLabel, promptFor, seatLabel, teamNames } from "./games.js";
import { t, has, translatePage, errorText } from "./i18n.js";
import { sha256Hex } from "./sha256.js";
import { ClockMarks } from "./clockmarks.js";
import { setupRules } from "./rules.js";
import { showSummary } from "./summary.js";
import { cardWhyLine, whyParts } from "./why.js";
import { soundToggle, warnOnce } from "./clock_sound.js";
import { tableAlerts } from "./attention.js";
import { isSlow, timeLeft } from "./slowclock.js";
import { namesAtMove, seatNamesOverMatch } from "./occupants.js";
import { arrangeHand } from "./handorder.js";
import { renderBidBar } from "./bidbar.js";
import { announceGoals } from "./needs.js";
import { chooseAhead, courtesyChange, courtesyClick, courtesyNews, courtesyParts, mayChooseAhead } from "./courtesies.js";

translatePage();
const code = canonicalCode(decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || ""));
const alerts = tableAlerts(code); // your turn, a start, your name: told while you look elsewhere
let state = null;
let conn = null;
let botLevel = "easy"; // the level of the next bot the host adds: "easy" or "strong"
let selection = []; // positions in your hand chosen for a discard or a Ribs pair
let selectionKey = "";
let pending = false; // an action is on its way: wait for the next version
let wasMyTurn = false;
let chatSeen = 0;
let botAsked = new Set(); // seats a bot was asked for that the table has not filled yet
let chatRead = null; // chat lines read (null until the first view: history counts as read)
let chatOpen = false;
let shownDecision = null; // the decision last brought into view (a new one is brought again)
let held = null; // a finished trick kept on the table: {plays, last, winner, ms, sweepAt, timer}
let lastTrickKey; // undefined until the first view
const HOLD_MS = 1100; // how long a finished trick stays before it is swept to its winner
const SWEEP_MS = 380;
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
const digests = new Map(); // seed -> sha256 hex
// Arriving to play (a name given in the lobby: the link ends in #sit; or the Join form here):
// take the first free seat as soon as the table knows who you are.
let sitOnArrival = location.hash === "#sit";
if (sitOnArrival) history.replaceState(null, "", location.pathname + location.search);

const room = () => state.room;
const view = () => state.game;
const legal = () => (state.game && Array.isArray(state.game.legal) ? state.game.legal : []);
// Bots are named by the server ("Bot 3"); here they get the page's word for a bot.
const names = () => state.seats.map((s) => (s.bot ? t(s.level === "strong" ? "seat.strongBotName" : "seat.botName", { n: s.seat + 1 }) : s.name || t("seat.n", { n: s.seat + 1 })));
const inviteUrl = () => `${location.origin}${roomUrl(code)}`;

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const playResult = (r) => (has(`ribs.result.${r}`) ? t(`ribs.result.${r}`) : String(r).replace(/_/g, " "));

function sameCards(a, b) {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((c, i) => c === y[i]);
}

/** How the hand is used now: "play" (click a card), "select" (choose several), or "none". */
function handMode() {
  const kinds = new Set(legal().map((a) => a.type));
  if (kinds.has("discard") || kinds.has("ribs") || kinds.has("pair")) return "select";
  if (kinds.has("play")) return "play";
  return "none";
}

function selectCount() {
  const d = legal().find((a) => a.type === "discard");
  if (d) return d.count ?? (d.cards || []).length;
  return 2;
}

// ---- rendering -------------------------------------------------------------------------

function render() {
  if (!state) return;
  const key = JSON.stringify([view()?.hand ?? null, legal().map((a) => a.type)]);
  if (key !== selectionKey) {
    selection = [];
    selectionKey = key;
  }
  trackTrick();
  keepFocus(() => {
    renderHeader();
    renderJoin();
    renderInfo();
    renderBidBar(room().game, view());
    announceGoals(room().game, view(), names());
    renderScoreStrip();
    renderTableArea();
    renderControls();
    fill($("#courtesies"), courtesyParts(state, names()));
    renderSeatOffers();
    renderHand();
    renderResult();
    renderScores();
    renderLastTrick();
    renderSheet();
    renderFair();
    renderChat();
    renderMoveLog();
  });
  announceTurn();
  const news = courtesyNews(state, names());
  if (news) $("#announce").textContent = news;
  announceRequests(alerts.view(state, gameTitle(room().game, room().title)));
  if (fitTable()) keepDecisionInView(); // the dock just left (or rejoined) the bottom of the screen
  bringUpWhatMatters();
}

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
function bringUpWhatMatters() {
  const finished = room().status === "finished" && state.result;
  const mine = state.you !== null && legal().length > 0 && room().status === "playing";
  const key = finished ? "result" : mine ? JSON.stringify([view()?.hand_number ?? null, view()?.hand ?? null, legal()]) : null;
  if (key === null || key === shownDecision) return;
  shownDecision = key;
  if (finished) scrollToShow($("#result"));
  else showTheTable();
}

// ---- the finished trick: held on the table, then swept to its winner --------------------

/** The trick a view has just finished: its last_trick, or the last hand's final trick. */
function finishedTrick(v) {
  if (!v) return null;
  const last = v.last_trick || (Array.isArray(v.history) ? finalTrickOf(v.history[v.history.length - 1]) : null);
  const plays = last && (Array.isArray(last.cards) ? last.cards : Array.isArray(last.plays) ? last.plays : null);
  return plays && plays.length ? { last, plays } : null;
}

/** Hold a trick that has just been finished (never one that was already there on arrival). */
function trackTrick() {
  const done = finishedTrick(view());
  const key = done ? JSON.stringify([view().hand_number ?? null, done.last]) : null;
  const first = lastTrickKey === undefined;
  if (key === lastTrickKey) return;
  lastTrickKey = key;
  if (first || !done) return;
  clearTimeout(held?.timer);
  held = { plays: done.plays, last: done.last, winner: done.last.winner ?? null, ms: HOLD_MS, sweepAt: null, timer: null };
  scheduleSweep();
}

function scheduleSweep() {
  clearTimeout(held.timer);
  if (document.hidden) return; // you were not looking: it waits for you (see visibilitychange)
  held.timer = setTimeout(sweepHeld, held.ms);
}

function sweepHeld() {
  if (!held) return;
  if (reducedMotion.matches) {
    releaseHeld();
    return;
  }
  if (held.winner === null) { // nothing to sweep (a Ribs trick): held as long as the others
    held.timer = setTimeout(releaseHeld, SWEEP_MS);
    return;
  }
  held.sweepAt = performance.now();
  render();
  held.timer = setTimeout(releaseHeld, SWEEP_MS);
}

function releaseHeld() {
  if (!held) return;
  clearTimeout(held.timer);
  held = null;
  if (state) render();
}

document.addEventListener("visibilitychange", () => {
  if (held && !document.hidden && held.sweepAt === null) {
    held.ms = HOLD_MS * 2; // back from elsewhere: a longer look
    scheduleSweep();
  }
});

/** What the middle of the table shows: the held trick while it is held, else the trick in play. */
function tableTrick() {
  if (!held) return { plays: view()?.trick || [], winner: null, sweep: null };
  const sweep = held.sweepAt === null ? null : { elapsed: Math.round(performance.now() - held.sweepAt), ms: SWEEP_MS };
  return { plays: held.plays, last: held.last, winner: held.winner, sweep, held: true };
}

// ---- the table fits the screen ---------------------------------------------------------------

let fitted = 0; // the felt height last set

/** Size the felt so that the table, your controls and your hand fit the window together. When
 * they cannot (a tall dock: a Bid Whist discard, a phone), the dock leaves the bottom of the
 * screen and follows the table instead of covering its bottom seats. */
function fitTable() {
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
  if (room < fitted || room - fitted >= 4) {
    fitted = room;
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
function keepDecisionInView() {
  const mine = state && state.you !== null && legal().length > 0 && room().status === "playing";
  if (mine) showTheTable();
}

let keeping = 0; // the frame that brings the decision back into view, once the felt has refit

/** After the window, the dock or what is above the table changes size, the felt fits again and,
 * a frame later (once the seats have moved with it), a decision of yours is still in view. */
function refit() {
  fitTable();
  cancelAnimationFrame(keeping);
  keeping = requestAnimationFrame(() => {
    fitTable();
    keepDecisionInView();
  });
}

window.addEventListener("resize", refit);
// The dock's height, and everything above the table (the header, a panel, the rules line, the
// score strip), changes the room the felt has: each change fits it again before the next frame.
const fitter = new ResizeObserver(refit);
for (const el of document.querySelectorAll(".topbar, #dock, .play-area > :not(#table, #dock)")) fitter.observe(el);

/** The turn timer's deadline for the seats to act, when the table has one running. */
function turnTimer() {
  const r = room();
  if (!r.turn_timer || !r.deadline || r.status !== "playing") return null;
  return { seats: view()?.to_act || [], deadline: r.deadline, total: r.turn_timer * 1000, slow: isSlow(r.turn_timer) };
}

const WARN_MS = 10000; // the countdown turns to a warning with this much time left

/** Your turn's countdown, beside "Your turn" in the action bar (when a clock runs for you),
 *  and the toggle of its warning sound. */
function turnClock() {
  const timer = turnTimer();
  if (!timer || !timer.seats.includes(state.you)) return null;
  const el = h("span", { class: "turn-clock", id: "turn-clock", "aria-hidden": "true" });
  showClock(el, timer);
  return [el, soundToggle()];
}

let spokenSecs = null; // the last count said to screen readers

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
  if (secs !== spokenSecs && (secs % 10 === 0 || secs <= 5)) {
    spokenSecs = secs;
    $("#clock-live").textContent = t(left <= WARN_MS ? "timer.hurry" : "timer.left", { n: secs });
  }
}

// The clocks tick between views: your countdown and each seat ring's spoken label.
setInterval(() => {
  const timer = state && turnTimer();
  const el = $("#turn-clock");
  if (el && timer) showClock(el, timer);
  else if (spokenSecs !== null) {
    spokenSecs = null;
    $("#clock-live").textContent = "";
  }
  if (!timer) return;
  const secs = Math.ceil(Math.max(0, timer.deadline - Date.now()) / 1000);
  const label = timer.slow ? timeLeft(timer.deadline) : t("timer.left", { n: secs });
  for (const ring of document.querySelectorAll(".seat-timer")) ring.setAttribute("aria-label", label);
}, 250);

/** The running score per team (team games) or per player. */
function scoreRows(v, nm) {
  return v.teams
    ? teamNames(v, nm).map((label, i) => ({ label, score: v.scores[v.teams[i][0]], you: v.teams[i].includes(state.you) }))
    : v.scores.map((score, s) => ({ label: seatLabel(nm, s), score, you: s === state.you }));
}

/** The score, always in sight above the table while a match is on. */
function renderScoreStrip() {
  const v = view();
  const box = $("#score-strip");
  box.hidden = !v || !Array.isArray(v.scores);
  if (box.hidden) return;
  const nm = names();
  const rows = scoreRows(v, nm);
  fill(box, rows.map((r) => h("span", { class: ["score-item", r.you && "you"] },
    h("span", { class: "score-name" }, r.label), " ", h("strong", {}, String(r.score)))),
  v.target ? h("span", { class: "score-target" }, t("scores.to", { n: v.target })) : null,
  h("a", { class: "score-more", href: "#sheet" }, t("scores.sheetLink")));
}

const clockMarks = new ClockMarks();  // the hand's moves the turn clock played

/** The current hand's moves in words, newest last (the panel is a polite live region). */
function renderMoveLog() {
  const v = view();
  const entries = v && Array.isArray(v.log) ? v.log : [];
  const current = names();
  const hand = Array.isArray(v?.history) ? v.history.length : 0;
  const items = [];
  clockMarks.see(entries, room()?.clock_played);
  for (const [i, e] of entries.entries()) {
    const nm = namesAtMove(room().seat_history, hand, i, current); // who sat there for this move
    const who = seatLabel(nm, e.seat);
    const line = t("log.line", { who, what: actionText(room().game, e.action) });
    items.push(h("li", {}, clockMarks.has(i) ? t("log.clock", { who, line }) : line));
    if (e.won !== undefined && e.won !== null) items.push(h("li", { class: "won" }, t("log.won", { who: seatLabel(nm, e.won) })));
  }
  const box = $("#move-log");
  if (box.childElementCount === items.length && box.textContent === items.map((i) => i.textContent).join("")) return;
  fill(box, items.length ? items : h("li", { class: "hint" }, t("log.empty")));
  box.scrollTop = box.scrollHeight;
}

function renderHeader() {
  const r = room();
  const status = t(`status.${r.status}`);
  const title = gameTitle(r.game, r.title);
  fill($("#room-title"), title, h("span", { class: "room-code" }, ` · ${r.code}`),
    h("span", { class: ["pill", `pill-${r.status}`] }, status),
    r.private ? h("span", { class: "pill" }, t("room.private")) : null);
  showSummary($("#table-rules"), r.game, r.options, r.title);
  const mine = state.you !== null && legal().length > 0;
  alerts.setTitle(mine ? t("title.yourTurn", { title }) : t("title.room", { title }));
}

/** The join panel of a device signed out from another one: it says so, and how to come back. */
function showSignedOut() {
  $("#join h2").textContent = t("devices.signedOut");
  if ($("#join-signed-out")) return;
  $("#join-form").before(h("p", { id: "join-signed-out" }, t("join.signedOut"), " ",
    h("a", { href: "/devices" }, t("join.linkAgain"))));
}

function renderJoin() {
  // A newcomer without a name may pick one at any time: to sit, take a bot's seat, or chat.
  $("#join").hidden = Boolean(identity.get());
}

function renderInfo() {
  const items = infoItems(room().game, view(), names());
  $("#info").hidden = items.length === 0;
  fill($("#info"), items.map(([label, value]) => h("span", { class: "info-item" }, h("span", { class: "info-label" }, `${label} `), value)));
}

// ---- rotated partners: moved from the finished table, each seat kept for its player a while ----

let moving = false; // this page is on its way to the next table
let heldTimer = null;

/** The rotated partner a seat is kept for now (room.partners until room.held_until), or null. */
function heldFor(seat) {
  const r = room();
  if (!r.partners || r.status !== "waiting" || Date.now() >= r.held_until) return null;
  const kept = r.partners.find((p) => p.seat === seat);
  return kept && !state.seats.some((s) => s.player_id === kept.player_id) ? kept : null;
}

/** The page draws again when the seats stop being kept (the host may then add bots). */
function watchHeld() {
  const r = room();
  clearTimeout(heldTimer);
  if (r.partners && r.status === "waiting" && Date.now() < r.held_until) heldTimer = setTimeout(render, r.held_until - Date.now() + 50);
}

/** "New partners: you are with Ana": the player across from you at a table of rotated partners. */
function partnersLine() {
  const r = room();
  if (!r.partners || r.status !== "waiting" || state.you === null || state.seats.length !== 4) return null;
  const across = (state.you + 2) % 4;
  const partner = r.partners.find((p) => p.seat === across);
  const name = partner ? partner.name : names()[across];
  return h("p", { class: "pill pill-turn", "data-partners": "", role: "status" }, t("rotate.partners", { name }));
}

/** A player of a finished table whose next table rotates partners goes there by themselves. */
function followRotation() {
  const r = room();
  if (moving || r.status !== "finished" || !r.next || !r.next_rotated || state.you === null) return;
  moving = true;
  toast(t("rotate.moving"));
  location.assign(roomUrl(r.next));
}

function seatExtras(s) {
  if (room().status !== "waiting") return null;
  const out = [];
  const kept = !s.name ? heldFor(s.seat) : null;
  if (kept) return h("div", { class: "seat-actions" }, h("span", { class: "hint", "data-kept": s.seat }, t("rotate.kept", { name: kept.name })));
  if (!s.name && state.me && state.you === null) {
    out.push(h("button", { type: "button", class: "btn btn-small btn-primary", "data-sit": s.seat, "data-key": `sit-${s.seat}` }, t("seat.sit")));
  }
  if (!s.name && state.is_host) {
    out.push(h("button", { type: "button", class: "btn btn-small", "data-bot": s.seat, "data-key": `bot-${s.seat}` }, t("button.addBot")));
  }
  if (s.bot && state.is_host) {
    out.push(h("button", { type: "button", class: "btn btn-small btn-ghost", "data-bot-remove": s.seat, "data-key": `unbot-${s.seat}`, "aria-label": t("seat.removeBotLabel", { n: s.seat + 1 }) }, t("seat.removeBot")));
  }
  return out.length ? h("div", { class: "seat-actions" }, out) : null;
}

/** The host hears of each new ask for a bot's seat (a live region), looking at the page or not. */
function announceRequests(events) {
  const asks = events.filter((e) => e.kind === "request");
  if (asks.length) $("#seat-live").textContent = asks.map((e) => t("offer.requestAnnounce", { name: e.who, n: e.seat + 1 })).join(" ");
}

/** The seats a spectator may have during play (their own back, a bot's, one at the next game)
 * and, for the host, who asks for a bot's seat. */
function renderSeatOffers() {
  const parts = [...hostRequests(), ...spectatorOffers()];
  const box = $("#seat-offers");
  box.hidden = parts.length === 0;
  fill(box, parts);
}

function hostRequests() {
  if (!state.is_host || room().status !== "playing") return [];
  return (room().seat_requests || []).map((q) => h("div", { class: "row seat-request" },
    h("span", {}, t("offer.request", { name: q.name, n: q.seat + 1 })),
    h("button", { type: "button", class: "btn btn-small btn-primary", "data-allow": q.player_id, "data-key": `allow-${q.player_id}` }, t("offer.allow")),
    h("button", { type: "button", class: "btn btn-small btn-ghost", "data-decline": q.player_id, "data-key": `decline-${q.player_id}` }, t("offer.decline"))));
}

function spectatorOffers() {
  const r = room();
  if (!state.me || state.you !== null || r.status === "waiting") return [];
  const nm = names();
  const mine = state.seats.find((s) => s.bot && s.left_by === state.me.id);
  if (r.status === "playing" && mine) {
    return [h("p", {}, t("offer.left", { n: mine.seat + 1 })),
      h("div", { class: "row" }, h("button", { type: "button", class: "btn btn-primary", "data-reclaim": "", "data-key": "reclaim" }, t("offer.reclaim")))];
  }
  const out = [];
  const bots = state.seats.filter((s) => s.bot);
  const asked = (r.seat_requests || []).find((q) => q.player_id === state.me.id);
  if (r.status === "playing" && asked) out.push(h("p", { class: "hint" }, t("offer.asked", { n: asked.seat + 1 })));
  else if (r.status === "playing" && bots.length) {
    out.push(h("p", {}, t(r.open_bot_seats ? "offer.takeText" : "offer.askText")),
      h("div", { class: "row" }, bots.map((s) => h("button", { type: "button", class: "btn btn-small", "data-take-seat": s.seat, "data-key": `take-${s.seat}` },
        t(r.open_bot_seats ? "offer.take" : "offer.ask", { who: nm[s.seat] })))));
  }
  if (!r.next && bots.length) {
    const joining = (r.joining || []).some((j) => j.player_id === state.me.id);
    out.push(joining ? h("p", { class: "hint" }, t("offer.joining"))
      : h("div", { class: "row" }, h("button", { type: "button", class: "btn", "data-join-next": "", "data-key": "join-next" }, t("offer.joinNext"))));
  }
  return out;
}

function renderTableArea() {
  const r = room();
  let center = null;
  if (r.status === "waiting") {
    const taken = state.seats.filter((s) => s.name).length;
    center = [h("div", { class: "felt-wait" }, t("wait.seated", { n: taken, m: state.seats.length })),
      h("div", { class: "felt-hint" }, taken < state.seats.length ? t("wait.invite") : t("wait.ready"))];
  }
  renderTable($("#table"), {
    game: r.game,
    view: view(),
    seats: state.seats,
    you: state.you,
    hostId: r.host,
    names: names(),
    seatExtras,
    center,
    trick: tableTrick(),
    timer: turnTimer(),
  });
}

function button(label, attrs) {
  return h("button", { type: "button", class: "btn", "data-control": "", disabled: pending, ...attrs }, label);
}

function renderControls() {
  const r = room();
  const box = $("#controls");
  if (r.status === "waiting") {
    const parts = [];
    const empty = state.seats.filter((s) => !s.name).length;
    if (!state.me) parts.push(h("p", {}, t("wait.watchingGiveName")));
    else if (state.you === null) parts.push(h("p", {}, empty ? t("wait.chooseSeat") : t("wait.full")));
    else parts.push(partnersLine(), h("p", {}, t("wait.youSit", { n: state.you + 1 })), h("div", { class: "row" }, h("button", { type: "button", class: "btn btn-ghost", "data-stand": "", "data-key": "stand" }, t("button.stand"))));
    if (state.is_host) {
      parts.push(h("div", { class: "row" },
        h("label", { class: "bot-level" }, t("wait.botLevel"), " ",
          h("select", { "data-bot-level": "", "data-key": "bot-level" },
            h("option", { value: "easy", selected: botLevel === "easy" }, t("level.easy")),
            h("option", { value: "strong", selected: botLevel === "strong" }, t("level.strong")))),
        h("button", { type: "button", class: "btn", "data-bot-next": "", "data-key": "bot-next", disabled: !state.seats.some((s) => !s.name && !heldFor(s.seat)) }, t("button.addBot")),
        h("button", { type: "button", class: "btn btn-primary", "data-start": "", "data-key": "start", disabled: empty > 0 }, t("button.start")),
        empty > 0 ? h("span", { class: "hint" }, t("wait.fill", { n: empty })) : null));
    } else {
      parts.push(h("p", { class: "hint" }, t("wait.host", { host: r.host_name || t("wait.theHost") })));
    }
    fill(box, parts);
    return;
  }
  if (r.status === "finished" || !view()) {
    fill(box);
    return;
  }
  const v = view();
  const moves = legal();
  if (state.you === null) {
    const behind = r.watch_delay === "trick" || r.watch_delay === "hand" ? t(`watch.behind.${r.watch_delay}`) : null;
    fill(box, h("p", { class: "hint" }, t("watch.inPlay")), behind ? h("p", { class: "hint", "data-watch-delay": r.watch_delay }, behind) : null, waitingLine(v));
    return;
  }
  if (state.seats[state.you]?.away) {
    // Drawn once while away: the button must not be replaced under a finger as the bots play on.
    if (!box.querySelector("[data-back]")) {
      fill(box, h("p", { class: "prompt" }, t("away.text")),
        h("div", { class: "row" }, h("button", { type: "button", class: "btn btn-primary", "data-back": "", "data-key": "back" }, t("away.back"))));
    }
    return;
  }
  if (moves.length === 0) {
    fill(box, waitingLine(v));
    return;
  }
  const game = r.game;
  const why = whyParts(game, v, moves);
  const out = [h("div", { class: "turn-banner" }, t("turn.yours")), turnClock(), h("p", { class: "prompt" }, promptFor(game, v, moves), why ? [" ", why.ask] : null)];
  if (why) out.push(why.text);
  const hint = descriptor(game).hint?.(v, moves);
  if (hint) out.push(h("p", { class: "hint" }, hint));
  // A game may draw some moves' buttons itself (Bid Whist's bids with a direction).
  const own = descriptor(game).controls?.(v, moves) || [];
  const handled = new Set(own.map((c) => c.index));
  const row = own.length ? own.map((c) => button(c.label, { ...c.attrs, "data-legal": c.index })) : bidButtons(game, moves);
  moves.forEach((a, i) => {
    if (handled.has(i)) return;
    if (a.type === "trump" && SUITS[a.suit]) {
      row.push(button([h("span", { class: `suit-${a.suit}`, "aria-hidden": "true" }, SUITS[a.suit].symbol), ` ${capital(suitName(a.suit))}`],
        { class: "btn btn-suit", "data-suit": a.suit, "data-legal": i, "data-key": `trump-${a.suit}` }));
    }
    if (a.type === "trump" && a.suit === "N") {  // Tarabish's no-trump call
      row.push(button(t("button.noTrump"), { class: "btn btn-suit", "data-suit": "N", "data-legal": i, "data-key": "trump-N" }));
    }
  });
  moves.forEach((a, i) => {
    if (handled.has(i)) return;
    if (a.type === "take") row.push(button(t("button.take"), { class: "btn btn-primary", "data-act": "take", "data-legal": i, "data-key": "take" }));
    if (a.type === "declare") row.push(button(descriptor(game).declareLabel?.(v) || t("button.declare"), { class: "btn btn-primary", "data-act": "declare", "data-legal": i, "data-key": "declare" }));
  });
  moves.forEach((a, i) => {
    if (handled.has(i)) return;
    if (a.type === "pass") row.push(button(passLabel(v, moves), { "data-act": "pass", "data-legal": i, "data-key": "pass" }));
  });
  if (handMode() === "select") {
    const hand = v.hand || [];
    const chosen = selection.map((i) => hand[i]);
    const need = selectCount();
    const kinds = new Set(moves.map((a) => a.type));
    if (kinds.has("discard")) {
      row.push(button(t("button.discard", { n: chosen.length, m: need }), { class: "btn btn-primary", "data-submit": "discard", "data-key": "submit-discard", disabled: pending || chosen.length !== need }));
    }
    if (kinds.has("ribs")) {
      row.push(button(t("button.ribs", { n: chosen.length }), { class: "btn btn-primary", "data-submit": "ribs", "data-key": "submit-ribs", disabled: pending || !findSelected("ribs", chosen) }));
    }
    if (kinds.has("pair")) {
      row.push(button(t("button.pair", { n: chosen.length }), { class: "btn btn-primary", "data-submit": "pair", "data-key": "submit-pair", disabled: pending || !findSelected("pair", chosen, false) }));
      if (moves.some((a) => a.type === "pair" && a.fold)) {
        row.push(button(t("button.fold"), { "data-submit": "fold", "data-key": "submit-fold", disabled: pending || !findSelected("pair", chosen, true) }));
      }
    }
    if (selection.length) row.push(h("button", { type: "button", class: "btn btn-ghost", "data-clear-selection": "", "data-key": "clear" }, t("button.clear")));
  }
  if (row.length) out.push(h("div", { class: "row actions" }, row));
  fill(box, out);
}

// More bids than this (Ribs at a big table: up to 35) are chosen with a stepper, so the
// controls stay a row high and the table above them stays in sight.
const MOST_BID_BUTTONS = 8;
let bidPick = null; // the bid the stepper shows

/** A button per legal bid; or, for a long run of bids, lower / "Bid n" / higher. */
function bidButtons(game, moves) {
  const bids = moves.map((a, i) => [a, i]).filter(([a]) => a.type === "bid");
  if (bids.length <= MOST_BID_BUTTONS) {
    return bids.map(([a, i]) => button(bidText(game, a.value), { class: "btn btn-bid", "data-bid": a.value, "data-legal": i, "data-key": `bid-${a.value}` }));
  }
  let k = bids.findIndex(([a]) => a.value === bidPick);
  if (k < 0) k = 0;
  bidPick = bids[k][0].value;
  const [a, i] = bids[k];
  const step = (by, label, key) => h("button", {
    type: "button", class: "btn btn-step", "data-bid-step": by, "data-key": key, "aria-label": label,
    disabled: pending || !bids[k + by],
  }, by < 0 ? "−" : "+");
  return [
    step(-1, t("bid.lower"), "bid-lower"),
    button(t("bid.make", { bid: bidText(game, a.value) }), { class: "btn btn-bid btn-primary", "data-bid": a.value, "data-legal": i, "data-key": `bid-${a.value}` }),
    step(1, t("bid.higher"), "bid-higher"),
  ];
}

function stepBid(by) {
  const bids = legal().filter((a) => a.type === "bid").map((a) => a.value);
  const k = Math.max(0, bids.indexOf(bidPick));
  bidPick = bids[Math.min(bids.length - 1, Math.max(0, k + by))];
  renderControls();
  $(`#controls [data-key="${by < 0 ? "bid-lower" : "bid-higher"}"]`)?.focus();
}

function waitingLine(v) {
  const who = (v.to_act || []).map((s) => seatLabel(names(), s));
  return h("p", { class: "waiting" }, who.length ? t("turn.waitingFor", { who: who.join(", ") }) : "");
}

// ---- why a card may not be played -----------------------------------------------------------

let cardWhy = null; // the reason last asked for, kept while the hand and the choices stay the same
const handKey = () => JSON.stringify([view()?.hand ?? null, legal()]);

/** The reason a card of the hand cannot be played now, in a line. */
function reasonFor(card) {
  const who = (view()?.to_act || []).map((s) => seatLabel(names(), s)).join(", ");
  return cardWhyLine(room().game, view(), legal(), card, who);
}

/** The reasons for the cards that cannot be played (one line each, said once). */
const reasonsFor = (blocked) => [...new Set(blocked.map((b) => reasonFor(b.dataset.card)).filter(Boolean))].join(" ");

/**
 * The line under the hand that says why a card cannot be played. A tap on a greyed card shows
 * its reason; while some cards may be played and others not, "Why not these cards?" gives the
 * same to the keyboard. Every greyed card is described by it, so a screen reader says why.
 */
function cardWhyParts(blocked, mixed) {
  if (state.you === null || room().status !== "playing" || pending || !blocked.length) return null;
  const shown = cardWhy?.key === handKey() ? cardWhy.text : null;
  for (const b of blocked) b.setAttribute("aria-describedby", "card-why");
  const text = h("p", { class: "why-text card-why", id: "card-why", hidden: !shown }, shown || reasonsFor(blocked));
  if (!mixed) return text;
  const ask = h("button", {
    type: "button", class: "btn btn-small btn-ghost why-ask", "aria-expanded": String(Boolean(shown)),
    "aria-controls": "card-why", "data-card-why": "", "data-key": "card-why",
  }, t("why.cards"));
  return h("div", { class: "card-why-row" }, ask, text);
}

/** Show (or, asked again, hide) why the greyed cards cannot be played; ``card`` names one. */
function showCardWhy(card) {
  const blocked = [...document.querySelectorAll("#hand button[data-card]:disabled")];
  const open = card === undefined && cardWhy?.key === handKey();
  cardWhy = open ? null : { key: handKey(), text: card === undefined ? reasonsFor(blocked) : reasonFor(card) };
  keepFocus(renderHand);
  $("#why-live").textContent = cardWhy ? cardWhy.text : "";
}

// A greyed card is a disabled button: it gets no click, but a tap on it still ends a pointer.
document.addEventListener("pointerup", (event) => {
  const card = event.target.closest?.("#hand button[data-card]");
  if (card?.disabled && !pending) showCardWhy(card.dataset.card);
});

/** The legal action of ``type`` that the chosen cards make (null if none). */
function findSelected(type, chosen, fold) {
  if (chosen.length !== 2) return null;
  for (const a of legal()) {
    if (a.type !== type) continue;
    if (fold !== undefined && Boolean(a.fold) !== fold) continue;
    if (!Array.isArray(a.cards)) return { type, cards: chosen, ...(fold !== undefined ? { fold } : {}) };
    if (sameCards(a.cards, chosen)) return a;
  }
  return null;
}

function renderHand() {
  const box = $("#hand");
  const v = view();
  if (!v || !Array.isArray(v.hand) || room().status === "finished") {
    fill(box);
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const mode = handMode();
  const playable = new Set(legal().filter((a) => a.type === "play").map((a) => a.card));
  const selectable = selectableRanks();
  const kitty = new Set(Array.isArray(v.kitty) ? v.kitty : []);
  const ahead = mode === "none" && mayChooseAhead(state, legal().length); // a card chosen before your turn
  const cards = v.hand.map((c, i) => {
    let disabled = true;
    let pressed = null;
    if (mode === "play") disabled = pending || !playable.has(c);
    else if (mode === "select") {
      pressed = selection.includes(i);
      disabled = pending || (selectable !== null && !selectable.has(c) && !pressed);
    } else if (ahead) {
      pressed = c === state.preselect;
      disabled = pending;
    }
    const btn = cardButton(c, i, { disabled, pressed });
    if (kitty.has(c)) btn.classList.add("from-kitty");
    return btn;
  });
  const parts = [h("h2", { class: "sr-only" }, t("hand.title")), h("div", { class: ["hand-cards", mode !== "none" && "hand-live"] }, cards)];
  parts.push(cardWhyParts(cards.filter((b) => b.disabled), mode === "play"));
  if (v.hand.length === 0) parts.push(h("p", { class: "hint" }, t("hand.empty")));
  if (kitty.size) parts.push(h("p", { class: "hint" }, t("hand.kittyMarked")));
  const faceDown = (Array.isArray(v.my_face_down) ? v.my_face_down : []).filter((f) => f.trick_number === v.trick_number);
  for (const f of faceDown) {
    parts.push(h("div", { class: "discards" }, h("span", { class: "hint" }, f.fold ? t("hand.folded") : t("hand.ribsDown")),
      (f.cards || []).map((c) => cardView(c, { small: true }))));
  }
  if (Array.isArray(v.discards) && v.discards.length) {
    parts.push(h("div", { class: "discards" }, h("span", { class: "hint" }, t("hand.discards")), v.discards.map((c) => cardView(c, { small: true }))));
  }
  if (Array.isArray(v.kitty_count) && state.you !== null && v.kitty_count[state.you]) {
    const k = v.kitty_count[state.you];
    parts.push(h("div", { class: "discards" }, h("span", { class: "hint" }, t("hand.kittyDown")),
      Array.from({ length: k }, () => cardBack({ small: true }))));
  }
  fill(box, parts);
  arrangeHand(box, room().game, v, code);
}

/** Cards that appear in some legal multi-card action, or null when any card may be chosen. */
function selectableRanks() {
  const lists = legal().filter((a) => a.type === "ribs" || a.type === "pair");
  if (!lists.length || lists.some((a) => !Array.isArray(a.cards))) return null;
  return new Set(lists.flatMap((a) => a.cards));
}

/** Who won and the final scores: by team in a team game, by player otherwise. */
function resultLines(res, teams) {
  const nm = names();
  const won = new Set(res.winners || []);
  const rows = teams
    ? teams.map((team) => ({ label: team.map((s) => seatLabel(nm, s)).join(" & "), score: res.scores[team[0]], won: team.some((s) => won.has(s)) }))
    : (res.scores || []).map((score, s) => ({ label: seatLabel(nm, s), score, won: won.has(s) }));
  const winners = rows.filter((r) => r.won).map((r) => r.label);
  return [
    h("p", { class: "result-winners" }, winners.length > 1 ? t("result.winners", { who: winners.join(", ") }) : t("result.winner", { who: winners[0] || "—" })),
    h("ol", { class: "result-scores" }, rows.sort((a, b) => b.score - a.score)
      .map((r) => h("li", { class: r.won ? "winner" : null }, `${r.label}: ${r.score}`))),
  ];
}

function renderResult() {
  const box = $("#result");
  const r = room();
  const res = state.result;
  if (r.status !== "finished" || !res) {
    fill(box);
    return;
  }
  const iWon = state.you !== null && (res.winners || []).includes(state.you);
  const parts = [h("h2", {}, iWon ? t("result.youWon") : t("result.over")), ...resultLines(res, view()?.teams)];
  const row = [];
  if (r.next) {
    row.push(h("a", { class: "btn btn-primary", href: roomUrl(r.next), "data-key": "next-room" }, t("result.next")));
  } else if (state.me && state.you !== null) {
    row.push(h("button", { type: "button", class: "btn btn-primary", "data-play-again": "", "data-key": "again" }, t("result.again")));
    if (view()?.teams && r.seats === 4) row.push(h("button", { type: "button", class: "btn", "data-play-again": "rotate", "data-key": "again-rotate" }, t("result.againRotate")));
  }
  if (res.match_id) row.push(h("a", { class: "btn", href: matchUrl(res.match_id), "data-key": "record" }, t("result.record")));
  else parts.push(h("p", { class: "hint" }, t("result.saving")));
  row.push(h("a", { class: "btn btn-ghost", href: "/" }, t("nav.lobby")));
  parts.push(h("div", { class: "row" }, row));
  fill(box, h("div", { class: "panel result-panel" }, parts));
}

function renderScores() {
  const v = view();
  const box = $("#scores");
  if (!v || !Array.isArray(v.scores)) {
    fill(box, h("p", { class: "hint" }, t("scores.notStarted")));
    return;
  }
  const nm = names();
  const rows = scoreRows(v, nm);
  const best = Math.max(...rows.map((r) => r.score));
  fill(box, h("table", { class: "scores" },
    h("tbody", {}, rows.map((r) => h("tr", { class: [r.you && "you", r.score === best && "leader"] },
      h("th", { scope: "row" }, r.label, r.you ? h("span", { class: "you-mark" }, ` ${t("scores.you")}`) : null), h("td", {}, String(r.score)))))),
  v.target ? h("p", { class: "hint" }, t("scores.firstTo", { n: v.target })) : null);
}

/** The last trick to show: this hand's, or once the next hand is dealt and nothing has been
 * played in it yet, the final trick of the hand before (with that hand's number). */
function lastTrickToShow(v) {
  if (!v) return { last: null };
  if (v.last_trick) return { last: v.last_trick };
  const history = Array.isArray(v.history) ? v.history : [];
  const entry = history[history.length - 1];
  return { last: finalTrickOf(entry), hand: entry ? entry.hand_number ?? entry.hand ?? history.length : null };
}

function renderLastTrick() {
  const v = view();
  const box = $("#last-trick");
  const { last, hand } = lastTrickToShow(v);
  const plays = last && (Array.isArray(last.cards) ? last.cards : Array.isArray(last.plays) ? last.plays : Array.isArray(last) ? last : null);
  if (!plays || plays.length === 0) {
    fill(box, h("p", { class: "hint" }, t("lastTrick.none")));
    return;
  }
  const nm = names();
  const before = hand ? h("p", { class: "hint lt-hand" }, t("lastTrick.ofHand", { n: hand })) : null;
  const ribs = last.ribs ? h("li", {}, h("span", { class: "lt-name" }, t("lastTrick.ribs")), h("span", { class: "lt-cards" }, playCards({ cards: last.ribs }, { small: true }))) : null;
  fill(box, before, h("ul", { class: "last-trick" }, ribs,
    plays.map((p) => h("li", { class: p.seat === last.winner ? "winner" : null },
      h("span", { class: "lt-name" }, seatLabel(nm, p.seat)),
      h("span", { class: "lt-cards" }, playCards(p, { small: true })),
      p.result || p.outcome ? h("span", { class: "hint" }, playResult(p.result || p.outcome)) : null))),
  last.winner != null ? h("p", { class: "hint" }, t("lastTrick.wonBy", { who: seatLabel(nm, last.winner) })) : null);
}

/** The sheet's seat names over the match: "Bot 4 → Dee" for a seat that changed hands. */
function sheetNames() {
  const bySeat = [];
  for (const o of room().seat_history || []) (bySeat[o.seat] ||= []).push(o);
  return seatNamesOverMatch(bySeat, names());
}

function renderSheet() {
  const v = view();
  const r = room();
  const box = $("#sheet");
  if (!v || !Array.isArray(v.history) || v.history.length === 0) {
    fill(box, h("p", { class: "hint" }, t("sheet.none")));
    return;
  }
  fill(box, scoreSheet(room().game, v.history, { names: sheetNames(), teams: v.teams, you: state.you,
    handLink: r.match_id ? (n) => `${matchUrl(r.match_id)}#hand-${n}` : null }));
  markSheetScroll();
}

/** A sheet wider than the sidebar says so: a line above it and shadows at the cut edges. */
function markSheetScroll() {
  const box = $("#sheet");
  const more = box.scrollWidth > box.clientWidth + 1;
  box.classList.toggle("sheet-scrolls", more);
  let cue = $("#sheet-more");
  if (more && !cue) {
    cue = h("p", { id: "sheet-more", class: "hint sheet-more" }, t("sheet.scrollCue"));
    box.before(cue);
  }
  if (cue) cue.hidden = !more;
}
new ResizeObserver(() => markSheetScroll()).observe($("#sheet"));

function renderFair() {
  const r = room();
  const box = $("#fair");
  if (!r.commitment) {
    fill(box, h("p", { class: "hint" }, t("fair.before")));
    return;
  }
  const parts = [h("p", { class: "hint" }, t("fair.explain")),
    h("div", { class: "hash-label" }, t("fair.commitment")), h("code", { class: "hash" }, r.commitment)];
  if (r.seed) {
    parts.push(h("div", { class: "hash-label" }, t("fair.seed")), h("code", { class: "hash" }, r.seed));
    const digest = digests.get(r.seed);
    if (digest === undefined) {
      digests.set(r.seed, null);
      sha256Hex(r.seed).then((hex) => { digests.set(r.seed, hex); render(); });
    } else if (digest) {
      parts.push(digest === r.commitment
        ? h("p", { class: "verify ok" }, t("fair.ok"))
        : h("p", { class: "verify bad" }, t("fair.bad")));
    }
  }
  fill(box, parts);
}

function renderChat() {
  const lines = state.chat || [];
  const log = $("#chat-log");
  const nm = names();
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 30;
  fill(log, lines.map((line) => h("li", {},
    h("span", { class: "chat-name" }, line.name || (line.seat != null ? seatLabel(nm, line.seat) : t("chat.watcher"))),
    h("span", { class: "chat-text" }, line.text))));
  if (lines.length !== chatSeen && (atBottom || chatSeen === 0)) log.scrollTop = log.scrollHeight;
  chatSeen = lines.length;
  if (chatRead === null || chatOpen) chatRead = lines.length;
  const unread = lines.length - chatRead;
  const badge = $("#chat-unread");
  badge.hidden = unread <= 0;
  badge.textContent = unread > 0 ? String(unread) : "";
  $("#chat-jump").setAttribute("aria-label", unread > 0 ? t("chat.unread", { n: unread }) : t("chat.title"));
  $("#chat-form").hidden = !state.me;
}

/** Open or close the chat's lines. They drop down over the page, so neither opening them nor
 * typing scrolls anything; closing gives the focus back to the button that opened them. */
function setChat(open) {
  chatOpen = open;
  $("#chat-drawer").classList.toggle("chat-open", open);
  $("[data-chat-close]").hidden = !open;
  $("#chat-jump").setAttribute("aria-expanded", String(open));
  const log = $("#chat-log");
  if (open) {
    log.tabIndex = 0; // a region the keyboard scrolls (Tab to it, then the arrow keys)
    log.scrollTop = log.scrollHeight;
    const input = $("#chat-text");
    (input.closest("form").hidden ? $("[data-chat-close]") : input).focus({ preventScroll: true });
    chatRead = (state?.chat || []).length;
  } else {
    log.removeAttribute("tabindex"); // not drawn: no Tab stops at it
    $("#chat-jump").focus({ preventScroll: true });
  }
  if (state) render();
}

// Esc closes the open chat wherever the focus is (its box, its lines or its button).
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && chatOpen) {
    event.preventDefault();
    setChat(false);
  }
});

function announceTurn() {
  const mine = state.you !== null && legal().length > 0 && room().status === "playing";
  if (mine && !wasMyTurn) {
    const live = $("#announce");
    live.textContent = "";
    setTimeout(() => { live.textContent = t("turn.announce", { prompt: promptFor(room().game, view(), legal()) }); }, 50);
  } else if (room().status === "finished" && wasMyTurn !== "over") {
    $("#announce").textContent = t("result.overAnnounce");
  }
  wasMyTurn = room().status === "finished" ? "over" : mine;
}

// ---- actions -----------------------------------------------------------------------------

function act(action) {
  if (pending || !conn) return;
  if (conn.act(action)) {
    pending = true;
    render();
  } else {
    toast(t("conn.notSent"), "error");
  }
}

function send(frame) {
  if (!conn || !conn.send(frame)) toast(t("conn.tryAgain"), "error");
}

function onCard(btn) {
  const index = Number(btn.dataset.index);
  const mode = handMode();
  if (mode === "play") {
    const a = legal().find((x) => x.type === "play" && x.card === btn.dataset.card);
    if (a) act(a);
  } else if (mode === "select") {
    const at = selection.indexOf(index);
    if (at >= 0) selection.splice(at, 1);
    else if (selection.length < selectCount()) selection.push(index);
    else toast(t("hand.unselectFirst", { n: selectCount() }));
    render();
  } else if (mayChooseAhead(state, legal().length)) chooseAhead(state, btn.dataset.card, send);
}

function submitSelection(kind) {
  const hand = view().hand || [];
  const chosen = selection.map((i) => hand[i]);
  if (kind === "discard") act({ type: "discard", cards: chosen });
  else if (kind === "ribs") {
    const a = findSelected("ribs", chosen);
    if (a) act(a);
  } else {
    const a = findSelected("pair", chosen, kind === "fold");
    if (a) act({ ...a, fold: kind === "fold" });
  }
}

async function copyInvite() {
  const url = inviteUrl();
  try {
    await navigator.clipboard.writeText(url);
    toast(t("invite.copied"));
  } catch {
    const input = $("#invite-url");
    input.focus();
    input.select();
    const ok = document.execCommand && document.execCommand("copy");
    toast(ok ? t("invite.copiedShort") : t("invite.selectIt"));
  }
}

async function playAgain(btn) {
  btn.disabled = true;
  const r = room();
  try {
    const made = await api("/api/rooms", {
      method: "POST",
      auth: true,
      body: { game: r.game, options: r.options, seats: r.seats, private: r.private, turn_timer: r.turn_timer || 0,
        open_bot_seats: Boolean(r.open_bot_seats), undo: r.undo || "ask", from: r.code,
        rotate_partners: btn.dataset.playAgain === "rotate" },
    });
    if (moving) return; // the finished table's view already took this page there (rotated partners)
    moving = true;
    location.href = roomUrl(made.code);
  } catch (err) {
    toast(errorText(err), "error");
    btn.disabled = false;
  }
}

document.addEventListener("change", (event) => {
  if (event.target.matches("[data-bot-level]")) botLevel = event.target.value === "strong" ? "strong" : "easy";
  else courtesyChange(event.target, send);
});

document.addEventListener("click", (event) => {
  if (held && event.target.closest("[data-skip-hold]")) {
    releaseHeld(); // a tap on the table clears the finished trick at once
    return;
  }
  const el = event.target.closest("button");
  if (!el || el.disabled) return;
  const d = el.dataset;
  if (courtesyClick(d, send)) return;
  if ("copyInvite" in d) copyInvite();
  else if ("chatJump" in d) setChat(!chatOpen);
  else if ("chatClose" in d) setChat(false);
  else if ("cardWhy" in d) showCardWhy();
  else if ("sit" in d) send({ type: "sit", seat: Number(d.sit) });
  else if ("stand" in d) send({ type: "stand" });
  else if ("back" in d) send({ type: "sit", seat: state.you });
  else if ("reclaim" in d) send({ type: "reclaim" });
  else if ("takeSeat" in d) send({ type: "take_seat", seat: Number(d.takeSeat) });
  else if ("joinNext" in d) send({ type: "join_next" });
  else if ("allow" in d) send({ type: "allow_seat", player_id: d.allow, allow: true });
  else if ("decline" in d) send({ type: "allow_seat", player_id: d.decline, allow: false });
  else if ("botNext" in d) {
    // Quick clicks before the table answers each ask for a different seat.
    const free = state.seats.find((s) => !s.name && !botAsked.has(s.seat) && !heldFor(s.seat));
    if (free) {
      botAsked.add(free.seat);
      send({ type: "bot", seat: free.seat, level: botLevel });
    }
  } else if ("botRemove" in d) send({ type: "bot", seat: Number(d.botRemove), remove: true });
  else if ("bot" in d) send({ type: "bot", seat: Number(d.bot), level: botLevel });
  else if ("start" in d) send({ type: "start" });
  else if ("card" in d) onCard(el);
  else if ("submit" in d) submitSelection(d.submit);
  else if ("bidStep" in d) stepBid(Number(d.bidStep));
  else if ("legal" in d) {
    const a = legal()[Number(d.legal)];
    if (a) act(a);
  } else if ("clearSelection" in d) {
    selection = [];
    render();
  } else if ("playAgain" in d) playAgain(el);
});

$("#chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("#chat-text");
  const text = input.value.trim();
  if (!text) return;
  send({ type: "chat", text });
  input.value = "";
});

$("#join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const me = await ensurePlayer($("#join-name").value);
    $("#join").hidden = true;
    sitOnArrival = true;
    conn.reopen(me.token);
  } catch (err) {
    toast(errorText(err), "error");
  }
});

// ---- connection ----------------------------------------------------------------------------

/** Sit in the first free seat of a waiting table, once (see ``sitOnArrival``). */
function takeASeat() {
  sitOnArrival = false;
  if (state.you !== null || room().status !== "waiting") return;
  const free = state.seats.find((s) => !s.name && !s.bot);
  if (free) send({ type: "sit", seat: free.seat });
}

function showStatus(status, message) {
  const el = $("#conn");
  const text = t(`conn.${status}`);
  el.className = `conn conn-${status}`;
  el.textContent = text;
  showPaused(status);
  if (status === "gone") showMissing(message);
}

/** While the line is down the table is paused: greyed, a banner says so while reconnecting, and
 * nothing on it or in the hand can be clicked (a click could not reach the table anyway). */
function showPaused(status) {
  const paused = status === "reconnecting" || status === "gone";
  document.body.classList.toggle("table-paused", paused);
  for (const id of ["#table", "#dock"]) $(id).inert = paused;
  let banner = $("#paused");
  if (status === "reconnecting" && !banner) {
    banner = h("p", { id: "paused", class: "paused-banner" }, t("conn.paused"));
    $("#table").before(banner);
  }
  if (banner) banner.hidden = status !== "reconnecting";
}

/** The match a table that has finished and closed since played there, if the server names
 * one to this browser's player (an old link then opens the match record). */
async function matchPlayedHere() {
  try {
    const found = await api(`/api/rooms/${encodeURIComponent(code)}/match`, { auth: true });
    return typeof found.match_id === "string" ? found.match_id : null;
  } catch {
    return null;
  }
}

let missingShown = false;

async function showMissing(message) {
  if (missingShown) return; // the first explanation stays
  missingShown = true;
  const played = state ? null : await matchPlayedHere();
  if (played) {
    location.replace(matchUrl(played));
    return;
  }
  const box = $("#missing");
  box.hidden = false;
  fill(box, h("p", {}, message), h("a", { class: "btn btn-primary", href: "/" }, t("room.backToLobby")));
  $("#room-title").textContent = t("room.notFound");
  if (!state) $("#table").hidden = true;
}

async function main() {
  $("#invite-url").value = inviteUrl();
  const me = identity.get();
  $("#join-name").value = me ? me.name : sessionStorage.getItem("felt.typedName") || ""; // typed in the lobby
  conn = new RoomConnection(code, {
    token: me ? me.token : null,
    onState: (next) => {
      state = next;
      pending = false;
      botAsked = new Set([...botAsked].filter((i) => next.seats[i] && !next.seats[i].name));
      render();
      watchHeld();
      followRotation();
      if (sitOnArrival && state.me) takeASeat();
    },
    onStatus: showStatus,
    onError: (frame) => {
      pending = false;
      botAsked = new Set();
      if (frame.code === "not_found") {
        showStatus("gone", t("room.noSuch", { code }));
        return;
      }
      if (frame.code === "unauthorized" && conn.sync.waiting) {
        // Refused while connecting: this device's token is not known here any more. One the
        // table took before was signed out from another device: the page says so.
        const signedOut = Boolean(conn.token);
        identity.clear();
        conn.token = null;
        if (signedOut) showSignedOut();
        renderJoin();
        if (!state) $("#join").hidden = false;
        if (signedOut) return toast(t("devices.signedOut"), "error");
      }
      toast(errorText(frame), "error");
      if (state) render();
    },
  });
  conn.open();
  setupRules(() => state && { game: room().game, phase: view() && view().phase, options: room().options });
}

main();
