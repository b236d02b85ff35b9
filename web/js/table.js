// The green table: seats around an ellipse (you at the bottom), the trick in the middle.
// Used by the live room and by the replay viewer; it renders only what it is given.
import { h, fill } from "./dom.js";
import { cardBack, cardText, cardView } from "./cards.js";
import { descriptor, seatNotes } from "./games.js";
import { t } from "./i18n.js";
import { timeLeft } from "./slowclock.js";
import { goalNotes } from "./needs.js";

/** The direction of seat ``seat`` from the middle, seen from ``base`` (at the bottom); the
 *  stylesheet turns it into a position with radii that suit the screen size. */
function place(seat, base, n) {
  const angle = angleOf((seat - base + n) % n, n);
  return { "--cx": Math.cos(angle).toFixed(4), "--cy": Math.sin(angle).toFixed(4) };
}

/** Clockwise on screen from the bottom: bottom, left, top, right. */
const angleOf = (r, n) => Math.PI / 2 + (r * 2 * Math.PI) / n;

/**
 * Where a seat's play goes on a phone with five seats or more, or in a game of pairs (two
 * cards a seat, named under them once the trick resolves) (felt.css ``.felt-cols``): in
 * one of three columns (--col: the seats on the left, those straight above or below, those
 * on the right), at a row (--row) in the order the seats have down the table. A column's rows
 * are a pair's height apart and the middle column's plays sit above and below the others',
 * so no play can cover another, which an ellipse this small could not promise.
 */
function playSlot(seat, base, n) {
  const sides = { "-1": [], 0: [], 1: [] };
  for (let r = 0; r < n; r++) {
    const a = angleOf(r, n);
    sides[Math.abs(Math.cos(a)) < 0.2 ? 0 : Math.sign(Math.cos(a))].push([Math.sin(a), r]);
  }
  const tallest = Math.max(sides[-1].length, sides[1].length);
  const r = (seat - base + n) % n;
  for (const [col, list] of Object.entries(sides)) {
    list.sort((x, y) => x[0] - y[0]);
    const k = list.findIndex(([, other]) => other === r);
    if (k < 0) continue;
    const row = Number(col) === 0 ? Math.sign(list[k][0]) * ((tallest + 1) / 2) : k - (list.length - 1) / 2;
    return { "--col": Number(col), "--row": row };
  }
  return { "--col": 0, "--row": 0 };
}

/** A finished hand's last trick, as its history entry keeps it (``{cards | plays, winner}``):
 *  ``last_trick``, or ``final_trick`` in a game whose ``last_trick`` means something else (a
 *  team's bonus for the last trick). */
export const finalTrickOf = (entry) => entry?.last_trick || entry?.final_trick || null;

/** The cards one seat has on the table in this trick (in a game of pairs: two cards, maybe face down). */
export function playCards(entry, { small = false } = {}) {
  if (typeof entry.card === "string") return [cardView(entry.card, { small })];
  if (Array.isArray(entry.cards)) return entry.cards.map((c) => (c === null ? cardBack({ small }) : cardView(c, { small })));
  const label = entry.folded ? t("table.foldedDown") : t("table.faceDown");
  const count = Number.isInteger(entry.count) ? entry.count : 2;
  return Array.from({ length: count }, () => cardBack({ small, label }));
}

/**
 * @param {HTMLElement} el
 * @param {{game: string, view: object|null, seats: object[], you: number|null, hostId?: string,
 *          names: string[], seatExtras?: Function, center?: Node[], caption?: string}} o
 */
export function renderTable(el, o) {
  const n = o.seats.length || 1;
  const base = o.you ?? 0;
  const view = o.view;
  const toAct = new Set(view?.to_act || []);
  const seatsLayer = o.seats.map((s) => {
    const seat = s.seat;
    const empty = !s.name;
    const badges = [];
    if (seat === o.you) badges.push(h("span", { class: "badge badge-you" }, t("badge.you")));
    if (s.player_id && s.player_id === o.hostId) badges.push(h("span", { class: "badge" }, t("badge.host")));
    if (s.bot) badges.push(h("span", { class: "badge badge-bot" }, s.level === "strong" ? t("badge.strongBot") : t("badge.bot")));
    if (s.away) badges.push(h("span", { class: "badge badge-away", title: t("badge.awayTitle") }, t("badge.away")));
    else if (!empty && !s.bot && s.connected === false) badges.push(h("span", { class: "badge badge-off" }, t("badge.offline")));
    if (view && view.dealer === seat) badges.push(h("span", { class: "badge badge-dealer", title: t("badge.dealer") }, t("badge.dealer")));
    badges.push(...goalNotes(o.game, view, seat));
    if (o.trick?.held && resolvedNext(o.game, o.trick, view) === seat) badges.push(h("span", { class: "badge badge-next" }, t("resolved.opensNext")));
    const count = view && Array.isArray(view.hand_counts) ? view.hand_counts[seat] : null;
    const acting = toAct.has(seat);
    return h(
      "section",
      {
        class: ["seat", empty && "seat-empty", seat === o.you && "seat-you", acting && "seat-acting"],
        "data-seat-box": seat,
        style: place(seat, base, n),
        "aria-label": t(acting ? "seat.labelActing" : "seat.label", { n: seat + 1, who: empty ? t("seat.emptyWord") : o.names[seat] || s.name }),
      },
      h("div", { class: "seat-name" },
        h("span", { class: ["dot", empty ? "dot-empty" : s.bot || s.connected !== false ? "dot-on" : "dot-off"], "aria-hidden": "true" }),
        h("span", { class: "seat-name-text" }, empty ? t("seat.empty") : o.names[seat] || s.name)),
      badges.length ? h("div", { class: "seat-badges" }, badges) : null,
      view ? h("div", { class: "seat-notes" },
        seatNotes(o.game, view, seat).map((t) => h("span", {}, t)),
        Number.isInteger(count) ? h("span", { class: "seat-count" }, t("seat.cards", { n: count })) : null) : null,
      acting ? h("div", { class: "seat-turn" }, seat === o.you ? t("turn.yours") : t("turn.toAct")) : null,
      acting ? timerRing(o.timer, seat) : null,
      o.seatExtras ? o.seatExtras(s) : null,
    );
  });

  const trick = resolvedTrick(o.game, o.trick || { plays: view?.trick || [], winner: null, sweep: null }, view);
  const trickLayer = trick.plays.map((entry, i) => playBox(entry, i, trick, base, n, o));
  const trickText = trick.plays
    .map((e) => `${o.names[e.seat] || t("seat.n", { n: e.seat + 1 })}: ${typeof e.card === "string" ? cardText(e.card) : Array.isArray(e.cards) ? e.cards.map((c) => (c ? cardText(c) : t("table.down"))).join(" ") : t("table.down")}${e.words ? ` (${e.words})` : ""}`)
    .join("; ") + (Number.isInteger(trick.next) ? `. ${t("resolved.opensNextLong", { who: o.names[trick.next] || t("seat.n", { n: trick.next + 1 }) })}` : "");

  fill(
    el,
    h("div", { class: ["felt", (n >= 5 || descriptor(o.game).pairs) && "felt-cols", n >= 7 && "felt-crowded", trick.held && "felt-held"], role: "group", "aria-label": t("table.label"), "data-skip-hold": trick.held ? "" : null },
      h("div", { class: "felt-center" },
        o.center || null),
      h("p", { class: "sr-only", "aria-live": "off" }, trickText ? t("table.onTable", { plays: trickText }) : t("table.empty")),
      trickLayer,
      seatsLayer),
  );
}

