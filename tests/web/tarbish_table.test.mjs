// The Tarabish table's words for the house options: a no-trump call and thrown-in hands.
import { test } from "node:test";
import assert from "node:assert/strict";

// The client reads the language from the browser; in Node it falls back to English.
globalThis.localStorage = { getItem: () => null, setItem() {} };
globalThis.navigator = { language: "en" };
const games = await import("../../web/js/games.js");
const tarbish = (await import("../../web/js/games/tarbish/index.js")).default;

test("the prompt offers no trump when it is legal", () => {
  const legal = [{ type: "trump", suit: "S" }, { type: "trump", suit: "N" }, { type: "pass" }];
  assert.equal(games.promptFor("tarbish", {}, legal), "Name a trump suit, call no trump, or pass.");
  assert.equal(games.promptFor("tarbish", {}, legal.slice(0, 2)), "Name a trump suit, or call no trump.");
  assert.equal(games.promptFor("tarbish", {}, [legal[0], legal[2]]), "Name a trump suit, or pass.");
});

test("a no-trump call reads as one in the log, the trump line and the score sheet", () => {
  assert.equal(games.actionText("tarbish", { type: "trump", suit: "N" }), "called no trump");
  assert.equal(tarbish.noTrumpText({ no_trump: true }), "no trump");
  assert.equal(tarbish.noTrumpText({ no_trump: false }), null); // "not yet" before the call
  const sheet = tarbish.sheet({ names: ["A", "B", "C", "D"], teams: [[0, 2], [1, 3]], teamLabel: (i) => `T${i}` });
  assert.equal(sheet.about({ trump: null, no_trump: true, caller: 1, made: true }), "no trump · B · made");
});

test("hands thrown in in a row are counted above the table", () => {
  assert.deepEqual(tarbish.info({ throw_ins: 2 }), [["Thrown in", "2"]]);
  assert.deepEqual(tarbish.info({ throw_ins: 0 }), []);
});
