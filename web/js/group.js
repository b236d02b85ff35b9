// /groups (your groups, and a new one) and /g/{code}: a group's home page. Members and who is
// online, the open tables with one click to sit, "New table" with the group's house rules and the lobby's settings,
// the standings, the recent matches, the invite link to copy, and the owner's controls.
import { $, h, fill, timeAgo } from "./dom.js";
import { api, ApiError, ensurePlayer, identity, matchUrl, roomUrl } from "./api.js";
import { t, translatePage, errorText } from "./i18n.js";
import { gameNames, gameTitle } from "./games.js";
import { optionLabel, rulesSummary, valueWords } from "./summary.js";
import { optionFields, showSeats, timerChoices, timerHelp, tableFields } from "./options.js";
import { webhookPanel } from "./group_webhook.js";

translatePage();

const REFRESH_MS = 10000;
const path = location.pathname;
const groupCode = path.startsWith("/g/") ? decodeURIComponent(path.slice(3)) : null;
let games = [];
let view = { game: null, season: "" };

const gid = (suffix = "") => `/api/groups/${encodeURIComponent(groupCode)}${suffix}`;
const botOrName = (p) => (p.bot ? t(p.level === "strong" ? "seat.strongBotName" : "seat.botName", { n: p.seat + 1 }) : p.name);

const inviteInLink = () => location.hash.match(/invite=([A-Za-z0-9_-]+)/)?.[1];

/** Above the name form of an invite link: "Ana invites you to Tuesday Club" (nothing when the
 * invite cannot be read: joining then says why). */
async function sayWhoInvites() {
  const invite = inviteInLink();
  if (!groupCode || !invite) return;
  try {
    const { group, owner } = await api(gid("/invitation"), { method: "POST", body: { invite } });
    $("#who-h").before(h("p", { class: "lead", id: "who-invites" }, t("group.invitedBy", { owner, group })));
  } catch {
    // a wrong or rotated link: the join that follows the name says so
  }
}

/** Ask for a name when this browser has no player yet; resolves with the player. */
async function whoAreYou() {
  const me = identity.get();
  if (me) return me;
  fill($("#content"));
  await sayWhoInvites();
  $("#who-panel").hidden = false;
  return new Promise((resolve) => {
    $("#name-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const player = await ensurePlayer($("#name").value);
        $("#who-panel").hidden = true;
        resolve(player);
      } catch (err) {
        $("#name-error").textContent = errorText(err);
      }
    });
  });
}

// ---- /groups ---------------------------------------------------------------------------

async function myGroups() {
  const list = h("ul", { class: "match-list", id: "my-groups" });
  const name = h("input", { id: "group-name", maxlength: "24", required: true });
  const error = h("p", { class: "error", role: "alert" });
  const form = h("form", { class: "stack", id: "new-group", novalidate: true },
    h("div", { class: "field" }, h("label", { for: "group-name" }, t("group.nameLabel")), name),
    h("button", { class: "btn", type: "submit" }, t("group.create")), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const made = await api("/api/groups", { method: "POST", body: { name: name.value }, auth: true });
      location.assign(made.url);
    } catch (err) {
      error.textContent = errorText(err);
    }
  });
  fill($("#content"),
    h("section", { class: "panel" }, h("h2", {}, t("group.new")), h("p", { class: "hint" }, t("group.newHint")), form),
    h("section", { class: "panel" }, h("h2", {}, t("group.mine")), list));
  const { groups } = await api("/api/groups", { auth: true });
  if (!groups.length) fill(list, h("li", { class: "hint" }, t("group.noneYet")));
  for (const g of groups) list.appendChild(h("li", {}, h("a", { href: `/g/${g.code}` }, g.name), " ", h("span", { class: "hint" }, t(`group.role.${g.role}`))));
}

// ---- /g/{code} -------------------------------------------------------------------------

/** Join with the invite in the link's fragment (never sent to the server in the URL). */
async function joinFromLink() {
  const invite = inviteInLink();
  if (!invite) return;
  history.replaceState(null, "", location.pathname);
  await api(gid("/join"), { method: "POST", body: { invite }, auth: true });
}

