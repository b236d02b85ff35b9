// A table's rules in one short line, in the page's language: the game, every option that
// differs from its default, then the target ("<game> · 2 jokers · uptown/downtown/no trump ·
// to ±7"; a default table reads "<game> · to 21"). What it knows of a game comes from the
// game's entry in GET /api/games: the defaults (its "options" schema), the order the summary
// says them in ("order"), those never said on their own ("folded") and the words ("words");
// the game's client descriptor (games/<name>/) words what reads with another option. The lobby's
// rows, the table page, the history and the match page all use it; the match page also lists
// every option (optionList).
import { t, has, lang } from "./i18n.js";
import { api } from "./api.js";
import { descriptor } from "./games.js";

/** Resolve a "$ref" (or an allOf of one) into the schema's "$defs". */
function resolve(schema, prop) {
  const ref = prop.$ref || (Array.isArray(prop.allOf) && prop.allOf[0]?.$ref);
  return ref ? { ...(schema.$defs?.[ref.split("/").pop()] || {}), ...prop } : prop;
}

/** A game's entry from GET /api/games: the one given, else the one fetched (see gameSchemas). */
const entryOf = (game, entry) => entry || known?.[game] || null;

/** The defaults of ``game``'s options, from its schema (none known without one). */
export function defaultsOf(game, entry = null) {
  const schema = entryOf(game, entry)?.options;
  const out = {};
  for (const [key, raw] of Object.entries(schema?.properties || {})) {
    const prop = resolve(schema, raw);
    if ("default" in prop) out[key] = prop.default;
  }
  return out;
}

/** The options in the order a summary says them: the server's "order", then the schema's, then
 *  any the table has that neither lists. */
function ordered(game, entry, chosen) {
  const first = entry?.order || [];
  return [...new Set([...first, ...Object.keys(chosen)])].filter((key) => key in chosen);
}

/** Options never said on their own: the target (said last) and what reads with another. */
function foldedOf(entry) {
  return new Set(["target", ...(entry?.folded || [])]);
}

const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The server's words for an option in the page's language (English otherwise), or null. */
function serverWords(game, key, entry) {
  const words = entryOf(game, entry)?.words;
  return words?.[lang]?.[key] || words?.en?.[key] || null;
}

/** The game's short name in the summary (its strings' summary.game.<name>), else its title. */
function shortTitle(game, title) {
  if (has(`summary.game.${game}`)) return t(`summary.game.${game}`);
  if (has(`game.${game}.title`)) return t(`game.${game}.title`);
  return title || game;
}

/** The words for one option set to ``value`` (a changed one), e.g. "squared", "2 jokers". */
function optionWords(game, key, value, entry, options) {
  const own = descriptor(game).summary?.words?.(key, options);
  if (own !== undefined) return own;
  const specific = `summary.${game}.${key}.${value}`;
  if (has(specific)) return t(specific);
  const general = `summary.${game}.${key}`;
  if (has(general)) return t(general, { value, n: value });
  return `${optionLabel(game, key, entry)}: ${valueWords(game, key, value, entry)}`;
}

/** What the table plays to: "to 21" (or the game's own, "to ±7"), nothing without a target. */
function targetWords(game, options) {
  const own = descriptor(game).summary?.target?.(options);
  if (own) return own;
  if (options.target === undefined || options.target === null) return null;
  return t("summary.to", { n: options.target });
}

/**
 * The one-line summary of a table's rules: the game's name, what differs from the defaults (in
 * the summary's order), then the target. ``entry`` is the game's entry from GET /api/games
 * (null: the one fetched, if any; without one no default is known and no option is said);
 * ``title`` the server's title as a fallback.
 */
export function rulesSummary(game, options, entry = null, title = "") {
  const info = entryOf(game, entry);
  const defaults = defaultsOf(game, info);
  const chosen = { ...defaults, ...(options || {}) };
  const folded = foldedOf(info);
  const parts = [shortTitle(game, title || info?.title)];
  for (const key of ordered(game, info, chosen)) {
    if (folded.has(key) || !(key in defaults) || same(chosen[key], defaults[key])) continue;
    parts.push(optionWords(game, key, chosen[key], info, chosen));
  }
  parts.push(targetWords(game, chosen));
  return parts.filter(Boolean).join(" · ");
}

/** An option's name as the lobby labels it ("Scoring"), else the server's word, else the
 *  schema's title, else the key. */
export function optionLabel(game, key, entry = null) {
  const base = `option.${game}.${key}`;
  if (has(base)) return t(base);
  if (has(`summary.label.${game}.${key}`)) return t(`summary.label.${game}.${key}`);
  if (has(`option.table.${key}`)) return t(`option.table.${key}`); // the room's own (a group's take-back rule)
  const said = serverWords(game, key, entry)?.label;
  if (said) return said;
  const prop = entryOf(game, entry)?.options?.properties?.[key];
  return prop?.title || key.replace(/_/g, " ");
}

/** A value in words: the lobby's word for it, the server's, on/off for a switch, "usual" for an empty one. */
export function valueWords(game, key, value, entry = null) {
  const base = `option.${game}.${key}.${value}`;
  if (has(base)) return t(base);
  if (has(`summary.value.${game}.${key}.${value}`)) return t(`summary.value.${game}.${key}.${value}`);
  if (has(`option.table.${key}.${value}`)) return t(`option.table.${key}.${value}`);
  const said = serverWords(game, key, entry)?.values?.[JSON.stringify(value ?? null)];
  if (said) return said;
  if (typeof value === "boolean") return t(value ? "summary.on" : "summary.off");
  if (value === null || value === undefined) return t("summary.usual");
  return String(value);
}

/** Every option of the table, in order: [{key, label, value, changed}] (the match page's list). */
export function optionList(game, options, entry = null) {
  const info = entryOf(game, entry);
  const defaults = defaultsOf(game, info);
  const chosen = { ...defaults, ...(options || {}) };
  return ordered(game, info, chosen).map((key) => ({
    key,
    label: optionLabel(game, key, info),
    value: valueWords(game, key, chosen[key], info),
    changed: key in defaults && !same(chosen[key], defaults[key]),
  }));
}

let catalogue = null; // the promise of GET /api/games, asked once per page
let known = null; // its answer once it has come

/** A game's entry from GET /api/games if it has come (see gameSchemas), else null. */
export const gameEntry = (game) => known?.[game] || null;

/** Every game's entry from GET /api/games by name (empty when the server cannot say). */
export function gameSchemas() {
  catalogue ??= api("/api/games")
    .then((games) => Object.fromEntries((games || []).map((g) => [g.name, g])))
    .catch(() => ({}))
    .then((byName) => (known = byName));
  return catalogue;
}

/** Put the summary of a table's rules into ``node`` (text only), the schema fetched once. */
export async function showSummary(node, game, options, title = "") {
  const say = (entry) => {
    node.textContent = rulesSummary(game, options, entry || null, entry?.title || title);
  };
  if (known) return say(known[game]);
  say(null);
  say((await gameSchemas())[game]);
}
