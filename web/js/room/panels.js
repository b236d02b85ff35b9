// The bars and side panels of the table page: the header, the facts above the table, the
// score strip and scores, the move log, the last trick, the score sheet and the fair deal.
import { identity, matchUrl } from "../api.js";
import { ClockMarks } from "../clockmarks.js";
import { $, fill, h } from "../dom.js";
import { actionText, gameTitle, infoItems, seatLabel, teamNames } from "../games.js";
import { t } from "../i18n.js";
import { namesAtMove, seatNamesOverMatch } from "../occupants.js";
import { sha256Hex } from "../sha256.js";
import { scoreSheet } from "../sheet.js";
import { showSummary } from "../summary.js";
import { finalTrickOf, playCards } from "../table.js";
import { playResult } from "./controls.js";
import { alerts, legal, names, page, room, view, game } from "./page.js";
import { render } from "./table_view.js";

const digests = new Map(); // seed -> sha256 hex
/** The running score per team (team games) or per player. */
function scoreRows(v, nm) {
  return v.teams
    ? teamNames(v, nm).map((label, i) => ({ label, score: v.scores[v.teams[i][0]], you: v.teams[i].includes(page.state.you) }))
    : v.scores.map((score, s) => ({ label: seatLabel(nm, s), score, you: s === page.state.you }));
}

/** The score, always in sight above the table while a match is on. */
export function renderScoreStrip() {
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
export function renderMoveLog() {
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

/** The header: the game, the code, the status, the rules in a line, and the page's title. */
export function renderHeader() {
  const r = room();
  const status = t(`status.${r.status}`);
  const title = gameTitle(r.game, r.title);
  fill($("#room-title"), title, h("span", { class: "room-code" }, ` · ${r.code}`),
    h("span", { class: ["pill", `pill-${r.status}`] }, status),
    r.private ? h("span", { class: "pill" }, t("room.private")) : null);
  showSummary($("#table-rules"), r.game, r.options, r.title);
  const mine = page.state.you !== null && legal().length > 0;
  alerts.setTitle(mine ? t("title.yourTurn", { title }) : t("title.room", { title }));
}

/** The join panel of a device signed out from another one: it says so, and how to come back. */
export function showSignedOut() {
  $("#join h2").textContent = t("devices.signedOut");
  if ($("#join-signed-out")) return;
  $("#join-form").before(h("p", { id: "join-signed-out" }, t("join.signedOut"), " ",
    h("a", { href: "/devices" }, t("join.linkAgain"))));
}

/** The Join form, for a newcomer without a name. */
export function renderJoin() {
  // A newcomer without a name may pick one at any time: to sit, take a bot's seat, or chat.
  $("#join").hidden = Boolean(identity.get());
}

/** The facts above the table (phase, hand, trump, contract...). */
export function renderInfo() {
  const items = infoItems(room().game, view(), names());
  $("#info").hidden = items.length === 0;
  fill($("#info"), items.map(([label, value]) => h("span", { class: "info-item" }, h("span", { class: "info-label" }, `${label} `), value)));
}

/** The scores panel, the leader marked. */
export function renderScores() {
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

/** The last trick panel: each seat's cards, what became of them, and who won it. */
export function renderLastTrick() {
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
  const lead = game().lastTrickLead?.(last); // laid before the plays (face down in play)
  const first = lead ? h("li", {}, h("span", { class: "lt-name" }, lead.name), h("span", { class: "lt-cards" }, playCards({ cards: lead.cards }, { small: true }))) : null;
  fill(box, before, h("ul", { class: "last-trick" }, first,
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

/** The score sheet, hand by hand. */
export function renderSheet() {
  const v = view();
  const r = room();
  const box = $("#sheet");
  if (!v || !Array.isArray(v.history) || v.history.length === 0) {
    fill(box, h("p", { class: "hint" }, t("sheet.none")));
    return;
  }
  fill(box, scoreSheet(room().game, v.history, { names: sheetNames(), teams: v.teams, you: page.state.you,
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

/** The fair deal: the commitment, then the seed and whether it matches. */
export function renderFair() {
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

