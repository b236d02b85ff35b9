// Tarabish in the client: runs by name, and a sheet by team with card points, runs, bella,
// the last trick and bait; a no-trump hand says so where the trump suit would be.
import { t } from "../../i18n.js";
import strings from "./strings.js";
import { SUITS, cardText } from "../../cards.js";

const NATURAL = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]; // low to high, for runs
const TRUMP_RANKS = ["J", "9", "A", "10", "K", "Q", "8", "7", "6"]; // high to low, in trump
const PLAIN_RANKS = ["A", "10", "K", "Q", "J", "9", "8", "7", "6"]; // high to low, in the other suits

/** Whether key ``a`` beats key ``b``, compared item by item. */
function higher(a, b) {
  const at = a.findIndex((k, i) => k !== b[i]);
  return at >= 0 && a[at] > b[at];
}

/**
 * The best run in ``hand`` as the rules compare runs (docs/rules/tarabish.md): a fifty (4 or
 * more in a row in one suit) beats a twenty (3), then the higher top card, then a trump run.
 * ``{run: "fifty" | "twenty", cards}`` (low to high), or null without a run.
 */
export function bestRun(hand, trump) {
  let best = null;
  for (const suit of Object.keys(SUITS)) {
    const held = new Set((hand || []).filter((c) => c.slice(-1) === suit).map((c) => NATURAL.indexOf(c.slice(0, -1))));
    let start = 0;
    for (let i = 0; i <= NATURAL.length; i++) {
      if (i < NATURAL.length && held.has(i)) continue;
      const length = i - start;
      if (length >= 3) {
        const run = { run: length >= 4 ? "fifty" : "twenty", cards: NATURAL.slice(start, i).map((r) => `${r}${suit}`),
          key: [length >= 4 ? 50 : 20, i - 1, suit === trump ? 1 : 0] };
        if (!best || higher(run.key, best.key)) best = run;
      }
      start = i + 1;
    }
  }
  return best && { run: best.run, cards: best.cards };
}

const part = (e, i, key) => String(e.teams?.[i]?.[key] ?? "—");

/** The trump call: a dealer with no pass is forced (three passes, or three throw-ins). */
function callWhy(view, legal) {
  const kinds = new Set(legal.map((a) => a.type));
  if (!kinds.has("trump") || kinds.has("pass") || kinds.has("play")) return null;
  return (view.throw_ins ?? 0) >= 3 ? t("why.tarbish.throwIns", { n: view.throw_ins }) : t("why.tarbish.forced");
}

export default {
  name: "tarbish",
  strings,
  why: callWhy,

  /** The hand's order: the trump suit's own ranks (J 9 A 10 K Q 8 7 6), the others' A 10 K Q J. */
  cardOrder(view) {
    return { trump: view.no_trump ? null : view.trump, ranks: (suit, isTrump) => (isTrump ? TRUMP_RANKS : PLAIN_RANKS) };
  },

  // The trump line: "no trump" once it is called, else "not yet" (games.js's fallback).
  noTrumpText(view) {
    return view.no_trump ? t("info.noTrump") : null;
  },

  // "Declare runs" says which run: the best one in your hand, the one the table compares.
  declareLabel(view) {
    const best = bestRun(view.hand, view.no_trump ? null : view.trump);
    return best ? t("button.declareRun", { run: t(`run.${best.run}`), cards: best.cards.map(cardText).join(" ") }) : null;
  },

  /** Naming trump (or no trump), then declaring runs. */
  prompt(view, legal) {
    const pass = legal.some((a) => a.type === "pass");
    if (legal.some((a) => a.type === "trump" && a.suit === "N")) return pass ? t("prompt.trumpNoTrumpOrPass") : t("prompt.trumpOrNoTrump");
    if (legal.some((a) => a.type === "declare")) return t("prompt.declare");
    if (view.phase === "declaring" && pass) return t("prompt.nothingToDeclare");
    return null;
  },

  /** Passing while runs are declared: nothing to declare. */
  passLabel: (view) => (view.phase === "declaring" ? t("button.passDeclare") : null),

  actionText(action) {
    if (action.type === "trump" && action.suit === "N") return t("act.noTrump");
    if (action.type === "declare") return t("act.declare");
    return null;
  },

  /** The buttons of its own moves: calling no trump, declaring runs. */
  moveButton(action, view) {
    if (action.type === "trump" && action.suit === "N") {
      return { label: t("button.noTrump"), attrs: { class: "btn btn-suit", "data-suit": "N", "data-key": "trump-N" } };
    }
    if (action.type === "declare") {
      return { label: this.declareLabel(view) || t("button.declare"), attrs: { class: "btn btn-primary", "data-act": "declare", "data-key": "declare" } };
    }
    return null;
  },

  info(view) {
    return view.throw_ins ? [[t("info.thrownIn"), String(view.throw_ins)]] : [];
  },

  sheet({ names, teams, teamLabel }) {
    return {
      about: (e) => {
        const trump = e.trump && SUITS[e.trump] ? `${SUITS[e.trump].symbol} ` : e.no_trump ? `${t("info.noTrump")} · ` : "";
        const result = e.result === "half_bait" ? t("sheet.halfBait") : e.bait ? t("sheet.bait") : e.made ? t("sheet.made") : "";
        return `${trump}${names[e.caller] ?? ""}${result ? ` · ${result}` : ""}`;
      },
      groups: (teams || []).map((team, i) => ({
        label: teamLabel(i),
        cols: [
          { label: t("sheet.cardPoints"), cell: (e) => part(e, i, "card_points") },
          { label: t("sheet.runs"), cell: (e) => part(e, i, "runs") },
          { label: t("sheet.bella"), cell: (e) => part(e, i, "bella") },
          { label: t("sheet.lastTrick"), cell: (e) => part(e, i, "last_trick") },
          { label: t("sheet.points"), score: (e) => e.team_scores?.[i] ?? e.teams?.[i]?.scored },
        ],
      })),
    };
  },
};