function memberItem(m, group, me) {
  // At a table, with a link to it only when it is one we may open (no private table of others').
  const status = m.online ? (m.at_table ? t("group.atTable") : t("group.online")) : t("group.offline");
  const remove = group.role === "owner" && m.role !== "owner"
    ? h("button", { type: "button", class: "btn btn-small btn-ghost", "data-remove": m.player_id, "aria-label": t("group.removeLabel", { name: m.name }) }, "×")
    : null;
  return h("li", { class: ["member", m.online ? "member-online" : null], "data-member": m.player_id },
    h("span", { class: ["dot", m.online ? "dot-on" : "dot-away"], "aria-hidden": "true" }),
    h("strong", {}, m.name), m.player_id === me.id ? ` ${t("group.you")}` : "", " ",
    h("span", { class: "hint member-status" }, status),
    m.table ? h("a", { class: "btn btn-small", href: roomUrl(m.table) }, t("group.watch")) : null, remove);
}

/** A group's open table: "Back to your seat" where you sit, else "Sit", which takes the first
 * free seat on arrival (the room's #sit) in one click. */
function tableItem(table) {
  const link = table.you_sit
    ? h("a", { class: "btn btn-small", href: table.url, "data-back-table": table.code }, t("group.backToSeat"))
    : h("a", { class: "btn btn-small", href: `${table.url}#sit`, "data-sit-table": table.code }, t("group.sit"));
  return h("li", { class: "match-row group-table", "data-table": table.code },
    h("strong", {}, gameTitle(table.game, games.find((g) => g.name === table.game)?.title)), " ",
    h("span", { class: ["pill", `pill-${table.status}`] }, t(`group.status.${table.status}`) || table.status), " ", link);
}

/** The group's house rules for the game chosen in `select`: every option of the game's schema,
 * showing the saved value (else the usual one), saved with PUT /rules/{game}. */
function houseRules(group, select, onSaved) {
  const fields = h("div", { class: "stack", id: "house-rules-fields" });
  const status = h("p", { class: "hint", role: "status", id: "house-rules-status" });
  let read = () => ({});
  const show = () => {
    const game = games.find((g) => g.name === select.value);
    const made = optionFields(game, { values: group.rules[select.value] || {}, idPrefix: "house" });
    read = made.read;
    fill(fields, made.nodes.length ? made.nodes : h("p", { class: "hint" }, t("lobby.noOptions")));
    status.textContent = "";
  };
  select.addEventListener("change", show);
  show();
  const form = h("form", { class: "stack", id: "house-rules-form" }, fields,
    h("button", { class: "btn btn-small", type: "submit" }, t("group.saveRules")), status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const saved = await api(gid(`/rules/${encodeURIComponent(select.value)}`), { method: "PUT", body: { options: read() }, auth: true });
      group.rules[saved.game] = saved.options;
      onSaved();
      status.textContent = t("group.rulesSaved");
    } catch (err) {
      status.textContent = errorText(err);
    }
  });
  return h("details", { id: "house-rules" }, h("summary", {}, t("group.editRules")), form);
}

/** Who last changed each game's house rules and what, in the page's words: "Bea changed Bid
 * Whist: Jokers: 2 jokers (big and little); Uptown and downtown: on · 5 minutes ago". */
function rulesChanges(group) {
  const changed = Object.entries(group.rules_changes || {}).sort(([, a], [, b]) => String(b.at).localeCompare(String(a.at)));
  if (!changed.length) return null;
  const said = ([game, c]) => t("group.rulesChanged", {
    name: c.name,
    game: gameTitle(game, games.find((g) => g.name === game)?.title),
    changes: c.changes.map((x) => `${optionLabel(game, x.key)}: ${valueWords(game, x.key, x.value)}`).join("; "),
  });
  return h("ul", { class: "hint rules-changes", id: "rules-changes" },
    changed.map((entry) => h("li", { "data-rules-changed": entry[0] }, said(entry), ` · ${timeAgo(entry[1].at, t)}`)));
}

/** "New table": what the lobby's form offers (players, turn timer and slow clocks, the game's
 * options, open bot seats), built by the same code, the options showing the house rules. */
