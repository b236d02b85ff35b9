// Oh Hell in the client: the hook hint, the bids' total, the blind hand's cards, no trump,
// and a sheet of bid / took / points.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import strings from "./strings.js";
import { SUITS, cardView } from "../../cards.js";

/** The bidding: the hook keeps the dealer off one number. */
function hookWhy(view, legal) {
  if (view.forbidden_bid == null || !legal.some((a) => a.type === "bid")) return null;
  return t("why.hook", { n: view.forbidden_bid, size: view.hand_size ?? "?" });
}

export default {
  name: "oh_hell",
  strings,
  why: hookWhy,
  bidPrompt: "prompt.ohHellBid",
  bidBar: true, // the bids' total against the tricks, and the hook's forbidden bid (bidbar.js)

  /** Each seat "needs N more" of its bid: exactly its bid, so one trick over is a set. */
  goals(view) {
    if (view.phase !== "playing" || !Array.isArray(view.bids) || !Array.isArray(view.tricks_won)) return [];
    return view.bids.flatMap((bid, seat) => (typeof bid === "number" ? [{ seats: [seat], need: bid, won: view.tricks_won[seat] ?? 0, exact: true }] : []));
  },

  /** A line under the prompt: the dealer's forbidden bid. */
  hint(view, moves) {
    if (view.forbidden_bid == null || !moves.some((a) => a.type === "bid")) return null;
    return t("hint.hook", { n: view.forbidden_bid });
  },

  /** A dealt hand without a trump suit is played at no trump (the trump modes' no-trump hands). */
  noTrumpText(view) {
    return view.phase && view.phase !== "over" ? t("info.noTrump") : null;
  },

  info(view, names) {
    const items = [];
    if (Array.isArray(view.blind_cards)) {
      // The blind hand: every other seat's card, never this seat's own (null) until bidding ends.
      const cards = view.blind_cards.flatMap((card, seat) =>
        card ? [h("span", { class: "blind-card" }, `${names?.[seat] || t("seat.n", { n: seat + 1 })} `, cardView(card, { small: true }))] : []);
      items.push([t("info.blindCards"), h("span", {}, ...cards)]);
    }
    if (Array.isArray(view.bids) && view.bids.some((b) => typeof b === "number")) {
      const total = view.bids.reduce((sum, b) => sum + (typeof b === "number" ? b : 0), 0);
      items.push([t("info.bids"), t("info.bidsFor", { total, n: view.hand_size ?? "?" })]);
    }
    return items;
  },

  /** The sheet: per player, what they bid, what they took, and the points it made. */
  sheet({ names }) {
    return {
      about: (e) => `${t("sheet.cardsN", { n: e.hand_size })}${e.trump && SUITS[e.trump] ? ` · ${SUITS[e.trump].symbol}` : ""}`,
      groups: names.map((label, seat) => ({
        label,
        cols: [
          { label: t("sheet.bid"), cell: (e) => String(e.bids?.[seat] ?? "—") },
          { label: t("sheet.took"), cell: (e) => String(e.tricks_won?.[seat] ?? "—"), mark: (e) => e.bids?.[seat] === e.tricks_won?.[seat] },
          { label: t("sheet.points"), score: (e) => e.scores?.[seat] },
        ],
      })),
    };
  },
};
