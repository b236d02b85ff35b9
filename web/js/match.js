// /matches/{id}: the replay first (every hand face up, by action, trick or hand), then the
// result, the score sheet (each row opens the replay at its hand) and the seed check.
import { $, h, fill } from "./dom.js";
import { api, identity } from "./api.js";
import { Replay } from "./replay.js";
import { finalTrickOf, renderTable } from "./table.js";
import { cardView } from "./cards.js";
import { actionText, gameTitle, infoItems, seatLabel } from "./games.js";
import { scoreSheet } from "./sheet.js";
import { namesAtAction, occupantAt, seatNamesOverMatch } from "./occupants.js";
import { sha256Hex } from "./sha256.js";
import { t, translatePage, errorText } from "./i18n.js";
import { optionList, rulesSummary } from "./summary.js";
import { followYourTables } from "./attention.js";

translatePage();
// Your turn at one of your tables, told here too (web/js/attention.js).
if (identity.get()) followYourTables(() => api("/api/tables", { auth: true }).then((d) => d.tables || []), (name) => gameTitle(name));
const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
let record = null;
let steps = []; // [{view, seat, action}] : the deal, then one per action
let step = 0;
// Arrived by hand (a sheet link, Next/Previous hand): the step shows the new hand's deal, not
// the previous hand's final trick that its action also ended.
let atDeal = false;
let names = [];
let entry = null; // the game's entry in GET /api/games (its options schema...), null when unknown

/** The replay's positions as whole views (the server sends the deal, then a patch per action). */
function unpack(body) {
  if (Array.isArray(body.states)) return body.states;
  const replay = new Replay(body);
  return Array.from({ length: replay.length }, (_, i) => ({ ...replay.entry(i), view: replay.view(i) }));
}

const handOf = (v) => v?.hand_number ?? v?.hand ?? null;
const trickKey = (v) => JSON.stringify(v?.last_trick ?? null);

function renderSummary(title) {
  const winners = new Set(record.winners || []);
  const players = [...record.players].sort((a, b) => a.seat - b.seat);
  const when = record.finished_at ? new Date(record.finished_at).toLocaleString(document.documentElement.lang) : "";
  fill($("#summary"),
    h("p", {}, when ? t("match.summaryWhen", { title, n: players.length, when }) : t("match.summary", { title, n: players.length })),
    h("table", { class: "scores" }, h("tbody", {}, players.map((p) => h("tr", { class: winners.has(p.seat) ? "leader" : null },
      h("th", { scope: "row" }, p.bot ? t(p.level === "strong" ? "seat.strongBotName" : "seat.botName", { n: p.seat + 1 }) : p.name),
      h("td", {}, String(record.scores[p.seat])),
      h("td", {}, winners.has(p.seat) ? t("match.winner") : "")))),
    rulesBox()));
}

/** The match's rules: the one-line summary, then every option with its value (changed ones marked). */
function rulesBox() {
  const options = record.options || {};
  return h("section", { class: "match-rules", "aria-labelledby": "match-rules-h" },
    h("h3", { id: "match-rules-h" }, t("summary.allOptions")),
    h("p", { class: "rules-summary", "data-rules-summary": "" }, rulesSummary(record.game, options, entry)),
    h("dl", { class: "option-list" }, optionList(record.game, options, entry).map((o) => h("div", {
      class: o.changed ? "option-changed" : null, "data-option": o.key },
      h("dt", {}, o.label),
      h("dd", {}, o.value, o.changed ? h("span", { class: "pill" }, t("summary.changed")) : null)))));
}

/** The replay's heading line: the rules the replayed match was played under. */
function replayRules(options) {
  let line = $("#replay-rules");
  if (!line) {
    line = h("p", { id: "replay-rules", class: "rules-summary", "data-rules-summary": "" });
    $("#replay-h").after(line);
  }
  line.textContent = rulesSummary(record.game, options, entry);
}

async function renderFair() {
  const box = $("#fair");
  const seed = record.seed == null ? null : String(record.seed);
  fill(box, h("p", { class: "hint" }, t("fair.explainMatch")),
    h("div", { class: "hash-label" }, t("fair.commitment")), h("code", { class: "hash" }, record.commitment || "—"),
    h("div", { class: "hash-label" }, t("fair.seed")), h("code", { class: "hash" }, seed ?? "—"));
  if (seed && record.commitment) {
    const digest = await sha256Hex(seed);
    box.appendChild(digest === record.commitment
      ? h("p", { class: "verify ok" }, t("fair.verified"))
      : h("p", { class: "verify bad" }, t("fair.mismatch", { digest })));
  }
}