function newTableForm(group) {
  const select = h("select", { id: "new-game" }, games.map((g) => h("option", { value: g.name }, gameTitle(g.name, g.title))));
  const saved = h("p", { class: "hint", id: "saved-rules" });
  const seats = h("input", { id: "new-seats", type: "number", inputmode: "numeric", "aria-describedby": "new-seats-hint" });
  const seatsHint = h("p", { class: "hint", id: "new-seats-hint" });
  const seatsField = h("div", { class: "field", hidden: true }, h("label", { for: "new-seats" }, t("lobby.players")), seats, seatsHint);
  const timer = h("select", { id: "new-timer", "aria-describedby": "new-timer-help" }, timerChoices());
  const timerHint = h("p", { class: "hint", id: "new-timer-help" }, timerHelp(0));
  timer.addEventListener("change", () => { timerHint.textContent = timerHelp(Number(timer.value)); });
  const timerField = h("div", { class: "field" }, h("label", { for: "new-timer" }, t("lobby.timer")), timer, timerHint);
  const options = h("div", { class: "stack", id: "new-options" });
  const openBots = h("input", { id: "new-open-bot-seats", type: "checkbox" });
  let readOptions = () => ({});
  const watchBox = h("div", { class: "stack", id: "new-watch" });
  let watching = tableFields({ idPrefix: "new" });
  const showGame = () => {
    const game = games.find((g) => g.name === select.value);
    const rules = group.rules[select.value];
    saved.textContent = rules ? t("group.savedRules", { rules: rulesSummary(select.value, rules, game || null, game?.title) }) : t("group.noSavedRules");
    if (!game) return;
    showSeats(game, { field: seatsField, input: seats, hint: seatsHint });
    const made = optionFields(game, { values: rules || {}, idPrefix: "new" });
    readOptions = made.read;
    fill(options, made.nodes.length ? made.nodes : h("p", { class: "hint" }, t("lobby.noOptions")));
    watching = tableFields({ values: group.table_rules?.[select.value] || {}, idPrefix: "new" });
    fill(watchBox, watching.nodes);
  };
  select.addEventListener("change", showGame);
  showGame();
  const error = h("p", { class: "error", role: "alert" });
  const form = h("form", { class: "stack", id: "new-table", novalidate: true },
    h("div", { class: "field" }, h("label", { for: "new-game" }, t("lobby.game")), select), saved,
    h("div", { class: "field-row" }, seatsField, timerField),
    h("details", { class: "options-box", id: "new-options-box" },
      h("summary", {}, t("lobby.optionsTitle"), " ", h("span", { class: "hint" }, t("lobby.optionsHint"))), options,
      h("div", { class: "field field-check" }, openBots, h("label", { for: "new-open-bot-seats" }, t("lobby.openBotSeats")),
        h("span", { class: "hint" }, t("lobby.openBotSeatsHint"))), watchBox),
    h("button", { class: "btn", type: "submit" }, t("group.newTable")), error);
  const touched = () => { form.dataset.touched = ""; }; // the page's refresh leaves the form alone from now on
  form.addEventListener("input", touched);
  form.addEventListener("change", touched);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const room = await api("/api/rooms", {
        method: "POST",
        auth: true,
        body: { game: select.value, group: group.code, options: readOptions(), seats: Number(seats.value),
          turn_timer: Number(timer.value), open_bot_seats: openBots.checked, ...watching.read() },
      });
      location.assign(room.url);
    } catch (err) {
      error.textContent = errorText(err);
    }
  });
  return h("div", { class: "stack" }, form, houseRules(group, select, showGame));
}

async function invitePanel(group) {
  const { invite_url: url } = await api(gid("/invite"), { auth: true });
  const full = new URL(url, location.origin).href;
  const input = h("input", { id: "invite-link", readonly: true, value: full, "aria-label": t("group.inviteLabel") });
  const copied = h("span", { class: "hint", role: "status" });
  const copy = h("button", { type: "button", class: "btn btn-small", id: "copy-invite" }, t("group.copy"));
  copy.addEventListener("click", async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(full);
      copied.textContent = t("group.copied");
    } catch {
      copied.textContent = t("group.copyByHand");
    }
  });
  const owner = group.role === "owner" ? ownerControls(group) : null;
  return h("section", { class: "panel", "aria-labelledby": "invite-h" },
    h("h2", { id: "invite-h" }, t("group.invite")), h("p", { class: "hint" }, t("group.inviteHint")),
    h("div", { class: "row" }, input, copy, copied), owner);
}

function ownerControls(group) {
  const rotate = h("button", { type: "button", class: "btn btn-small btn-ghost", id: "rotate-invite" }, t("group.rotate"));
  rotate.addEventListener("click", async () => {
    if (!confirm(t("group.rotateConfirm"))) return;
    await api(gid("/invite"), { method: "POST", auth: true });
    render();
  });
  const season = h("button", { type: "button", class: "btn btn-small btn-ghost", id: "close-season" }, t("group.closeSeason"));
  season.addEventListener("click", async () => {
    if (!confirm(t("group.closeSeasonConfirm"))) return;
    // Naming the season seen: a second click (or a second owner's tab) closes nothing more.
    await api(gid("/seasons"), { method: "POST", auth: true, body: { season: group.season.number } });
    view.season = "";
    render();
  });
  return h("div", { class: "row owner-controls" }, rotate, season);
}

