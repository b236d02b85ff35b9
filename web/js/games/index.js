// The client's game registry: one descriptor per game says what differs in how the table,
// the prompts and the score sheet show that game. A fifth game adds one module and one line.
import ohHell from "./oh_hell.js";
import bidWhist from "./bid_whist.js";
import tarbish from "./tarbish.js";
import ribs from "./ribs.js";
import spades from "./spades.js";

const GAMES = Object.fromEntries([ohHell, bidWhist, tarbish, ribs, spades].map((d) => [d.name, d]));

/** What a game's client does differently (defaults: trump shown, tricks counted per seat). */
export function descriptor(name) {
  return GAMES[name] || { name };
}
