// Oh Hell in the client: the hook hint, the bids' total, and a sheet of bid / took / points.
import { t } from "../i18n.js";
import { SUITS } from "../cards.js";

export default {
  name: "oh_hell",
  bidPrompt: "prompt.ohHellBid",

  /** A line under the prompt: the dealer's forbidden bid. */
  hint(view, moves) {
    if (view.forbidden_bid == null || !moves.some((a) => a.type === "bid")) return null;
    return t("hint.hook", { n: view.forbidden_bid });
  },

  info(view) {
    if (!Array.isArray(view.bids) || !view.bids.some((b) => typeof b === "number")) return [];
    const total = view.bids.reduce((sum, b) => sum + (typeof b === "number" ? b : 0), 0);
    return [[t("info.bids"), t("info.bidsFor", { total, n: view.hand_size ?? "?" })]];
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
