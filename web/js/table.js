// The green table: seats around an ellipse (you at the bottom), the trick in the middle.
// Used by the live room and by the replay viewer; it renders only what it is given.
import { h, fill } from "./dom.js";
import { cardBack, cardText, cardView } from "./cards.js";
import { seatNotes } from "./games.js";

/** Where seat ``seat`` sits, in percent of the table box, seen from ``base`` (at the bottom). */
/** The direction of seat ``seat`` from the middle, seen from ``base`` (at the bottom); the
 *  stylesheet turns it into a position with radii that suit the screen size. */
function place(seat, base, n) {
  const r = (seat - base + n) % n;
  const angle = Math.PI / 2 + (r * 2 * Math.PI) / n; // clockwise on screen: bottom, left, top, right
  return { "--cx": Math.cos(angle).toFixed(4), "--cy": Math.sin(angle).toFixed(4) };
}

/** The cards one seat has on the table in this trick (Ribs: two cards, maybe face down). */
export function playCards(entry, { small = false } = {}) {
  if (typeof entry.card === "string") return [cardView(entry.card, { small })];
  if (Array.isArray(entry.cards)) return entry.cards.map((c) => (c === null ? cardBack({ small }) : cardView(c, { small })));
  const label = entry.folded ? "folded cards, face down" : "cards face down";
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
    if (seat === o.you) badges.push(h("span", { class: "badge badge-you" }, "You"));
    if (s.player_id && s.player_id === o.hostId) badges.push(h("span", { class: "badge" }, "Host"));
    if (s.bot) badges.push(h("span", { class: "badge badge-bot" }, s.level === "strong" ? "Strong bot" : "Bot"));
    if (s.away) badges.push(h("span", { class: "badge badge-away", title: "Disconnected: a bot plays until they return" }, "Away · bot playing"));
    else if (!empty && !s.bot && s.connected === false) badges.push(h("span", { class: "badge badge-off" }, "Offline"));
    if (view && view.dealer === seat) badges.push(h("span", { class: "badge badge-dealer", title: "Dealer" }, "Dealer"));
    const count = view && Array.isArray(view.hand_counts) ? view.hand_counts[seat] : null;
    const acting = toAct.has(seat);
    return h(
      "section",
      {
        class: ["seat", empty && "seat-empty", seat === o.you && "seat-you", acting && "seat-acting"],
        "data-seat-box": seat,
        style: place(seat, base, n),
        "aria-label": `Seat ${seat + 1}: ${empty ? "empty" : s.name}${acting ? ", to act" : ""}`,
      },
      h("div", { class: "seat-name" },
        h("span", { class: ["dot", empty ? "dot-empty" : s.bot || s.connected !== false ? "dot-on" : "dot-off"], "aria-hidden": "true" }),
        h("span", { class: "seat-name-text" }, empty ? "Empty seat" : s.name)),
      badges.length ? h("div", { class: "seat-badges" }, badges) : null,
      view ? h("div", { class: "seat-notes" },
        seatNotes(o.game, view, seat).map((t) => h("span", {}, t)),
        Number.isInteger(count) ? h("span", { class: "seat-count" }, `${count} card${count === 1 ? "" : "s"}`) : null) : null,
      acting ? h("div", { class: "seat-turn" }, seat === o.you ? "Your turn" : "To act") : null,
      o.seatExtras ? o.seatExtras(s) : null,
    );
  });

  const trickLayer = (view?.trick || []).map((entry) =>
    h(
      "div",
      {
        class: ["play", entry.folded && "play-folded"],
        style: place(entry.seat, base, n),
        "data-trick-seat": entry.seat,
        title: o.names[entry.seat] || "",
      },
      playCards(entry),
      entry.folded ? h("span", { class: "play-note" }, "folded") : entry.ribs ? h("span", { class: "play-note" }, "the Ribs") : null,
    ),
  );

  const trickText = (view?.trick || [])
    .map((e) => `${o.names[e.seat] || `Seat ${e.seat + 1}`}: ${typeof e.card === "string" ? cardText(e.card) : Array.isArray(e.cards) ? e.cards.map((c) => (c ? cardText(c) : "face down")).join(" ") : "face down"}`)
    .join("; ");

  fill(
    el,
    h("div", { class: ["felt", n >= 7 && "felt-crowded"], role: "group", "aria-label": "Card table" },
      h("div", { class: "felt-center" },
        o.center || null),
      h("p", { class: "sr-only", "aria-live": "off" }, trickText ? `On the table: ${trickText}` : "No cards on the table."),
      trickLayer,
      seatsLayer),
  );
}