function standingsTable(table) {
  if (!table.rows.length) return h("p", { class: "hint" }, t("group.noStandings"));
  const num = (v) => h("td", { class: "score" }, String(v));
  return h("table", { class: "sheet standings" },
    h("caption", {}, h("span", { class: "hint caption-hint", id: "standings-hint" }, t("group.standingsHint"))),
    h("thead", {}, h("tr", {}, ["group.player", "group.matches", "group.wins", "group.share", "group.place", "group.pointsFor", "group.pointsAgainst"]
      .map((k) => h("th", { scope: "col" }, t(k))))),
    h("tbody", {}, table.rows.map((r) => h("tr", { "data-player": r.player_id },
      h("th", { scope: "row" }, r.name), num(r.matches), num(r.wins), num(`${Math.round(r.win_share * 100)}%`),
      num(r.average_place.toFixed(2)), num(r.points), num(r.points_against)))));
}

/** Partner pairs (the games played in partnerships): matches and wins together, and their bids made. */
function pairsTable(pairs, members) {
  const name = (id) => members.find((m) => m.player_id === id)?.name || "?";
  const num = (v) => h("td", { class: "score" }, String(v));
  return h("table", { class: "sheet pairs", id: "pairs" },
    h("caption", {}, t("group.pairs"), h("span", { class: "hint caption-hint" }, t("group.pairsHint"))),
    h("thead", {}, h("tr", {}, ["group.pair", "group.matches", "group.wins", "group.bidsMade"].map((k) => h("th", { scope: "col" }, t(k))))),
    h("tbody", {}, pairs.map((p) => h("tr", { "data-pair": `${p.a} ${p.b}` },
      h("th", { scope: "row" }, [name(p.a), name(p.b)].sort().join(" & ")), num(p.matches), num(p.wins),
      num(p.bids ? t("group.bidsMadeOf", { made: p.bids_made, bids: p.bids }) : t("group.noBids"))))));
}

/** Head-to-head (any game): for two members who sat in one match on different sides, how often
 * the first finished above the second, below, or level. The viewer's meetings come first,
 * told from their side ("You vs Rui"). */
function headToHeadTable(meetings, members, me) {
  const name = (id) => (id === me.id ? t("group.youName") : members.find((m) => m.player_id === id)?.name || "?");
  const rows = meetings.map((m) => (m.b === me.id
    ? { first: m.b, second: m.a, higher: m.b_higher, lower: m.a_higher, matches: m.matches }
    : { first: m.a, second: m.b, higher: m.a_higher, lower: m.b_higher, matches: m.matches }));
  const mine = (r) => (r.first === me.id ? 0 : 1);
  rows.sort((x, y) => mine(x) - mine(y) || name(x.first).localeCompare(name(y.first)) || name(x.second).localeCompare(name(y.second)));
  const num = (v) => h("td", { class: "score" }, String(v));
  return h("table", { class: "sheet head-to-head", id: "head-to-head" },
    h("caption", {}, t("group.headToHead"), h("span", { class: "hint caption-hint" }, t("group.headToHeadHint"))),
    h("thead", {}, h("tr", {}, ["group.meeting", "group.matches", "group.higher", "group.lower", "group.level"].map((k) => h("th", { scope: "col" }, t(k))))),
    h("tbody", {}, rows.map((r) => h("tr", { "data-meeting": `${r.first} ${r.second}` },
      h("th", { scope: "row" }, t("group.versus", { a: name(r.first), b: name(r.second) })),
      num(r.matches), num(r.higher), num(r.lower), num(r.matches - r.higher - r.lower)))));
}

