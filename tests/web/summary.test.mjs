// The one-line summary of a table's rules (web/js/summary.js), in English: what differs from
// the defaults, then the target, for every option of the four games (PROTOCOL §3).
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.localStorage = { getItem: () => null, setItem() {} };
globalThis.navigator = { language: "en" };
const { rulesSummary, optionList, defaultsOf } = await import("../../web/js/summary.js");
const { DEFAULTS, entry } = await import("./summary_games.mjs");

// The games' entries as GET /api/games gives them (only what the summary reads).
const OH_HELL = entry("oh_hell");
const TARBISH = entry("tarbish");
const BID_WHIST = entry("bid_whist");
const RIBS = entry("ribs");

test("a default table says only the game and its target", () => {
  assert.equal(rulesSummary("bid_whist", {}, BID_WHIST), "Bid Whist · to 21");
  assert.equal(rulesSummary("bid_whist", { ...DEFAULTS.bid_whist }, BID_WHIST), "Bid Whist · to 21");
  assert.equal(rulesSummary("tarbish", { target: 500, half_bait: false, no_trump: false, dealer_forced: true }, TARBISH), "Tarabish · to 500");
  assert.equal(rulesSummary("ribs", { target: 5 }, RIBS), "Ribs · to 5");
  assert.equal(rulesSummary("oh_hell", { ...DEFAULTS.oh_hell }, OH_HELL), "Oh Hell");
});

test("the examples of the issue read as written", () => {
  const bw = { jokers: 2, books: "thirteen", directions: true, no_trump: true, game_to: 7 };
  assert.equal(rulesSummary("bid_whist", bw, BID_WHIST), "Bid Whist · 2 jokers · uptown/downtown/no trump · to ±7");
  assert.equal(rulesSummary("oh_hell", { trump: "no_trump_largest", scoring: "squared" }, OH_HELL), "Oh Hell · no trump on the largest hand · squared");
  assert.equal(rulesSummary("tarbish", { no_trump: true, target: 500 }, TARBISH), "Tarabish · no trump · to 500");
});

test("every Bid Whist option reads in words when it differs", () => {
  const all = {
    target: 11, jokers: 1, directions: true, downtown_beats_uptown: false, no_trump_double: false,
    boston: "quadruple", sport_kitty: true, joker_no_trump: "must_play",
  };
  assert.equal(rulesSummary("bid_whist", all, BID_WHIST),
    "Bid Whist · 1 joker · uptown/downtown · uptown beats downtown · no trump not doubled · Boston ×4 · kitty shown · jokers first in no trump · to 11");
  assert.equal(rulesSummary("bid_whist", { books: "thirteen", min_bid: 3, game_to: 5 }, BID_WHIST), "Bid Whist · bids from 3 · to ±5");
});

test("every Oh Hell option reads in words when it differs", () => {
  const all = {
    start: "low", rebound: false, min_cards: 3, max_cards: 5, hook: false, hook_last_hand: false,
    scoring: "basic", vienna: true, trump: "rotation", blind_one: true, until_clear_winner: true,
  };
  assert.equal(rulesSummary("oh_hell", all, OH_HELL),
    "Oh Hell · trump rotation · basic scoring · smallest hand first · no way back · down to 3 cards · up to 5 cards · no hook · no hook in the 1-card hand · Vienna · blind 1-card hand · until one player leads");
  for (const [value, words] of [["S", "spades always trump"], ["no_trump", "no trump"], ["turn", null]]) {
    assert.equal(rulesSummary("oh_hell", { trump: value }, OH_HELL), words ? `Oh Hell · ${words}` : "Oh Hell");
  }
  for (const [value, words] of [["penalty", "penalty scoring"], ["anderson", "Anderson scoring"], ["exact", "exact scoring"]]) {
    assert.equal(rulesSummary("oh_hell", { scoring: value }, OH_HELL), `Oh Hell · ${words}`);
  }
  assert.equal(rulesSummary("oh_hell", { max_cards: 1 }, OH_HELL), "Oh Hell · up to 1 card");
});

test("every Tarabish and Ribs option reads in words when it differs", () => {
  assert.equal(rulesSummary("tarbish", { target: 100, half_bait: true, no_trump: true, dealer_forced: false }, TARBISH),
    "Tarabish · half bait · no trump · dealer not forced · to 100");
  assert.equal(rulesSummary("ribs", { target: 2, until_sole_winner: true }, RIBS), "Ribs · until one player leads · to 2");
});

test("the schema's defaults decide, and an option the words do not know still shows", () => {
  const moved = { options: { properties: { target: { default: 300 }, fancy_rule: { title: "Fancy Rule", default: false } } } };
  assert.equal(rulesSummary("tarbish", { target: 300 }, moved), "Tarabish · to 300");
  assert.equal(rulesSummary("tarbish", { target: 300, fancy_rule: true }, moved), "Tarabish · Fancy Rule: on · to 300");
  assert.equal(defaultsOf("tarbish", moved).target, 300);
  const refd = { $defs: { Trump: { enum: ["turn", "rotation"] } }, properties: { trump: { $ref: "#/$defs/Trump", default: "rotation" } } };
  assert.equal(defaultsOf("oh_hell", { options: refd }).trump, "rotation");
});

test("the full option list names every option, marks the changed ones and keeps the lobby's words", () => {
  const list = optionList("tarbish", { target: 300, no_trump: true }, TARBISH);
  assert.deepEqual(list.map((o) => o.key), ["target", "half_bait", "no_trump", "dealer_forced"]);
  assert.deepEqual(list.find((o) => o.key === "no_trump"), { key: "no_trump", label: "No trump may be called", value: "No trump allowed", changed: true });
  assert.equal(list.find((o) => o.key === "half_bait").value, "off");
  assert.equal(list.find((o) => o.key === "target").value, "300");
  const whist = optionList("bid_whist", { books: "thirteen" }, BID_WHIST);
  assert.equal(whist.length, Object.keys(DEFAULTS.bid_whist).length);
  assert.deepEqual(whist.find((o) => o.key === "books"), { key: "books", label: "Books", value: "13 books, book of 6", changed: true });
  assert.equal(optionList("oh_hell", {}, OH_HELL).find((o) => o.key === "max_cards").value, "the usual");
});

test("without the game's entry no default is known: only the game and its target are said", () => {
  assert.equal(rulesSummary("oh_hell", { trump: "rotation" }), "Oh Hell");
  assert.equal(rulesSummary("tarbish", { target: 300, no_trump: true }), "Tarabish · to 300");
});

test("the server's order, folded options and words decide when the entry has them", () => {
  const told = {
    ...TARBISH,
    order: ["dealer_forced", "no_trump", "half_bait", "target"],
    folded: ["half_bait"],
    words: { en: { fancy: { label: "Fancy", values: { "true": "fancy on", "\"x\"": "ex" } } } },
  };
  told.options = { properties: { ...TARBISH.options.properties, fancy: { default: false } } };
  assert.equal(rulesSummary("tarbish", { no_trump: true, dealer_forced: false, half_bait: true }, told),
    "Tarabish · dealer not forced · no trump · to 500");
  assert.equal(rulesSummary("tarbish", { fancy: true }, told), "Tarabish · Fancy: fancy on · to 500");
  assert.equal(rulesSummary("tarbish", { fancy: "x" }, told), "Tarabish · Fancy: ex · to 500");
  assert.deepEqual(optionList("tarbish", {}, told).map((o) => o.key), ["dealer_forced", "no_trump", "half_bait", "target", "fancy"]);
});