/** The sheet's seat names over the match: "Bot 4 → Dee" for a seat that changed hands. */
const sheetNames = () => seatNamesOverMatch(Object.fromEntries(record.players.map((p) => [p.seat, p.occupants])), names);

function renderSheet() {
  const last = steps.at(-1)?.view;
  const handLink = (n) => `#hand-${n}`;
  if (last && Array.isArray(last.history) && last.history.length) {
    fill($("#sheet"), scoreSheet(record.game, last.history, { names: sheetNames(), teams: last.teams, handLink }));
    return;
  }
  const hands = (record.hands || []).filter((x) => Array.isArray(x.scores));
  fill($("#sheet"), hands.length ? scoreSheet(record.game, hands.map((x, i) => ({ ...x, hand_number: i + 1 })), { names: sheetNames(), handLink })
    : h("p", { class: "hint" }, t("sheet.noneRecorded")));
}

/** The middle of the table: the trick in play, or the trick this action has just finished
 * (``hand``: the hand it belongs to, when that hand has just ended). */
function shownTrick(i) {
  const v = steps[i].view;
  if ((v.trick || []).length || i === 0) return { plays: v.trick || [], winner: null };
  const before = steps[i - 1].view;
  // The action that ends a hand shows its final trick from the new history entry: the view
  // itself may already be the next hand's deal.
  const history = v.history || [];
  const ended = history.length > (before.history || []).length ? history[history.length - 1] : null;
  const last = ended ? finalTrickOf(ended) : v.last_trick;
  const plays = last && (last.cards || last.plays);
  if (plays && (ended || trickKey(v) !== trickKey(before))) return { plays, last, winner: last.winner ?? null, held: true, hand: ended ? handOf(before) : null };
  return { plays: [], winner: null };
}

function renderStep() {
  step = Math.max(0, Math.min(step, steps.length - 1));
  const s = steps[step];
  const v = s.view;
  const total = steps.length - 1;
  // The action that ends a hand may already show the next hand's deal around its final trick:
  // the header names the hand whose trick is on the table, unless the step was reached by hand.
  const trick = atDeal ? { plays: [], winner: null } : shownTrick(step);
  const hand = atDeal ? handOf(v) : (trick.hand ?? handOf(v));
  $("#step-label").textContent = step === 0 ? t("replay.deal", { m: total }) : t("replay.action", { n: step, m: total, hand: hand ?? "–" });
  const here = namesAtAction(record.players, Math.max(0, step - 1)); // who sat where for this step's action
  $("#step-action").textContent = step === 0 ? t("replay.dealt") : t("log.line", { who: seatLabel(here, s.seat), what: actionText(record.game, s.action) });
  $("#step-range").max = String(total);
  $("#step-range").value = String(step);
  for (const b of document.querySelectorAll("[data-step]")) {
    const back = ["first", "prev", "prevTrick", "prevHand"].includes(b.dataset.step);
    b.disabled = back ? step === 0 : step === total;
  }
  fill($("#info"), infoItems(record.game, v, here).map(([label, value]) => h("span", { class: "info-item" }, h("span", { class: "info-label" }, `${label} `), value)));
  const seats = [...record.players].sort((a, b) => a.seat - b.seat)
    .map((p) => ({ ...occupantAt(p, Math.max(0, step - 1)), seat: p.seat, connected: true }));
  renderTable($("#table"), { game: record.game, view: v, seats, you: null, names: here, trick });
  renderHands(v);
}

function renderHands(v) {
  const hands = Array.isArray(v.hands) ? v.hands : [];
  const small = (list) => list.map((c) => cardView(c, { small: true }));
  const rows = hands.map((cards, seat) => {
    const kitty = Array.isArray(v.kitties) && v.kitties[seat]?.length
      ? h("span", { class: "lt-cards kitty" }, h("span", { class: "hint" }, t("replay.kitty")), small(v.kitties[seat]))
      : null;
    return h("li", { class: (v.to_act || []).includes(seat) ? "acting" : null },
      h("span", { class: "lt-name" }, seatLabel(names, seat)),
      h("span", { class: "lt-cards" }, cards.length ? small(cards) : h("span", { class: "hint" }, t("replay.noCards"))),
      kitty);
  });
  fill($("#hands"),
    h("h3", {}, t("replay.everyHand")),
    h("ul", { class: "hand-list" }, rows),
    Array.isArray(v.kitty) && v.kitty.length ? h("p", { class: "lt-cards" }, h("span", { class: "hint" }, t("replay.kittyAll")), small(v.kitty)) : null,
    Array.isArray(v.discards) && v.discards.length ? h("p", { class: "lt-cards" }, h("span", { class: "hint" }, t("replay.discards")), small(v.discards)) : null);
}

