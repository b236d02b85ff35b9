// The rules summary in Portuguese: the same line in the page's other language.
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.localStorage = { getItem: (key) => (key === "felt.lang" ? "pt" : null), setItem() {} };
globalThis.navigator = { language: "pt-BR" };
const { rulesSummary, optionList } = await import("../../web/js/summary.js");
const { entry } = await import("./summary_games.mjs");

test("the summaries read in Portuguese", () => {
  assert.equal(rulesSummary("bid_whist", {}, entry("bid_whist")), "Bid Whist · até 21");
  assert.equal(rulesSummary("bid_whist", { jokers: 2, books: "thirteen", directions: true, no_trump: true }, entry("bid_whist")),
    "Bid Whist · 2 curingas · alta/baixa/sem trunfo · até ±7");
  assert.equal(rulesSummary("oh_hell", { trump: "rotation", scoring: "squared", max_cards: 2 }, entry("oh_hell")),
    "Oh Hell · trunfo em rotação · ao quadrado · no máximo 2 cartas");
  assert.equal(rulesSummary("tarbish", { no_trump: true, dealer_forced: false, target: 100 }, entry("tarbish")),
    "Tarabish · sem trunfo · carteador não obrigado · até 100");
  assert.equal(optionList("tarbish", { half_bait: true }, entry("tarbish")).find((o) => o.key === "half_bait").value, "sim");
});
