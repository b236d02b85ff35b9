// The lobby: your name, a game and its options (built from GET /api/games), open tables.
import { $, h, fill, toast } from "./dom.js";
import { api, ensurePlayer, identity, roomUrl } from "./api.js";
import { t, translatePage, errorText } from "./i18n.js";
import { gameSummary, gameTitle } from "./games.js";
import { confirmStep } from "./confirm.js";
import { rulesSummary } from "./summary.js";
import { optionFields, showSeats, timerChoices, timerHelp, tableFields } from "./options.js";
import { lobbyAlerts, pollWhileHidden } from "./attention.js";
import { perTurn, timeLeft } from "./slowclock.js";

const TYPED_NAME = "felt.typedName"; // read by the table page's "Join" (room.js)

translatePage();

const POLL_MS = 4000;
let games = [];
const alerts = lobbyAlerts((name) => titleOf(name)); // your turn at one of your tables, told here too

let readOptions = () => ({});

function showGame() {
  const game = games.find((g) => g.name === $("#game").value) || games[0];
  if (!game) return;
  $("#game-summary").textContent = gameSummary(game.name, game.summary);
  $("#game-rules").href = `/rules/${encodeURIComponent(game.name)}`;
  $("#game-rules").textContent = t("rules.lobbyLink", { title: gameTitle(game.name, game.title) });
  showSeats(game, { field: $("#seats-field"), input: $("#seats"), hint: $("#seats-hint") });
  const fields = optionFields(game);
  readOptions = fields.read;
  fill($("#options"), h("legend", { class: "sr-only" }, t("lobby.options")), fields.nodes.length ? fields.nodes : h("p", { class: "hint" }, t("lobby.noOptions")));
  localStorage.setItem("felt.lastGame", game.name);
}

async function loadGames() {
  try {
    games = await api("/api/games");
  } catch (err) {
    $("#create-error").textContent = t("lobby.gamesFailed", { why: errorText(err) });
    return;
  }
  const select = $("#game");
  const last = localStorage.getItem("felt.lastGame");
  fill(select, games.map((g) => h("option", { value: g.name, selected: g.name === last }, gameTitle(g.name, g.title))));
  showGame();
}

function roomRow(r) {
  const entry = games.find((g) => g.name === r.game) || null;
  return h("li", { class: "room-row" },
    h("div", { class: "room-row-main" },
      h("strong", { class: "rules-summary", "data-rules-summary": "" }, rulesSummary(r.game, r.options, entry, r.title)),
      h("span", { class: "hint" }, ` · ${t("lobby.hostedBy", { host: r.host_name || t("lobby.someone") })}`),
      r.turn_timer ? h("span", { class: "hint" }, ` · ${perTurn(r.turn_timer)}`) : null),
    h("span", { class: "room-row-seats", "aria-label": t("lobby.seatsTaken", { n: r.taken, m: r.seats }) }, `${r.taken}/${r.seats}`),
    h("a", { class: "btn btn-small btn-primary", href: roomUrl(r.code),
      "aria-label": t("lobby.joinLabel", { game: gameTitle(r.game, r.title), host: r.host_name || t("lobby.someone") }) }, t("lobby.join")));
}

async function loadRooms() {
  try {
    const data = await api("/api/rooms");
    const rooms = (data.rooms || []).filter((r) => r.status === "waiting" || r.status === undefined);
    fill($("#rooms"), rooms.length
      ? h("ul", { class: "room-list" }, rooms.map(roomRow))
      : h("p", { class: "hint" }, t("lobby.noRooms")));
  } catch {
    fill($("#rooms"), h("p", { class: "hint" }, t("lobby.unreachable")));
  }
}

/** The name's problem, beside the name field (and read out with it). */
function showNameError(message) {
  const box = $("#name-error");
  box.textContent = message;
  $("#name").setAttribute("aria-invalid", message ? "true" : "false");
  if (message) $("#name").focus();
}

// ---- Your tables: the player's unfinished tables, parked ones too (GET /api/tables) ----

function titleOf(name) {
  return gameTitle(name, (games.find((g) => g.name === name) || {}).title);
}

/** A table whose match the player left: a bot plays their seat, theirs to take back at the table. */
function leftTableRow(row, title) {
  return h("li", { class: "room-row", "data-my-table": row.code, "data-my-table-status": row.status, "data-my-table-left": "", "data-my-table-title": title },
    h("div", { class: "room-row-main" },
      h("strong", {}, title),
      h("span", { class: "hint" }, ` · ${t("mine.youLeft")}${row.private ? ` · ${t("mine.private")}` : ""}`)),
    h("a", { class: "btn btn-small btn-primary", href: roomUrl(row.code), "data-take-back": row.code, "aria-label": t("mine.takeBackLabel", { title }) }, t("mine.takeBack")));
}

