// Ribs in the client: no trump, the leader marked, card points on each seat, the double
// trick counted, a finished trick shown as the rules resolve it, and a sheet of card points
// and game points per player.
import { t } from "../i18n.js";

// What became of each pair in a resolved trick (the engine's ``result``): it won, or it was beaten.
const OUTCOME = { beat: "won", double_match: "won", beaten: "beaten", returned: "beaten", taken: "beaten", folded: "folded" };

export default {
  name: "ribs",
  trump: false,
  trickCounts: false,
  suits: false, // ranks only: the hand is sorted by rank or by hand
  pairs: true, // each seat plays two cards: on a phone every pair has a column slot of its own

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
