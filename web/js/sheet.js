// The per-hand score sheet, shared by the table and the match page: its columns come from the
// game's descriptor (bid / took / points per player, card points, runs... by team).
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { descriptor, seatLabel } from "./games.js";

/** "Us" and "Them" for a seated player in a team game, else "Team 1"; the names in the title. */
export function teamLabels(teams, names, you) {
  return (teams || []).map((team, i) => {
    const who = team.map((s) => seatLabel(names, s)).join(" & ");
    if (you === null || you === undefined) return { short: t("team.n", { n: i + 1 }), full: who };
    return { short: team.includes(you) ? t("team.us") : t("team.them"), full: who };
  });
}

/**
 * @param {string} game
 * @param {object[]} history the view's finished hands
 * @param {{names: string[], teams?: number[][], you?: number|null, handLink?: Function}} o
 */
export function scoreSheet(game, history, o) {
  const labels = teamLabels(o.teams, o.names, o.you);
  const spec = descriptor(game).sheet?.({ names: o.names, teams: o.teams, teamLabel: (i) => labels[i].short })
    || { about: () => "", groups: o.names.map((label, seat) => ({ label, cols: [{ label: t("sheet.points"), score: (e) => e.scores?.[seat] }] })) };
  const cols = spec.groups.flatMap((g) => g.cols);
  const running = cols.map(() => 0);
  const head = [
    h("tr", {}, h("th", { scope: "col", rowspan: 2 }, t("sheet.hand")), h("th", { scope: "col", rowspan: 2, class: "sheet-about" }, h("span", { class: "sr-only" }, t("sheet.about"))),
      spec.groups.map((g, i) => h("th", { scope: "colgroup", colspan: g.cols.length, class: "sheet-group", title: labels[i]?.full || g.label }, g.label))),
    h("tr", {}, cols.map((c) => h("th", { scope: "col", class: "sheet-col" }, c.label))),
  ];
  const rows = history.map((entry, i) => {
    const number = entry.hand_number ?? entry.hand ?? i + 1;
    const link = o.handLink ? o.handLink(number, i) : null;
    const cells = cols.map((c, k) => {
      if (!c.score) return h("td", { class: c.mark?.(entry) ? "sheet-made" : null }, c.cell(entry));
      const add = c.score(entry);
      if (typeof add === "number") running[k] += add;
      return h("td", { class: "sheet-score" }, h("span", { class: "sheet-add" }, typeof add === "number" ? (add > 0 ? `+${add}` : String(add)) : "—"),
        h("span", { class: "sheet-run" }, String(running[k])));
    });
    return h("tr", { class: "sheet-hand", "data-hand": number },
      h("th", { scope: "row" }, link ? h("a", { href: link, "data-replay-hand": number, "aria-label": t("sheet.replayHand", { n: number }) }, String(number)) : String(number)),
      h("td", { class: "sheet-about" }, spec.about(entry)), cells);
  });
  const foot = h("tr", {}, h("th", { scope: "row", colspan: 2 }, t("sheet.total")),
    cols.map((c, k) => h("td", {}, c.score ? String(running[k]) : "")));
  return h("table", { class: "sheet" }, h("thead", {}, head), h("tbody", {}, rows), history.length ? h("tfoot", {}, foot) : null);
}