function myTableRow(row) {
  const title = titleOf(row.game);
  if (row.left) return leftTableRow(row, title);
  const actions = [h("a", { class: "btn btn-small btn-primary", href: roomUrl(row.code), "aria-label": t("mine.openLabel", { title }) }, t("mine.open"))];
  if (row.is_host && row.status === "waiting") {
    actions.push(h("button", { class: "btn btn-small", type: "button", "data-table-close": row.code, "aria-label": t("mine.closeLabel", { title }) }, t("mine.close")));
  } else {
    actions.push(h("button", { class: "btn btn-small", type: "button", "data-table-leave": row.code, "aria-label": t("mine.leaveLabel", { title }) }, t("mine.leave")));
  }
  return h("li", { class: "room-row", "data-my-table": row.code, "data-my-table-status": row.status, "data-my-table-title": title },
    h("div", { class: "room-row-main" },
      h("strong", {}, title),
      row.your_turn ? h("span", { class: "pill pill-turn", "data-your-turn": "" }, t("alerts.lobbyTurn")) : null,
      row.your_turn && row.deadline ? h("span", { class: "hint", "data-time-left": "" }, ` · ${timeLeft(row.deadline)}`) : null,
      h("span", { class: "hint" }, ` · ${t(`mine.status.${row.status}`)}${row.private ? ` · ${t("mine.private")}` : ""}`)),
    ...actions);
}

async function loadMine() {
  if (!identity.get()) return true;
  try {
    const data = await api("/api/tables", { auth: true });
    const tables = alerts.tables(data.tables || []);
    $("#mine-panel").hidden = tables.length === 0;
    fill($("#mine"), h("ul", { class: "room-list" }, tables.map(myTableRow)));
    return true;
  } catch (err) {
    if (err.status === 401) $("#mine-panel").hidden = true;
    return false;
  }
}

/** "Leave" cannot be undone: ask first, saying what happens to the seat. */
function confirmLeave(code) {
  const row = $(`[data-my-table="${CSS.escape(code)}"]`);
  const playing = row && row.dataset.myTableStatus !== "waiting";
  const title = row ? row.dataset.myTableTitle : "";
  return confirmStep({
    title: t("leave.confirmTitle", { title }),
    text: t(playing ? "leave.confirmPlaying" : "leave.confirmWaiting"),
    yes: t("leave.confirmYes"),
    no: t("leave.confirmNo"),
  });
}

$("#mine").addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-table-leave], button[data-table-close]");
  if (!button) return;
  const code = button.dataset.tableLeave || button.dataset.tableClose;
  const verb = button.dataset.tableLeave ? "leave" : "close";
  if (verb === "leave" && !(await confirmLeave(code))) return;
  button.disabled = true;
  try {
    await api(`/api/tables/${encodeURIComponent(code)}/${verb}`, { method: "POST", auth: true });
    toast(verb === "leave" ? t("mine.left") : t("mine.closed"));
  } catch (err) {
    toast(errorText(err), "error");
  }
  loadMine();
});

$("#game").addEventListener("change", showGame);

$("#create-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = $("#create-error");
  error.textContent = "";
  const name = $("#name").value.trim();
  if (!name) {
    showNameError(t("error.name"));
    return;
  }
  showNameError("");
  const button = $("#create");
  button.disabled = true;
  try {
    await ensurePlayer(name);
    const options = readOptions();
    const made = await api("/api/rooms", {
      method: "POST",
      auth: true,
      body: {
        game: $("#game").value, options, seats: Number($("#seats").value), private: $("#private").checked, open_bot_seats: $("#open-bot-seats").checked,
        turn_timer: Number($("#turn-timer").value), ...watching.read(),
      },
    });
    location.href = made.url && made.url.startsWith("/") ? made.url : roomUrl(made.code);
  } catch (err) {
    if (err.status === 401) identity.clear();
    if (err.code === "name" || /name/.test(err.code || "")) showNameError(errorText(err));
    else error.textContent = errorText(err);
    button.disabled = false;
  }
});

$("#join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const raw = $("#join-code").value.trim();
  if (!raw) return;
  const code = raw.includes("/r/") ? raw.split("/r/").pop().split(/[?#/]/)[0] : raw;
  if (!code) {
    toast(t("lobby.badCode"), "error");
    return;
  }
  goToTable(roomUrl(code));
});

// ---- joining in one click: the name typed here goes with you to the table ----------------

/** Open a table; with a name given here, as that player, sitting down on arrival (#sit). */
async function goToTable(url) {
  const name = $("#name").value.trim();
  sessionStorage.setItem(TYPED_NAME, name);
  if (!name) {
    location.href = url;
    return;
  }
  try {
    await ensurePlayer(name);
    location.href = `${url}#sit`;
  } catch (err) {
    showNameError(errorText(err));
  }
}

$("#rooms").addEventListener("click", (event) => {
  const link = event.target.closest("a[href^='/r/']");
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  goToTable(link.getAttribute("href"));
});
$("#name").addEventListener("input", () => sessionStorage.setItem(TYPED_NAME, $("#name").value.trim()));

fill($("#turn-timer"), timerChoices());
const watching = tableFields();
fill($("#watch-fields"), watching.nodes);
const showTimerHelp = () => { $("#turn-timer-help").textContent = timerHelp(Number($("#turn-timer").value)); };
$("#turn-timer").addEventListener("change", showTimerHelp);
showTimerHelp();

const me = identity.get();
if (me) $("#name").value = me.name;
loadGames().then(loadMine);
loadRooms();
pollWhileHidden(loadMine);
setInterval(() => {
  if (document.visibilityState === "visible") {
    loadRooms();
    loadMine();
  }
}, POLL_MS);