async function standingsPanel(group, lastGame) {
  view.game = view.game || lastGame || games[0]?.name || gameNames()[0];
  const gameSel = h("select", { id: "standings-game", "aria-label": t("lobby.game") },
    games.map((g) => h("option", { value: g.name, selected: g.name === view.game }, gameTitle(g.name, g.title))));
  const seasonSel = h("select", { id: "standings-season", "aria-label": t("group.season") },
    h("option", { value: "", selected: view.season === "" }, t("group.thisSeason", { n: group.season.number })),
    group.seasons.filter((n) => n !== group.season.number).reverse()
      .map((n) => h("option", { value: String(n), selected: view.season === String(n) }, t("group.seasonN", { n }))),
    h("option", { value: "all", selected: view.season === "all" }, t("group.allTime")));
  for (const sel of [gameSel, seasonSel]) sel.addEventListener("change", () => { view = { game: gameSel.value, season: seasonSel.value }; render(); });
  const params = new URLSearchParams({ game: view.game, season: view.season });
  const table = await api(gid(`/standings?${params}`), { auth: true });
  return h("section", { class: "panel", "aria-labelledby": "standings-h", id: "standings" },
    h("h2", { id: "standings-h" }, t("group.standings")), h("div", { class: "row" }, gameSel, seasonSel),
    // The tables scroll across in a box of their own (a phone): the page itself never does.
    h("div", { class: "sheet-wrap", tabindex: "0", role: "group", "aria-labelledby": "standings-h" }, standingsTable(table),
      table.head_to_head.length ? headToHeadTable(table.head_to_head, group.members, identity.get()) : null,
      table.pairs.length ? pairsTable(table.pairs, group.members) : null));
}

function recentPanel(matches) {
  const items = matches.map((m) => {
    const winners = new Set(m.winners);
    const players = [...m.players].sort((a, b) => a.seat - b.seat);
    return h("li", { class: "match-row" },
      h("strong", {}, gameTitle(m.game, games.find((g) => g.name === m.game)?.title)), h("span", { class: "hint" }, ` ${timeAgo(m.finished_at, t)}`),
      h("ul", { class: "match-players" }, players.map((p) => h("li", { class: winners.has(p.seat) ? "winner" : null },
        h("span", {}, botOrName(p)), h("span", { class: "score" }, String(m.scores[p.seat] ?? ""))))),
      h("a", { class: "btn btn-small", href: matchUrl(m.id) }, t("history.open")));
  });
  return h("section", { class: "panel", "aria-labelledby": "recent-h" }, h("h2", { id: "recent-h" }, t("group.recent")),
    items.length ? h("ul", { class: "match-list", id: "recent-matches" }, items) : h("p", { class: "hint" }, t("group.noMatches")));
}

/** Fetch a member-only file with the player's token and hand it to the browser as a download. */
async function download(suffix, filename) {
  const me = identity.get();
  const res = await fetch(gid(suffix), { headers: { Authorization: `Bearer ${me.token}` } });
  if (!res.ok) throw new ApiError(res.status, "error", t("error.status", { n: res.status }));
  save(await res.blob(), filename);
}

/** Hand a blob to the browser as a download named `filename`. */
function save(blob, filename) {
  const link = h("a", { href: URL.createObjectURL(blob), download: filename });
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60000);
}

function exportRow() {
  const csv = h("button", { type: "button", class: "btn btn-small btn-ghost", id: "export-csv" }, t("group.exportCsv"));
  csv.addEventListener("click", () => download(`/standings.csv?${new URLSearchParams({ game: view.game, season: view.season })}`, `felt-${groupCode}-${view.game}.csv`));
  const json = h("button", { type: "button", class: "btn btn-small btn-ghost", id: "export-json" }, t("group.exportJson"));
  json.addEventListener("click", () => download("/export.json", `felt-${groupCode}-matches.json`));
  return h("div", { class: "row" }, csv, json);
}

/** The night's card, fetched once per night (the page redraws every few seconds): `{key, file}`,
 * `file` a promise of it. */
let recapCard = null;

async function fetchCard() {
  const me = identity.get();
  const res = await fetch(gid("/recap.png"), { headers: { Authorization: `Bearer ${me.token}` } });
  if (res.status === 429) throw new ApiError(429, "recap_too_many", t("group.recapTooMany", { s: res.headers.get("Retry-After") || "60" }));
  if (!res.ok) throw new ApiError(res.status, "error", t("error.status", { n: res.status }));
  return new File([await res.blob()], `felt-${groupCode}-night.png`, { type: "image/png" });
}

/** The night's card as a PNG File; the server counts each fetch against the player's rate. */
function recapFile(night) {
  if (recapCard?.key !== night.text) {
    const card = { key: night.text, file: fetchCard() };
    card.file.catch(() => { if (recapCard === card) recapCard = null; });
    recapCard = card;
  }
  return recapCard.file;
}

