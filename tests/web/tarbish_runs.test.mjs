// "Declare runs" names the run: the best one in the hand, as the rules compare runs.
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.localStorage ??= { getItem: () => null, setItem: () => {} };
globalThis.navigator ??= { languages: ["en"] };
const { bestRun, default: tarbish } = await import("../../web/js/games/tarbish/index.js");

test("a fifty beats a twenty, then the higher top card, then a trump run", () => {
  assert.deepEqual(bestRun(["QS", "KS", "AS", "6H", "7H", "8H", "9H", "10D"], "S"), { run: "fifty", cards: ["6H", "7H", "8H", "9H"] });
  assert.deepEqual(bestRun(["6H", "7H", "8H", "10S", "JS", "QS"], "H"), { run: "twenty", cards: ["10S", "JS", "QS"] });
  assert.deepEqual(bestRun(["8H", "9H", "10H", "8C", "9C", "10C"], "C"), { run: "twenty", cards: ["8C", "9C", "10C"] });
  assert.deepEqual(bestRun(["10D", "JD", "QD", "KD", "AD"], null), { run: "fifty", cards: ["10D", "JD", "QD", "KD", "AD"] });
  assert.equal(bestRun(["6H", "7H", "9H", "AS", "KS"], "S"), null);
});

test("the declare button says which run, with its cards", () => {
  const view = { hand: ["6H", "7H", "8H", "9H", "AS"], trump: "S", no_trump: false };
  assert.equal(tarbish.declareLabel(view), "Declare your run of fifty: 6♥︎ 7♥︎ 8♥︎ 9♥︎");
  assert.equal(tarbish.declareLabel({ hand: ["6H", "AS"], trump: "S" }), null);
});
