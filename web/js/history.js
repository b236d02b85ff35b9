// /history: your finished matches and the recent ones, newest first, with "Load more".
import { $, h, fill, timeAgo } from "./dom.js";
import { api, identity, matchUrl } from "./api.js";
import { t, translatePage, errorText } from "./i18n.js";
import { rulesSummary } from "./summary.js";
import { followYourTables } from "./attention.js";
import { gameTitle } from "./games.js";

translatePage();
// Your turn at one of your tables, told here too (web/js/attention.js).
if (identity.get()) followYourTables(() => api("/api/tables", { auth: true }).then((d) => d.tables || []), (name) => gameTitle(name));

let catalogue = {}; // GET /api/games by name: each game's title and options schema

function matchRow(m, me) {
  const winners = new Set(m.winners || []);
  const players = [...(m.players || [])].sort((a, b) => a.seat - b.seat);
  const mine = me && players.find((p) => p.player_id === me.id);
  return h("li", { class: "match-row" },
    h("div", { class: "match-row-head" },
      h("strong", { class: "rules-summary", "data-rules-summary": "" },
        rulesSummary(m.game, m.options, catalogue[m.game] || null, catalogue[m.game]?.title)),
      mine ? h("span", { class: ["pill", winners.has(mine.seat) ? "pill-won" : "pill-lost"] }, winners.has(mine.seat) ? t("history.won") : t("history.lost")) : null,
      h("span", { class: "hint" }, ` ${timeAgo(m.finished_at, t)}`)),
    h("ul", { class: "match-players" }, players.map((p) => h("li", { class: winners.has(p.seat) ? "winner" : null },
      h("span", {}, p.bot ? t(p.level === "strong" ? "seat.strongBotName" : "seat.botName", { n: p.seat + 1 }) : p.name),
      h("span", { class: "score" }, String((m.scores || [])[p.seat] ?? "")),
      winners.has(p.seat) ? h("span", { class: "sr-only" }, t("history.winnerSr")) : null))),
    h("a", { class: "btn btn-small", href: matchUrl(m.id) }, t("history.open")));
}

/** A list that loads page after page from /api/matches with the given query. */
async function list(box, query, empty, me) {
  const ul = h("ul", { class: "match-list" });
  const more = h("button", { type: "button", class: "btn btn-small", hidden: true }, t("history.more"));
  fill(box, ul, more);
  let cursor = null;
  async function page() {
    more.disabled = true;
    const params = new URLSearchParams({ ...query, limit: "20" });
    if (cursor) params.set("before", cursor);
    try {
      const data = await api(`/api/matches?${params}`, { auth: true });
      for (const m of data.matches || []) ul.appendChild(matchRow(m, me));
      cursor = data.next || null;
      more.hidden = !cursor;
      if (!ul.children.length) fill(box, h("p", { class: "hint" }, empty));
    } catch (err) {
      fill(box, h("p", { class: "error" }, errorText(err)));
    }
    more.disabled = false;
  }
  more.addEventListener("click", page);
  await page();
}

async function main() {
  try {
    for (const g of await api("/api/games")) catalogue[g.name] = g;
  } catch {
    catalogue = {};
  }
  const me = identity.get();
  if (me) list($("#mine"), { player: me.id }, t("history.noneMine"), me);
  else fill($("#mine"), h("p", { class: "hint" }, t("history.playFirst")), h("a", { class: "btn btn-small", href: "/" }, t("nav.lobby")));
  list($("#recent"), {}, t("history.none"), me);
}

main();
