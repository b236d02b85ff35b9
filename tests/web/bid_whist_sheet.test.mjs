// Bid Whist's score sheet: a sweep is the seed's "Chicago!", and with house options a Boston
// (×4 when the table scores it four times), in English and Portuguese.
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.localStorage = { getItem: () => null, setItem() {} };
globalThis.navigator = { language: "en" };
const bidWhist = (await import("../../web/js/games/bid_whist/index.js")).default;

// The hand's result, after the contract and the declarer ("Ana · Chicago!").
const about = (entry) => bidWhist.sheet({ names: ["Ana", "Bo", "Cy", "Di"], teams: [[0, 2], [1, 3]], teamLabel: String })
  .about(entry).split(" · ").slice(1).join(" · ");
const hand = { contract: 4, declarer: 0, trump: "S", made: true, chicago: true, tricks: [12, 0] };

test("a sweep in the seed's game is a Chicago", () => {
  assert.equal(about({ ...hand, house: false }), "Ana · Chicago!");
  assert.equal(about(hand), "Ana · Chicago!"); // a record from before `house` was kept
});

test("a sweep at a table with house options is a Boston, ×4 when quadrupled", () => {
  assert.equal(about({ ...hand, house: true }), "Ana · Boston!");
  assert.equal(about({ ...hand, house: true, quadrupled: true }), "Ana · Boston ×4");
  assert.equal(about({ ...hand, house: true, trump: null, direction: "no_trump", play_direction: "downtown", doubled: true, quadrupled: true }),
    "Ana · Boston ×4");
  assert.equal(about({ ...hand, house: true, chicago: false, tricks: [9, 3] }), "Ana · made");
});
