// The client's games: one line per game, its folder (games/<name>/: index.js, the descriptor,
// and strings.js, its words). A game's client is that folder and its line here.
export { default as oh_hell } from "./oh_hell/index.js";
export { default as bid_whist } from "./bid_whist/index.js";
export { default as tarbish } from "./tarbish/index.js";
export { default as ribs } from "./ribs/index.js";
export { default as spades } from "./spades/index.js";
