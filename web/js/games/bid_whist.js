// Bid Whist in the client: bids said as words, the contract instead of bids once won, and a
// sheet by team with each hand's contract and whether it was made. With the house options:
// bids that name a direction (uptown ↑, downtown ↓, no trump), the no-trump declarer's choice
// of direction, the contract's direction marked on the table, the sported kitty, and the
// sheet's direction and doubling.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { SUITS, cardView } from "../cards.js";

const bidWord = (value) => (typeof value === "number" ? t(`bidWhist.bid.${value}`) : String(value));

const ARROWS = { uptown: "\u2191", downtown: "\u2193" };

// Ranks high to low: uptown high cards win; downtown low cards win and the ace stays best.
const UPTOWN = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"];
const DOWNTOWN = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

/** A hand's result on the sheet: a sweep is the seed's Chicago, or with house options a
 *  Boston (×4 when it scores four times); else made or set. */
export function sheetResult(e) {
  if (e.chicago) return e.house || e.quadrupled ? t(e.quadrupled ? "sheet.bostonQuadruple" : "sheet.boston") : t("sheet.chicago");
  return e.made ? t("sheet.made") : t("sheet.set");
}

/** A direction's word: "uptown", "downtown", "no trump". */
const directionWord = (d) => t(`bidWhist.direction.${d}`);

/** A direction as text with its arrow: "↑ uptown", "↓ downtown", "no trump" (↑/↓ once chosen). */
export function directionText(direction, play) {
  if (direction === "no_trump") return play ? `${directionWord("no_trump")} ${ARROWS[play]}` : directionWord("no_trump");
  return direction ? `${ARROWS[direction] || ""} ${directionWord(direction)}`.trim() : "";
}

/** The contract's direction, marked: an arrow up or down (hidden from screen readers) and words. */
function directionMark(direction, play) {
  const shown = direction === "no_trump" ? play : direction;
  return h("span", { class: ["bw-direction", `bw-${direction}`], "data-direction": direction, "data-play": shown || null },
    direction === "no_trump" ? h("span", { class: "bw-nt" }, directionWord("no_trump")) : null,
    shown ? h("span", { class: "bw-arrow", "aria-hidden": "true" }, `${ARROWS[shown]} `) : null,
    shown ? h("span", {}, directionWord(shown)) : null);
}

/** A bid button's label: "Four ↓ downtown" (the arrow is decoration). */
function bidLabel(value, direction) {
  const arrow = ARROWS[direction];
  return [`${bidWord(value)} `, arrow ? h("span", { class: "bw-arrow", "aria-hidden": "true" }, `${arrow} `) : null, directionWord(direction)];
}

/** The buttons of the moves that name a direction (null: the table's own buttons do). */
function controls(view, moves) {
  if (!(view.directions || []).length) return null;
  const out = [];
  moves.forEach((a, i) => {
    if (a.type === "bid" && a.direction) {
      out.push({ index: i, label: bidLabel(a.value, a.direction), attrs: {
        class: ["btn", "btn-bid", "bw-bid", `bw-${a.direction}`], "data-bid": a.value, "data-direction": a.direction,
        "data-key": `bid-${a.value}-${a.direction}` } });
    } else if (a.type === "take" && a.direction) {
      out.push({ index: i, label: t("bidWhist.takeIn", { direction: directionText(a.direction) }), attrs: {
        class: ["btn", "btn-primary", "bw-take"], "data-act": "take", "data-direction": a.direction, "data-key": `take-${a.direction}` } });
    } else if (a.type === "direction") {
      out.push({ index: i, label: directionText(a.direction), attrs: {
        class: ["btn", "btn-primary", "bw-choose"], "data-direction": a.direction, "data-key": `direction-${a.direction}` } });
    }
  });
  return out;
}

export default {
  name: "bid_whist",
  bidWord,
  hideBidsOnceContracted: true,
  controls,

  /** The hand's order: the contract's direction (downtown: A 2 3 … K), no trump in a no-trump
   *  contract; the jokers, when dealt, are the highest trumps (sorting.js). */
  cardOrder(view) {
    const downtown = (view.play_direction || view.direction) === "downtown";
    return { trump: view.direction === "no_trump" ? null : view.trump, ranks: () => (downtown ? DOWNTOWN : UPTOWN) };
  },

  /** The declarer's side "needs N more" of the tricks its contract asks (the view's
   *  tricks_needed), from the first lead to the hand's end. */
  goals(view) {
    if (view.contract == null || view.declarer == null || !Array.isArray(view.team_tricks) || view.tricks_needed == null) return [];
    if (view.phase !== "playing" && view.phase !== "trump_or_lead") return [];
    const side = (view.teams || [[0, 2], [1, 3]]).findIndex((team) => team.includes(view.declarer));
    if (side < 0) return [];
    return [{ seats: view.teams?.[side] || [view.declarer], need: view.tricks_needed, won: view.team_tricks[side], exact: false }];
  },

  /** A move that names a direction, in words: "bid Four ↓ downtown", "chose ↑ uptown". */
  actionText(action) {
    if (!action.direction) return null;
    if (action.type === "bid") return t("act.bid", { bid: `${bidWord(action.value)} ${directionText(action.direction)}` });
    if (action.type === "take") return t("bidWhist.act.takeIn", { direction: directionText(action.direction) });
    if (action.type === "direction") return t("bidWhist.act.direction", { direction: directionText(action.direction) });
    return null;
  },

  hint(view, moves) {
    if (moves.some((a) => a.type === "direction")) return t("bidWhist.chooseDirection");
    if (view.directions?.length && moves.some((a) => a.type === "bid")) return t("bidWhist.bidDirections");
    return null;
  },

  noTrumpText(view) {
    return view.direction === "no_trump" ? t("bidWhist.noTrump") : null;
  },

  info(view) {
    const items = [];
    if (view.direction) items.push([t("bidWhist.info.direction"), directionMark(view.direction, view.play_direction)]);
    else if (view.high_direction && view.high_bid != null) {
      items.push([t("bidWhist.info.highDirection"), directionText(view.high_direction)]);
    }
    if (Array.isArray(view.sported)) {
      items.push([t("bidWhist.info.sported"), h("span", { class: "bw-sported" }, view.sported.map((c) => cardView(c, { small: true })))]);
    }
    return items;
  },

  seatNotes(view, seat) {
    if (view.declarer === seat && view.direction) return [directionText(view.direction, view.play_direction)];
    const d = view.bid_directions?.[seat];
    if (d && view.contract == null) return [directionText(d)];
    return [];
  },

  sheet({ names, teams, teamLabel }) {
    return {
      about: (e) => {
        if (e.contract == null) return t("sheet.noContract");
        const trump = e.trump && SUITS[e.trump] ? ` ${SUITS[e.trump].symbol}` : e.trump ? ` ${t("bidWhist.noTrump")}` : "";
        const direction = e.direction ? ` ${directionText(e.direction, e.play_direction)}` : "";
        const factor = e.doubled ? " ×2" : "";
        const who = names[e.declarer] ?? "";
        return `${bidWord(e.contract)}${trump}${direction}${factor} · ${who} · ${sheetResult(e)}`;
      },
      groups: (teams || []).map((team, i) => ({
        label: teamLabel(i),
        cols: [
          { label: t("sheet.tricks"), cell: (e) => String(e.tricks?.[i] ?? "—") },
          { label: t("sheet.points"), score: (e) => e.team_scores?.[i] },
        ],
      })),
    };
  },
};