/**
 * A held trick as its game resolves it, when the game says more than who won (the
 * cards laid face down, face up, and each pair won or beaten), with ``next``: the seat that opens what follows.
 */
function resolvedTrick(game, trick, view) {
  const resolve = trick.held && trick.last ? descriptor(game).resolved : null;
  const plays = resolve ? resolve(trick.last) : null;
  if (!plays) return trick;
  return { ...trick, plays, next: resolvedNext(game, trick, view) };
}

/** The seat that opens the next bidding after a resolved trick (the view's opener), or null. */
function resolvedNext(game, trick, view) {
  return trick.held && trick.last && descriptor(game).resolved && Number.isInteger(view?.opener) ? view.opener : null;
}

/** A resolved pair's note: whose it is, a mark for won or beaten, and (room allowing) a word. */
function outcomeNote(entry, o) {
  const mark = entry.outcome === "won" ? "\u2713" : entry.outcome === "beaten" ? "\u2717" : null;
  return h("span", { class: "play-note play-note-outcome" },
    h("span", { class: "play-name" }, o.names[entry.seat] || t("seat.n", { n: entry.seat + 1 })),
    mark ? h("span", { class: "play-mark", "aria-hidden": "true" }, ` ${mark}`) : null,
    entry.short ? h("span", { class: "play-words" }, ` ${entry.short}`) : null);
}

/** One seat's cards in the middle; a held trick marks its winner, and sweeps toward them. */
function playBox(entry, i, trick, base, n, o) {
  if (entry.outcome !== undefined) {
    return h("div", {
      class: ["play", "play-resolved", descriptor(o.game).playClass?.(entry), entry.outcome && `play-${entry.outcome}`],
      style: { ...place(entry.seat, base, n), ...playSlot(entry.seat, base, n) },
      "data-trick-seat": entry.seat,
      "data-outcome": entry.outcome || "",
      title: `${o.names[entry.seat] || ""}${entry.words ? `: ${entry.words}` : ""}`,
    }, playCards(entry), outcomeNote(entry, o));
  }
  const won = trick.winner !== null && trick.winner !== undefined && entry.seat === trick.winner;
  const style = { ...place(entry.seat, base, n), ...playSlot(entry.seat, base, n) };
  if (trick.sweep && trick.winner !== null) {
    const to = place(trick.winner, base, n);
    Object.assign(style, { "--wx": to["--cx"], "--wy": to["--cy"], "animation-duration": `${trick.sweep.ms}ms`,
      "animation-delay": `-${Math.min(trick.sweep.elapsed, trick.sweep.ms)}ms` });
  }
  const note = entry.folded ? t("play.folded") : descriptor(o.game).playNote?.(entry) || (won ? t("play.won") : !trick.held && i === 0 ? t("play.led") : null);
  return h(
    "div",
    {
      class: ["play", entry.folded && "play-folded", won && "play-won", !trick.held && i === 0 && "play-led", trick.sweep && "play-sweep"],
      style,
      "data-trick-seat": entry.seat,
      title: o.names[entry.seat] || "",
    },
    playCards(entry),
    note ? h("span", { class: "play-note" }, note) : null,
  );
}

/** The turn timer's ring on the seat that must act: it empties as the deadline nears. */
function timerRing(timer, seat) {
  if (!timer || !timer.seats.includes(seat)) return null;
  const left = Math.max(0, timer.deadline - Date.now());
  const total = timer.total;
  const secs = Math.ceil(left / 1000);
  return h("div", {
    class: "seat-timer", role: "timer", "data-timer-seat": seat,
    "aria-label": timer.slow ? timeLeft(timer.deadline) : t("timer.left", { n: secs }),
    style: { "animation-duration": `${total}ms`, "animation-delay": `-${Math.max(0, total - left)}ms` },
  });
}
