// Bid Whist in the client: bids said as words, the contract instead of bids once won, and a
// sheet by team with each hand's contract and whether it was made. With the house options:
// bids that name a direction (uptown ↑, downtown ↓, no trump), the no-trump declarer's choice
// of direction, the contract's direction marked on the table, the sported kitty, and the
// sheet's direction and doubling.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import strings from "./strings.js";
import { SUITS, cardView, cardsText } from "../../cards.js";

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

const LEAST_CONTRACT = 4; // the least contract unless the view says (`min_bid`)
const JOKERS = new Set(["BJ", "LJ"]);

/** A bid in words: "Four", "Four downtown". */
function bidWords(value, direction) {
  const bid = bidWord(value);
  return direction ? `${bid} ${t(`bidWhist.direction.${direction}`)}` : bid;
}

/** The bidding: the others bid up (a higher number, or with directions the same number
 *  in a direction that outranks), the dealer takes or grants (or must take at the minimum,
 *  naming a direction). */
function biddingWhy(view, legal) {
  const kinds = new Set(legal.map((a) => a.type));
  if (kinds.has("take")) {
    if (kinds.has("pass")) return t("why.bidWhist.dealer");
    const bid = bidWord(view.min_bid ?? LEAST_CONTRACT);
    const named = legal.filter((a) => a.type === "take" && a.direction).map((a) => t(`bidWhist.direction.${a.direction}`));
    return named.length ? t("why.bidWhist.forcedDirection", { bid, directions: named.join(" / ") }) : t("why.bidWhist.forced", { bid });
  }
  if (view.high_bid == null || !kinds.has("pass")) return null;
  const bid = bidWords(view.high_bid, view.high_direction);
  if (!kinds.has("bid")) return t("why.bidWhist.top", { bid });
  const same = legal.filter((a) => a.type === "bid" && a.value === view.high_bid && a.direction);
  if (!same.length) return t("why.bidWhist.higher", { bid });
  const number = bidWord(view.high_bid);
  return t("why.bidWhist.outrank", { bid, number, same: same.map((a) => bidWords(a.value, a.direction)).join(" / ") });
}

/** After the auction: the kitty to discard (4 + jokers), a no-trump declarer's
 *  direction, and trump to name before a joker may be led. */
function declarerWhy(view, legal) {
  const kinds = new Set(legal.map((a) => a.type));
  if (kinds.has("discard")) {
    const count = legal.find((a) => a.type === "discard").count ?? view.kitty_size ?? 4;
    const jokers = view.jokers ?? 0;
    return jokers ? t("why.bidWhist.kittyJokers", { count, jokers }) : t("why.bidWhist.kitty", { count });
  }
  if (kinds.has("direction")) return t("why.bidWhist.chooseDirection");
  if (kinds.has("trump") && kinds.has("play")) {
    const hand = Array.isArray(view.hand) ? view.hand : [];
    return t(hand.some((c) => JOKERS.has(c)) ? "why.bidWhist.trumpBeforeJoker" : "why.bidWhist.trumpOrLead");
  }
  return null;
}

export default {
  name: "bid_whist",
  strings,
  // The summary's words for options that read with another (GET /api/games folds them): the
  // books as "to ±7", no trump with the directions.
  summary: {
    /** The bidding in a word: "uptown/downtown" or "uptown/downtown/no trump". */
    words: (key, options) => (key !== "directions" ? undefined
      : options.directions ? t(options.no_trump ? "summary.bid_whist.directionsNoTrump" : "summary.bid_whist.directions") : null),
    /** Thirteen books are played to plus or minus a mark: "to ±7". */
    target: (options) => (options.books === "thirteen" ? t("summary.toPlusMinus", { n: options.game_to }) : null),
  },
  why: (view, legal) => biddingWhy(view, legal) || declarerWhy(view, legal),
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
    if (action.type === "take" && !action.direction) return t("act.take");
    if (action.type === "discard") return Array.isArray(action.cards) ? t("act.discard", { cards: cardsText(action.cards) }) : t("act.discardHidden");
    if (!action.direction) return null;
    if (action.type === "bid") return t("act.bid", { bid: `${bidWord(action.value)} ${directionText(action.direction)}` });
    if (action.type === "take") return t("bidWhist.act.takeIn", { direction: directionText(action.direction) });
    if (action.type === "direction") return t("bidWhist.act.direction", { direction: directionText(action.direction) });
    return null;
  },

  /** The declarer discards as many cards as the kitty held; the dealer takes or grants. */
  prompt(view, legal) {
    const discard = legal.find((a) => a.type === "discard");
    if (discard) return t("prompt.discard", { n: discard.count ?? (discard.cards || []).length });
    if (legal.some((a) => a.type === "take")) return legal.some((a) => a.type === "pass") ? t("prompt.takeOrPass") : t("prompt.take");
    return null;
  },

  /** The dealer's pass grants the contract to the high bidder. */
  passLabel: (view, legal) => (legal.some((a) => a.type === "take") ? t("button.passGrant") : null),

  /** The kitty's discard: choose that many cards of the hand, then Discard. */
  select(view, legal) {
    const discard = legal.find((a) => a.type === "discard");
    if (!discard) return null;
    const count = discard.count ?? (discard.cards || []).length;
    return { count, selectable: null, submits: [{ key: "discard", primary: true,
      label: (chosen) => t("button.discard", { n: chosen.length, m: count }),
      move: (chosen) => (chosen.length === count ? { type: "discard", cards: chosen } : null) }] };
  },

  /** Taking the contract (the dealer's, at the high bid): its button. */
  moveButton(action) {
    if (action.type !== "take") return null;
    return { label: t("button.take"), attrs: { class: "btn btn-primary", "data-act": "take", "data-key": "take" } };
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
