// The per-hand score sheet, shared by the table and the match page.
import { h } from "./dom.js";
import { handNote, seatLabel } from "./games.js";

/** The per-hand score sheet (also used by the match page). */
export function scoreSheet(game, history, teams, nm, totals) {
  const cols = teams ? teams.map((t) => ({ label: t.map((s) => seatLabel(nm, s)).join(" & "), seat: t[0] })) : nm.map((label, seat) => ({ label, seat }));
  const running = cols.map(() => 0);
  const width = cols.length + 1;
  const rows = history.flatMap((entry, i) => {
    const cells = cols.map((c, k) => {
      const add = Array.isArray(entry.scores) ? entry.scores[c.seat] : null;
      if (typeof add === "number") running[k] += add;
      return h("td", {}, h("span", { class: "sheet-add" }, typeof add === "number" ? (add > 0 ? `+${add}` : String(add)) : "—"),
        h("span", { class: "sheet-run" }, String(running[k])));
    });
    const note = handNote(game, entry, nm);
    return [
      h("tr", { class: "sheet-hand" }, h("th", { scope: "row" }, String(entry.hand_number ?? entry.hand ?? i + 1)), cells),
      note ? h("tr", { class: "sheet-note-row" }, h("td", { colspan: width, class: "sheet-note" }, note)) : null,
    ];
  });
  return h("table", { class: "sheet" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), cols.map((c) => h("th", { scope: "col" }, c.label)))),
    h("tbody", {}, rows),
    totals ? h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, "Total"), cols.map((c) => h("td", {}, String(totals[c.seat]))))) : null);
}
