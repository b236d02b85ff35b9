// A table's rules in one short line, in the page's language: the game, every option that
// differs from its default, then the target ("Bid Whist · 2 jokers · uptown/downtown/no trump ·
// to ±7"; a default table reads "Bid Whist · to 21"). The defaults come from the game's option
// schema (GET /api/games); the contract's own defaults (PROTOCOL §3) stand in for a schema that
// is missing or does not list an option yet. The lobby's rows, the table page, the history and
// the match page all use it; the match page also lists every option (optionList).
import { t, has } from "./i18n.js";
import { api } from "./api.js";

/** Every option of every game and its default, as the contract names them (PROTOCOL §3), in
 * the order the summary says them (Oh Hell's trump and scoring first: they matter most). */
export const CONTRACT_DEFAULTS = {
  oh_hell: {
    trump: "turn", scoring: "standard", start: "high", rebound: true, min_cards: 1, max_cards: null, hook: true,
    hook_last_hand: true, vienna: false, blind_one: false, until_clear_winner: false,
  },
  bid_whist: {
    target: 21, jokers: 0, books: "seed", directions: false, no_trump: false, downtown_beats_uptown: true,
    no_trump_double: true, boston: "wins", sport_kitty: false, min_bid: 4, game_to: 7, joker_no_trump: "free",
  },
  tarbish: { target: 500, half_bait: false, no_trump: false, dealer_forced: true },
  ribs: { target: 5, until_sole_winner: false },
  spades: { target: 500, blind_nil: false, bag_limit: 10, lose_at: null },
};

// Options the summary never says on their own: the target (always shown, last) and what reads
// with another option (Bid Whist's books as "to ±7", its no trump with the directions).
const FOLDED = { bid_whist: new Set(["target", "game_to", "books", "no_trump"]) };

/** Resolve a "$ref" (or an allOf of one) into the schema's "$defs". */
function resolve(schema, prop) {
  const ref = prop.$ref || (Array.isArray(prop.allOf) && prop.allOf[0]?.$ref);
  return ref ? { ...(schema.$defs?.[ref.split("/").pop()] || {}), ...prop } : prop;
}

/** The defaults of ``game``'s options: the schema's, over the contract's. */
export function defaultsOf(game, schema) {
  const out = { ...(CONTRACT_DEFAULTS[game] || {}) };
  for (const [key, raw] of Object.entries(schema?.properties || {})) {
    const prop = resolve(schema, raw);
    if ("default" in prop) out[key] = prop.default;
  }
  return out;
}

const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The game's short name in the summary ("Tarabish"), else its title. */
function shortTitle(game, title) {
  if (has(`summary.game.${game}`)) return t(`summary.game.${game}`);
  if (has(`game.${game}.title`)) return t(`game.${game}.title`);
  return title || game;
}

/** The words for one option set to ``value`` (a changed one), e.g. "squared", "2 jokers". */
function optionWords(game, key, value, schema, options) {
  if (game === "bid_whist" && key === "directions") return bidWhistDirections(options);
  const specific = `summary.${game}.${key}.${value}`;
  if (has(specific)) return t(specific);
  const general = `summary.${game}.${key}`;
  if (has(general)) return t(general, { value, n: value });
  return `${optionLabel(game, key, schema)}: ${valueWords(game, key, value)}`;
}

/** Bid Whist's bidding in a word: "uptown/downtown" or "uptown/downtown/no trump". */
function bidWhistDirections(options) {
  if (!options.directions) return null;
  return t(options.no_trump ? "summary.bid_whist.directionsNoTrump" : "summary.bid_whist.directions");
}

/** What the table plays to: "to 21", "to ±7" (Bid Whist's thirteen books), nothing for Oh Hell. */
function targetWords(game, options) {
  if (game === "bid_whist" && options.books === "thirteen") return t("summary.toPlusMinus", { n: options.game_to });
  if (options.target === undefined || options.target === null) return null;
  return t("summary.to", { n: options.target });
}

/**
 * The one-line summary of a table's rules: the game's name, what differs from the defaults (in
 * the order of the options), then the target. ``schema`` is the game's options schema from
 * GET /api/games (null: the contract's defaults); ``title`` the server's title as a fallback.
 */
export function rulesSummary(game, options, schema = null, title = "") {
  const defaults = defaultsOf(game, schema);
  const chosen = { ...defaults, ...(options || {}) };
  const folded = FOLDED[game] || new Set(["target"]);
  const parts = [shortTitle(game, title)];
  for (const key of Object.keys(chosen)) {
    if (folded.has(key) || key === "target" || same(chosen[key], defaults[key])) continue;
    parts.push(optionWords(game, key, chosen[key], schema, chosen));
  }
  parts.push(targetWords(game, chosen));
  return parts.filter(Boolean).join(" · ");
}

/** An option's name as the lobby labels it ("Scoring"), else the schema's title, else the key. */
export function optionLabel(game, key, schema = null) {
  const base = `option.${game}.${key}`;
  if (has(base)) return t(base);
  if (has(`summary.label.${game}.${key}`)) return t(`summary.label.${game}.${key}`);
  if (has(`option.table.${key}`)) return t(`option.table.${key}`); // the room's own (a group's take-back rule)
  const prop = schema?.properties?.[key];
  return prop?.title || key.replace(/_/g, " ");
}

/** A value in words: the lobby's word for it, on/off for a switch, "usual" for an empty one. */
export function valueWords(game, key, value) {
  const base = `option.${game}.${key}.${value}`;
  if (has(base)) return t(base);
  if (has(`summary.value.${game}.${key}.${value}`)) return t(`summary.value.${game}.${key}.${value}`);
  if (has(`option.table.${key}.${value}`)) return t(`option.table.${key}.${value}`);
  if (typeof value === "boolean") return t(value ? "summary.on" : "summary.off");
  if (value === null || value === undefined) return t("summary.usual");
  return String(value);
}

/** Every option of the table, in order: [{key, label, value, changed}] (the match page's list). */
export function optionList(game, options, schema = null) {
  const defaults = defaultsOf(game, schema);
  const chosen = { ...defaults, ...(options || {}) };
  return Object.keys(chosen).map((key) => ({
    key,
    label: optionLabel(game, key, schema),
    value: valueWords(game, key, chosen[key]),
    changed: !same(chosen[key], defaults[key]),
  }));
}

let catalogue = null; // the promise of GET /api/games, asked once per page
let known = null; // its answer once it has come

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
    node.textContent = rulesSummary(game, options, entry?.options || null, entry?.title || title);
  };
  if (known) return say(known[game]);
  say(null);
  say((await gameSchemas())[game]);
}
