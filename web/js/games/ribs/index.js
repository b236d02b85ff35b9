// Ribs in the client: no trump, the leader marked, card points on each seat, the double
// trick counted, a finished trick shown as the rules resolve it, and a sheet of card points
// and game points per player.
import { h } from "../../dom.js";
import { has, t } from "../../i18n.js";
import { cardView, cardsText } from "../../cards.js";
import strings from "./strings.js";

// What became of each pair in a resolved trick (the engine's ``result``): it won, or it was beaten.
const OUTCOME = { beat: "won", double_match: "won", beaten: "beaten", returned: "beaten", taken: "beaten", folded: "folded" };

/** The opener must bid, raises go up by one, the Leader lays the Ribs, one fold a hand. */
function ribsWhy(view, legal) {
  const kinds = new Set(legal.map((a) => a.type));
  if (kinds.has("ribs")) return t("why.ribs.leader");
  if (kinds.has("pair")) return legal.some((a) => a.fold) ? t("why.ribs.mayFold") : t("why.ribs.folded");
  if (kinds.has("bid") && !kinds.has("pass")) return t("why.ribs.open", { n: view.min_bid ?? 2 });
  if (kinds.has("bid")) return t("why.ribs.raise", { high: view.high_bid, n: (view.high_bid ?? 0) + 1 });
  if (kinds.has("pass")) return t("why.ribs.most", { n: view.max_bid });
  return null;
}

/** Whether two lists hold the same cards, in any order. */
function sameCards(a, b) {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((c, i) => c === y[i]);
}

/** The legal move of ``type`` the two chosen cards make (null if none); ``fold`` for a pair. */
function chosenMove(legal, type, chosen, fold) {
  if (chosen.length !== 2) return null;
  for (const a of legal) {
    if (a.type !== type) continue;
    if (fold !== undefined && Boolean(a.fold) !== fold) continue;
    if (!Array.isArray(a.cards)) return { type, cards: chosen, ...(fold !== undefined ? { fold } : {}) };
    if (sameCards(a.cards, chosen)) return a;
  }
  return null;
}

/** A pair played face up or folded face down, from the two chosen cards (null if none). */
function pairMove(legal, chosen, fold) {
  const a = chosenMove(legal, "pair", chosen, fold);
  return a && { ...a, fold };
}

export default {
  name: "ribs",
  strings,
  why: ribsWhy,
  trump: false,
  claims: false, // two cards a seat and a bid before every trick: no claims
  oneCard: false, // every move is a pair or a bid: no card chosen ahead, none forced
  trickCounts: false,
  suits: false, // ranks only: the hand is sorted by rank or by hand
  pairs: true, // each seat plays two cards: on a phone every pair has a column slot of its own

  /** The Leader lays the Ribs; the others play a pair face up or fold it. */
  prompt(view, legal) {
    if (legal.some((a) => a.type === "ribs")) return t("prompt.ribs");
    if (legal.some((a) => a.type === "pair")) return legal.some((a) => a.type === "pair" && a.fold) ? t("prompt.pairOrFold") : t("prompt.pair");
    return null;
  },

  /** Two cards are chosen from the hand, then laid as the Ribs, played face up or folded. */
  select(view, legal) {
    const lists = legal.filter((a) => a.type === "ribs" || a.type === "pair");
    if (!lists.length) return null;
    const submits = [];
    if (lists.some((a) => a.type === "ribs")) {
      submits.push({ key: "ribs", primary: true, label: (chosen) => t("button.ribs", { n: chosen.length }), move: (chosen) => chosenMove(legal, "ribs", chosen) });
    }
    if (lists.some((a) => a.type === "pair")) {
      submits.push({ key: "pair", primary: true, label: (chosen) => t("button.pair", { n: chosen.length }), move: (chosen) => pairMove(legal, chosen, false) });
      if (lists.some((a) => a.fold)) submits.push({ key: "fold", label: () => t("button.fold"), move: (chosen) => pairMove(legal, chosen, true) });
    }
    const open = lists.some((a) => !Array.isArray(a.cards)); // any two cards of the hand
    return { count: 2, selectable: open ? null : new Set(lists.flatMap((a) => a.cards)), submits };
  },

  /** Under the hand: your Ribs or your folded pair, face down, in this trick. */
  handNotes(view) {
    const faceDown = (Array.isArray(view.my_face_down) ? view.my_face_down : []).filter((f) => f.trick_number === view.trick_number);
    return faceDown.map((f) => h("div", { class: "discards" }, h("span", { class: "hint" }, f.fold ? t("hand.folded") : t("hand.ribsDown")),
      (f.cards || []).map((c) => cardView(c, { small: true }))));
  },

  actionText(action) {
    if (action.type === "ribs") return Array.isArray(action.cards) ? t("act.ribs", { cards: cardsText(action.cards) }) : t("act.ribsHidden");
    if (action.type === "pair") return action.fold ? t("act.fold") : t("act.pair", { cards: cardsText(action.cards) });
    return null;
  },

  /** The Ribs on the table: marked, and said as such. */
  playClass: (entry) => (entry.ribs ? "play-ribs" : null),
  playNote: (entry) => (entry.ribs ? t("play.ribs") : null),

  /** The last trick's Ribs, first in its list, and what became of each pair in a word. */
  lastTrickLead: (last) => (last.ribs ? { name: t("lastTrick.ribs"), cards: last.ribs } : null),
  resultWord: (result) => (has(`ribs.result.${result}`) ? t(`ribs.result.${result}`) : null),

  seatNotes(view, seat) {
    const notes = [];
    if (view.leader === seat && view.phase !== "bidding") notes.push(t("note.leader"));
    if (Array.isArray(view.points)) notes.push(t("note.points", { n: view.points[seat] }));
    return notes;
  },

  /**
   * A resolved trick (the view's ``last_trick`` or a hand's ``final_trick``) as its rules
   * resolve it: the Leader's Ribs face up first, then every pair in play order, each with
   * what became of it (``outcome``: won, beaten or folded; ``short`` and ``words``: in a
   * word, and in a sentence).
   */
  resolved(last) {
    if (!last || !Array.isArray(last.ribs) || !Array.isArray(last.plays)) return null;
    const ribsResult = last.double_match != null ? "ribs_taken" : last.made ? "ribs_made" : "ribs_lost";
    const said = { bid: last.bid, n: last.beaten_points ?? 0 };
    const ribs = { seat: last.leader, cards: last.ribs, ribs: true, folded: false, result: ribsResult,
      outcome: last.made ? "won" : "beaten", short: t(`ribs.short.${ribsResult}`, said), words: t(`ribs.outcome.${ribsResult}`, said) };
    const plays = last.plays.map((p) => ({ ...p, outcome: OUTCOME[p.result] || null,
      short: p.result ? t(`ribs.result.${p.result}`) : null, words: p.result ? t(`ribs.outcome.${p.result}`) : null }));
    return [ribs, ...plays];
  },

  info(view) {
    return view.trick_number ? [[t("info.trick"), t("info.nOfM", { n: view.trick_number, m: 4 })]] : [];
  },

  sheet({ names }) {
    return {
      about: (e) => t("sheet.discarded", { n: e.discarded ?? 0 }),
      groups: names.map((label, seat) => ({
        label,
        cols: [
          { label: t("sheet.cardPointsShort"), cell: (e) => String(e.points?.[seat] ?? "—") },
          { label: t("sheet.gamePoints"), score: (e) => e.scores?.[seat] },
        ],
      })),
    };
  },
};
