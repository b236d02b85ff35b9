// The lobby: your name, a game and its options (built from GET /api/games), open tables.
import { $, h, fill, toast } from "./dom.js";
import { api, ensurePlayer, identity, roomUrl } from "./api.js";

const POLL_MS = 4000;
let games = [];

/** Resolve a "$ref" into the schema's "$defs". */
function resolve(schema, prop) {
  const ref = prop.$ref || (Array.isArray(prop.allOf) && prop.allOf[0]?.$ref);
  if (!ref) return prop;
  const name = ref.split("/").pop();
  return { ...(schema.$defs?.[name] || {}), ...prop, $ref: undefined, allOf: undefined };
}

/** One option's control, from its JSON Schema. Returns {node, read()}. */
function optionControl(schema, key, raw) {
  const prop = resolve(schema, raw);
  const id = `opt-${key}`;
  const label = prop.title || key.replace(/_/g, " ");
  const provisional = /provisional/i.test(prop.description || "");
  const help = prop.description ? h("p", { class: "hint", id: `${id}-help` }, prop.description) : null;
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
        `${v}${provisional && /anderson/i.test(String(v)) ? " (provisional)" : ""}${v === prop.default ? " (default)" : ""}`)));
    return {
      node: h("div", { class: "field" }, h("label", { for: id }, label), select, help),
      read: () => JSON.parse(select.value),
    };
  }
  if (base.type === "integer" || base.type === "number") {
    const input = h("input", {
      id, type: "number", inputmode: "numeric", "aria-describedby": describedBy,
      min: base.minimum ?? null, max: base.maximum ?? null, step: base.type === "integer" ? 1 : "any",
      value: prop.default ?? "", placeholder: nullable ? "default" : null,
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
  $("#game-summary").textContent = game.summary || "";
  const seatsField = $("#seats-field");
  const seats = $("#seats");
  if (game.min_players !== game.max_players) {
    seatsField.hidden = false;
    seats.min = game.min_players;
    seats.max = game.max_players;
    seats.value = game.default_players ?? game.min_players;
    $("#seats-hint").textContent = `${game.min_players} to ${game.max_players} players (bots can fill seats).`;
  } else {
    seatsField.hidden = true;
    seats.value = game.min_players;
  }
  const schema = game.options || {};
  readers = {};
  const controls = Object.entries(schema.properties || {}).map(([key, prop]) => {
    const c = optionControl(schema, key, prop);
    readers[key] = c.read;
    return c.node;
  });
  const box = $("#options");
  fill(box, h("legend", { class: "sr-only" }, "Options"), controls.length ? controls : h("p", { class: "hint" }, "This game has no options."));
  localStorage.setItem("felt.lastGame", game.name);
}

async function loadGames() {
  try {
    games = await api("/api/games");
  } catch (err) {
    $("#create-error").textContent = `The games could not be loaded: ${err.message}`;
    return;
  }
  const select = $("#game");
  const last = localStorage.getItem("felt.lastGame");
  fill(select, games.map((g) => h("option", { value: g.name, selected: g.name === last }, g.title)));
  showGame();
}

function roomRow(r) {
  return h("li", { class: "room-row" },
    h("div", { class: "room-row-main" },
      h("strong", {}, r.title || r.game),
      h("span", { class: "hint" }, ` · hosted by ${r.host_name || "someone"}`)),
    h("span", { class: "room-row-seats", "aria-label": `${r.taken} of ${r.seats} seats taken` }, `${r.taken}/${r.seats}`),
    h("a", { class: "btn btn-small btn-primary", href: roomUrl(r.code), "aria-label": `Join ${r.title || r.game} hosted by ${r.host_name || "someone"}` }, "Join"));
}

async function loadRooms() {
  try {
    const data = await api("/api/rooms");
    const rooms = (data.rooms || []).filter((r) => r.status === "waiting" || r.status === undefined);
    fill($("#rooms"), rooms.length
      ? h("ul", { class: "room-list" }, rooms.map(roomRow))
      : h("p", { class: "hint" }, "No open tables right now. Start one!"));
  } catch {
    fill($("#rooms"), h("p", { class: "hint" }, "Cannot reach the server; retrying…"));
  }
}

// ---- Your tables: the player's unfinished tables, parked ones too (GET /api/tables) ----

const STATUS_TEXT = { waiting: "waiting for players", playing: "in play", parked: "paused" };

function titleOf(name) {
  return (games.find((g) => g.name === name) || {}).title || name;
}

function myTableRow(t) {
  const title = titleOf(t.game);
  const actions = [h("a", { class: "btn btn-small btn-primary", href: roomUrl(t.code), "aria-label": `Open your ${title} table` }, "Open")];
  if (t.is_host && t.status === "waiting") {
    actions.push(h("button", { class: "btn btn-small", type: "button", "data-table-close": t.code, "aria-label": `Close your ${title} table` }, "Close"));
  } else {
    actions.push(h("button", { class: "btn btn-small", type: "button", "data-table-leave": t.code, "aria-label": `Leave your ${title} table` }, "Leave"));
  }
  return h("li", { class: "room-row", "data-my-table": t.code },
    h("div", { class: "room-row-main" },
      h("strong", {}, title),
      h("span", { class: "hint" }, ` · ${STATUS_TEXT[t.status] || t.status}${t.private ? " · private" : ""}`)),
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
    toast(verb === "leave" ? "You left the table." : "The table is closed.");
  } catch (err) {
    toast(err.message, "error");
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
    error.textContent = "Please enter your name first.";
    $("#name").focus();
    return;
  }
  const button = $("#create");
  button.disabled = true;
  try {
    await ensurePlayer(name);
    const options = {};
    for (const [key, read] of Object.entries(readers)) options[key] = read();
    const made = await api("/api/rooms", {
      method: "POST",
      auth: true,
      body: { game: $("#game").value, options, seats: Number($("#seats").value), private: $("#private").checked },
    });
    location.href = made.url && made.url.startsWith("/") ? made.url : roomUrl(made.code);
  } catch (err) {
    if (err.status === 401) identity.clear();
    error.textContent = err.message;
    button.disabled = false;
  }
});

$("#join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const raw = $("#join-code").value.trim();
  if (!raw) return;
  const code = raw.includes("/r/") ? raw.split("/r/").pop().split(/[?#/]/)[0] : raw;
  if (!code) {
    toast("That is not a room code.", "error");
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