/** The first position of hand ``n`` (its deal), or null. */
function handStart(n) {
  const i = steps.findIndex((s) => String(handOf(s.view)) === String(n));
  return i < 0 ? null : i;
}

/** The next (dir 1) or previous (dir -1) step where a trick was finished or a hand began. */
function seek(dir, kind) {
  const same = kind === "hand" ? (a, b) => handOf(a) === handOf(b) : (a, b) => trickKey(a) === trickKey(b) && handOf(a) === handOf(b);
  if (dir > 0) {
    for (let i = step + 1; i < steps.length; i++) if (!same(steps[i].view, steps[i - 1].view)) return i;
    return steps.length - 1;
  }
  // Back: to the start of this trick or hand, or of the one before when already there.
  let i = step;
  while (i > 0 && same(steps[i].view, steps[i - 1].view)) i--;
  if (i === step && i > 0) {
    i -= 1;
    while (i > 0 && same(steps[i].view, steps[i - 1].view)) i--;
  }
  return i;
}

function go(where) {
  if (!steps.length) return;
  const moves = {
    first: () => 0, prev: () => step - 1, next: () => step + 1, last: () => steps.length - 1,
    nextTrick: () => seek(1, "trick"), prevTrick: () => seek(-1, "trick"),
    nextHand: () => seek(1, "hand"), prevHand: () => seek(-1, "hand"),
  };
  step = (moves[where] || (() => step))();
  atDeal = where === "nextHand" || where === "prevHand";
  renderStep();
}

function goToHash() {
  const m = /^#hand-(\d+)$/.exec(location.hash);
  if (!m || !steps.length) return;
  const at = handStart(m[1]);
  if (at === null) return;
  step = at;
  atDeal = true;
  renderStep();
  $("#replay-h").scrollIntoView({ block: "start" });
}

document.addEventListener("click", (event) => {
  const b = event.target.closest("[data-step]");
  if (b && !b.disabled) go(b.dataset.step);
});

document.addEventListener("keydown", (event) => {
  if (event.target.closest && event.target.closest("input, textarea, select")) return;
  const keys = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last", PageUp: "prevHand", PageDown: "nextHand", ArrowUp: "prevTrick", ArrowDown: "nextTrick" };
  const where = keys[event.key];
  if (where && steps.length) {
    event.preventDefault();
    go(where);
  }
});

window.addEventListener("hashchange", goToHash);

$("#step-range").addEventListener("input", (event) => {
  step = Number(event.target.value);
  atDeal = false;
  renderStep();
});

async function main() {
  let title = "";
  try {
    record = await api(`/api/matches/${encodeURIComponent(matchId)}`, { auth: true });
  } catch (err) {
    const box = $("#missing");
    box.hidden = false;
    fill(box, h("p", {}, err.status === 404 ? t("match.none") : errorText(err)), h("a", { class: "btn", href: "/history" }, t("history.title")));
    fill($("#summary"), h("p", { class: "hint" }, "—"));
    return;
  }
  try {
    entry = (await api("/api/games")).find((g) => g.name === record.game) || null;
    title = gameTitle(record.game, entry?.title);
  } catch {
    title = gameTitle(record.game);
  }
  names = [...record.players].sort((a, b) => a.seat - b.seat).map((p) => (p.bot ? t(p.level === "strong" ? "seat.strongBotName" : "seat.botName", { n: p.seat + 1 }) : p.name));
  $("#match-title").textContent = t("match.titleOf", { title });
  document.title = t("title.matchOf", { title });
  renderSummary(title);
  renderFair();
  try {
    const body = await api(`/api/matches/${encodeURIComponent(matchId)}/replay`, { auth: true });
    replayRules(body.options || record.options || {});
    steps = unpack(body);
    step = 0;
    renderStep();
  } catch (err) {
    fill($("#step-action"), t("replay.unavailable", { why: errorText(err) }));
  }
  renderSheet();
  goToHash();
}

main();
