// The lobby: your name, a game and its options (built from GET /api/games), open tables.
import { $, h, fill, toast } from "./dom.js";
import { api, ensurePlayer, identity, roomUrl } from "./api.js";
import { t, has, translatePage, errorText } from "./i18n.js";
import { gameSummary, gameTitle } from "./games.js";
import { rulesSummary } from "./summary.js";

translatePage();

const POLL_MS = 4000;
let games = [];

/** Resolve a "$ref" into the schema's "$defs". */
function resolve(schema, prop) {
  const ref = prop.$ref || (Array.isArray(prop.allOf) && prop.allOf[0]?.$ref);
  if (!ref) return prop;
  const name = ref.split("/").pop();
  return { ...(schema.$defs?.[name] || {}), ...prop, $ref: undefined, allOf: undefined };
}

/** An option's words from the catalogue (option.<game>.<key>...), the schema's as a fallback. */
function optionWords(game, key, prop) {
  const base = `option.${game}.${key}`;
  return {
    label: has(base) ? t(base) : prop.title || key.replace(/_/g, " "),
    help: has(`${base}.help`) ? t(`${base}.help`) : prop.description || "",
    value: (v) => (has(`${base}.${v}`) ? t(`${base}.${v}`) : String(v)),
  };
}

/** One option's control, from its JSON Schema. Returns {node, read()}. */
function optionControl(game, schema, key, raw) {
  const prop = resolve(schema, raw);
  const id = `opt-${key}`;
  const words = optionWords(game, key, prop);
  const label = words.label;
  const help = words.help ? h("p", { class: "hint", id: `${id}-help` }, words.help) : null;
  const describedBy = help ? `${id}-help` : null;
  const nullable = Array.isArray(prop.anyOf) && prop.anyOf.some((p) => p.type === "null");
  const base = nullable ? prop.anyOf.find((p) => p.type !== "null") || {} : prop;
  const values = prop.enum || base.enum;

  if (prop.type === "boolean" || base.type === "boolean") {
    const input = h("input", { id, type: "checkbox", "aria-describedby": describedBy, checked: prop.default === true });
    return {
      node: h("div", { class: "field field-check" }, input, h("label", { for: id }, label), help),
      read: () => input.checked,
    };
  }
  if (Array.isArray(values)) {
    const select = h("select", { id, "aria-describedby": describedBy },
      values.map((v) => h("option", { value: JSON.stringify(v), selected: v === prop.default },
        v === prop.default ? t("lobby.defaultValue", { value: words.value(v) }) : words.value(v))));
    return {
      node: h("div", { class: "field" }, h("label", { for: id }, label), select, help),
      read: () => JSON.parse(select.value),
    };
  }
  if (base.type === "integer" || base.type === "number") {
    const input = h("input", {
      id, type: "number", inputmode: "numeric", "aria-describedby": describedBy,
      min: base.minimum ?? null, max: base.maximum ?? null, step: base.type === "integer" ? 1 : "any",
      value: prop.default ?? "", placeholder: nullable ? t("lobby.defaultPlaceholder") : null,
    });
    return {
      node: h("div", { class: "field" }, h("label", { for: id }, label), input, help),
      read: () => {
        if (input.value.trim() === "") return nullable ? null : prop.default;
        return Number(input.value);
      },
    };
  }
  const input = h("input", { id, "aria-describedby": describedBy, value: prop.default ?? "" });
  return {
    node: h("div", { class: "field" }, h("label", { for: id }, label), input, help),
    read: () => input.value,
  };
}

let readers = {};

function showGame() {
  const game = games.find((g) => g.name === $("#game").value) || games[0];
  if (!game) return;
  $("#game-summary").textContent = gameSummary(game.name, game.summary);
  $("#game-rules").href = `/rules/${encodeURIComponent(game.name)}`;
  $("#game-rules").textContent = t("rules.lobbyLink", { title: gameTitle(game.name, game.title) });
  const seatsField = $("#seats-field");
  const seats = $("#seats");
  if (game.min_players !== game.max_players) {
    seatsField.hidden = false;
    seats.min = game.min_players;
    seats.max = game.max_players;
    seats.value = game.default_players ?? game.min_players;
    $("#seats-hint").textContent = t("lobby.seatsHint", { min: game.min_players, max: game.max_players });
  } else {
    seatsField.hidden = true;
    seats.value = game.min_players;
  }
  const schema = game.options || {};
  readers = {};
  const controls = Object.entries(schema.properties || {}).map(([key, prop]) => {
    const c = optionControl(game.name, schema, key, prop);
    readers[key] = c.read;
    return c.node;
  });
  const box = $("#options");
  fill(box, h("legend", { class: "sr-only" }, t("lobby.options")), controls.length ? controls : h("p", { class: "hint" }, t("lobby.noOptions")));
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
  const schema = games.find((g) => g.name === r.game)?.options || null;
  return h("li", { class: "room-row" },
    h("div", { class: "room-row-main" },
      h("strong", { class: "rules-summary", "data-rules-summary": "" }, rulesSummary(r.game, r.options, schema, r.title)),
      h("span", { class: "hint" }, ` · ${t("lobby.hostedBy", { host: r.host_name || t("lobby.someone") })}`),
      r.turn_timer ? h("span", { class: "hint" }, ` · ${t("lobby.timerShort", { n: r.turn_timer })}`) : null),
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

function myTableRow(row) {
  const title = titleOf(row.game);
  const actions = [h("a", { class: "btn btn-small btn-primary", href: roomUrl(row.code), "aria-label": t("mine.openLabel", { title }) }, t("mine.open"))];
  if (row.is_host && row.status === "waiting") {
    actions.push(h("button", { class: "btn btn-small", type: "button", "data-table-close": row.code, "aria-label": t("mine.closeLabel", { title }) }, t("mine.close")));
  } else {
    actions.push(h("button", { class: "btn btn-small", type: "button", "data-table-leave": row.code, "aria-label": t("mine.leaveLabel", { title }) }, t("mine.leave")));
  }
  return h("li", { class: "room-row", "data-my-table": row.code },
    h("div", { class: "room-row-main" },
      h("strong", {}, title),
      h("span", { class: "hint" }, ` · ${t(`mine.status.${row.status}`)}${row.private ? ` · ${t("mine.private")}` : ""}`)),
    ...actions);
}

async function loadMine() {
  if (!identity.get()) return;
  try {
    const data = await api("/api/tables", { auth: true });
    const tables = data.tables || [];
    $("#mine-panel").hidden = tables.length === 0;
    fill($("#mine"), h("ul", { class: "room-list" }, tables.map(myTableRow)));
  } catch (err) {
    if (err.status === 401) $("#mine-panel").hidden = true;
  }
}

$("#mine").addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-table-leave], button[data-table-close]");
  if (!button) return;
  const code = button.dataset.tableLeave || button.dataset.tableClose;
  const verb = button.dataset.tableLeave ? "leave" : "close";
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
    const options = {};
    for (const [key, read] of Object.entries(readers)) options[key] = read();
    const made = await api("/api/rooms", {
      method: "POST",
      auth: true,
      body: {
        game: $("#game").value, options, seats: Number($("#seats").value), private: $("#private").checked, open_bot_seats: $("#open-bot-seats").checked,
        turn_timer: Number($("#turn-timer").value),
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
  location.href = roomUrl(code);
});

const me = identity.get();
if (me) $("#name").value = me.name;
loadGames().then(loadMine);
loadRooms();
setInterval(() => {
  if (document.visibilityState === "visible") {
    loadRooms();
    loadMine();
  }
}, POLL_MS);
