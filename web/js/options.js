// A new table's form parts, shared by the lobby's "Create room" and a group's "New table": each
// option's control built from its JSON Schema (a group's house rules too), the players' count
// and the turn timer's choices (the slow clocks among them).
import { h } from "./dom.js";
import { t, has } from "./i18n.js";
import { isSlow } from "./slowclock.js";

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

/** One option's control, from its JSON Schema, showing `value` (the schema's default when
 * undefined); `idPrefix` keeps ids apart when a page shows two forms. Returns {node, read()}. */
export function optionControl(game, schema, key, raw, { value, idPrefix = "opt" } = {}) {
  const prop = resolve(schema, raw);
  const id = `${idPrefix}-${key}`;
  const shown = value === undefined ? prop.default : value;
  const words = optionWords(game, key, prop);
  const label = words.label;
  const help = words.help ? h("p", { class: "hint", id: `${id}-help` }, words.help) : null;
  const describedBy = help ? `${id}-help` : null;
  const nullable = Array.isArray(prop.anyOf) && prop.anyOf.some((p) => p.type === "null");
  const base = nullable ? prop.anyOf.find((p) => p.type !== "null") || {} : prop;
  const values = prop.enum || base.enum;

  if (prop.type === "boolean" || base.type === "boolean") {
    const input = h("input", { id, type: "checkbox", "aria-describedby": describedBy, checked: shown === true });
    return {
      node: h("div", { class: "field field-check" }, input, h("label", { for: id }, label), help),
      read: () => input.checked,
    };
  }
  if (Array.isArray(values)) {
    const select = h("select", { id, "aria-describedby": describedBy },
      values.map((v) => h("option", { value: JSON.stringify(v), selected: v === shown },
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
      value: shown ?? "", placeholder: nullable ? t("lobby.defaultPlaceholder") : null,
    });
    return {
      node: h("div", { class: "field" }, h("label", { for: id }, label), input, help),
      read: () => {
        if (input.value.trim() === "") return nullable ? null : prop.default;
        return Number(input.value);
      },
    };
  }
  const input = h("input", { id, "aria-describedby": describedBy, value: shown ?? "" });
  return {
    node: h("div", { class: "field" }, h("label", { for: id }, label), input, help),
    read: () => input.value,
  };
}

/** Every option of `game` (an entry of GET /api/games) as controls showing `values` (the
 * schema's defaults where a value is missing). Returns {nodes, read()}: read() gives the options. */
export function optionFields(game, { values = {}, idPrefix = "opt" } = {}) {
  const schema = game?.options || {};
  const readers = {};
  const nodes = Object.entries(schema.properties || {}).map(([key, prop]) => {
    const c = optionControl(game.name, schema, key, prop, { value: values[key], idPrefix });
    readers[key] = c.read;
    return c.node;
  });
  return { nodes, read: () => Object.fromEntries(Object.entries(readers).map(([key, read]) => [key, read()])) };
}

/** Show the players' count for `game` in `input` (within `field`, its range told in `hint`):
 * hidden when the game has one count only. */
export function showSeats(game, { field, input, hint }) {
  if (game.min_players !== game.max_players) {
    field.hidden = false;
    input.min = game.min_players;
    input.max = game.max_players;
    input.value = game.default_players ?? game.min_players;
    hint.textContent = t("lobby.seatsHint", { min: game.min_players, max: game.max_players });
  } else {
    field.hidden = true;
    input.value = game.min_players;
  }
}

// The turn timer's choices (seconds a decision; 0: off, 3600 and more: a slow table), as
// POST /api/rooms takes them.
const TURN_TIMERS = [[0, "lobby.timerOff"], [30, "lobby.timer30"], [60, "lobby.timer60"], [120, "lobby.timer120"],
  [3600, "lobby.timer1h"], [43200, "lobby.timer12h"], [86400, "lobby.timer24h"], [259200, "lobby.timer3d"]];

/** The turn timer's <option>s, `selected` (seconds) chosen. */
export const timerChoices = (selected = 0) =>
  TURN_TIMERS.map(([seconds, key]) => h("option", { value: String(seconds), selected: seconds === selected }, t(key)));

/** The turn timer's help for the clock chosen (seconds): none, a fast one, or a slow table's days. */
export const timerHelp = (seconds) =>
  t(!seconds ? "lobby.timerHelpOff" : isSlow(seconds) ? "lobby.timerHelpSlow" : "lobby.timerHelp");

// The table's own rules beyond the game's options (room options of POST /api/rooms; the first
// of each is the default): who may take back a move, who may watch a table without a seat, and
// how far behind the play they are shown.
const TABLE_CHOICES = { undo: ["ask", "off", "free"], watchers: ["everyone", "members", "nobody"], watch_delay: ["none", "trick", "hand"] };
const TABLE_WORDS = { undo: "lobby.undo", watchers: "lobby.watchers", watch_delay: "lobby.watchDelay" };

/** The table's rule controls (take-backs and watchers), showing `values` (a group's last
 * choice; the defaults where missing). Returns {nodes, read()}: read() gives {undo, watchers,
 * watch_delay}. */
export function tableFields({ values = {}, idPrefix = "opt" } = {}) {
  const readers = {};
  const nodes = Object.entries(TABLE_CHOICES).map(([key, choices]) => {
    const id = `${idPrefix}-${key.replace(/_/g, "-")}`;
    const words = TABLE_WORDS[key];
    const shown = values[key] ?? choices[0];
    const select = h("select", { id, name: key, "aria-describedby": `${id}-help` },
      choices.map((v) => h("option", { value: v, selected: v === shown }, t(`${words}.${v}`))));
    readers[key] = () => select.value;
    return h("div", { class: "field" }, h("label", { for: id }, t(words)), select,
      h("p", { class: "hint", id: `${id}-help` }, t(`${words}.help`)));
  });
  return { nodes, read: () => Object.fromEntries(Object.entries(readers).map(([key, read]) => [key, read()])) };
}
