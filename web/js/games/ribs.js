// Ribs in the client: no trump, the leader marked, card points on each seat, the double
// trick counted, and a sheet of card points and game points per player.
import { t } from "../i18n.js";

export default {
  name: "ribs",
  trump: false,
  trickCounts: false,

  seatNotes(view, seat) {
    const notes = [];
    if (view.leader === seat && view.phase !== "bidding") notes.push(t("note.leader"));
    if (Array.isArray(view.points)) notes.push(t("note.points", { n: view.points[seat] }));
    return notes;
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