/** The night's recap: its text to copy, and its card to see, download, or share (the Web Share
 * API with the PNG where the browser can share files, else the text; no button without it). */
async function recapPanel() {
  const night = await api(gid("/recap"), { auth: true });
  if (!night.matches) return null;
  const text = h("textarea", { id: "recap-text", readonly: true, rows: String(night.text.split("\n").length), "aria-label": t("group.recap") }, night.text);
  const image = h("img", { id: "recap-image", alt: night.text, class: "recap-image" });
  const status = h("p", { class: "hint", id: "recap-status", role: "status" });
  const button = (id, label, act) => {
    const b = h("button", { type: "button", class: "btn btn-small", id }, label);
    b.addEventListener("click", async () => {
      status.textContent = "";
      try {
        await act(await recapFile(night));
      } catch (err) {
        if (err?.name !== "AbortError") status.textContent = err instanceof ApiError ? err.message : errorText(err);
      }
    });
    return b;
  };
  const show = button("recap-show-image", t("group.recapImage"), (file) => new Promise((done) => {
    const reader = new FileReader();
    reader.onload = () => { image.src = reader.result; done(); };
    reader.readAsDataURL(file);
  }));
  const saveCard = button("recap-download", t("group.recapDownload"), (file) => save(file, file.name));
  const share = "share" in navigator ? button("recap-share", t("group.recapShare"), (file) => {
    const withFile = { files: [file], title: t("group.recap"), text: night.text };
    const canFile = !navigator.canShare || navigator.canShare({ files: [file] });
    return navigator.share(canFile ? withFile : { title: t("group.recap"), text: night.text });
  }) : null;
  // Sharing needs the click's user activation, which a slow fetch may outlast: start it early.
  share?.addEventListener("pointerenter", () => recapFile(night).catch(() => {}));
  share?.addEventListener("focus", () => recapFile(night).catch(() => {}));
  return h("section", { class: "panel", "aria-labelledby": "recap-h", id: "recap" },
    h("h2", { id: "recap-h" }, t("group.recap")), text, h("div", { class: "row" }, show, saveCard, share), status, image);
}

async function render() {
  const me = identity.get();
  const group = await api(gid(), { auth: true });
  const { matches } = await api(gid("/matches"), { auth: true });
  document.title = t("title.groupOf", { name: group.name });
  $("#group-title").textContent = group.name;
  const members = h("ul", { class: "members", id: "members" }, group.members.map((m) => memberItem(m, group, me)));
  members.addEventListener("click", async (event) => {
    const id = event.target.closest("[data-remove]")?.dataset.remove;
    if (!id || !confirm(t("group.removeConfirm"))) return;
    await api(gid(`/members/${encodeURIComponent(id)}`), { method: "DELETE", auth: true });
    render();
  });
  const tables = group.tables.length ? h("ul", { class: "match-list", id: "group-tables" }, group.tables.map(tableItem)) : h("p", { class: "hint" }, t("group.noTables"));
  fill($("#content"),
    h("section", { class: "panel", "aria-labelledby": "members-h" }, h("h2", { id: "members-h" }, t("group.members")), members),
    h("section", { class: "panel", "aria-labelledby": "tables-h" }, h("h2", { id: "tables-h" }, t("group.tables")), tables, newTableForm(group), rulesChanges(group)),
    await standingsPanel(group, matches[0]?.game), await recapPanel(), recentPanel(matches), exportRow(), await invitePanel(group),
    group.role === "owner" ? await webhookPanel(gid) : null);
}

function missing(err) {
  const text = err instanceof ApiError && err.status === 404 ? t("group.notFound") : errorText(err);
  fill($("#content"), h("section", { class: "panel" }, h("p", { class: "error", id: "group-error" }, text), h("a", { class: "btn btn-small", href: "/groups" }, t("group.groups"))));
}

async function main() {
  try {
    games = await api("/api/games");
  } catch {
    games = [];
  }
  await whoAreYou();
  try {
    if (!groupCode) return await myGroups();
    await joinFromLink();
    await render();
    setInterval(() => { if (!document.hidden && !document.querySelector("select:focus, input:focus, #house-rules[open], #webhook[open], #new-table[data-touched], #new-options-box[open]")) render().catch(() => {}); }, REFRESH_MS);
  } catch (err) {
    missing(err);
  }
}

main();
