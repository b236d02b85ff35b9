// "Why?" in Portuguese for Bid Whist's house options: the jokers, the kitty, the forced dealer.
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.localStorage = { getItem: () => null, setItem() {} };
globalThis.navigator = { language: "pt-BR" };
const { whyLine } = await import("../../web/js/why.js");
const bidWhist = (await import("../../web/js/games/bid_whist/index.js")).default;

const plays = (...cards) => cards.map((card) => ({ type: "play", card }));

test("Bid Whist's house options in Portuguese", () => {
  assert.equal(whyLine("bid_whist", { hand: ["BJ", "AS"], trick: [{ seat: 1, card: "9H" }], trump: null }, plays("BJ")),
    "Sem trunfo: você não tem copas, então tem de jogar um curinga (ele não ganha).");
  assert.equal(whyLine("bid_whist", { jokers: 1 }, [{ type: "discard", count: 5 }]),
    "Você pegou a viúva de 4 + 1 curinga: descarte 5 cartas, tantas quantas ela tinha, para ficar com 12.");
  assert.equal(whyLine("bid_whist", { min_bid: 3 }, [{ type: "take", direction: "uptown" }, { type: "take", direction: "downtown" }]),
    "Ninguém apostou Três ou mais, então o distribuidor tem de ficar com o contrato em Três, escolhendo a direção (para cima / para baixo).");
});

test("a Boston on the Portuguese score sheet", () => {
  const about = (e) => bidWhist.sheet({ names: ["Ana"], teams: [], teamLabel: String }).about(e).split(" · ").pop();
  const sweep = { contract: 4, declarer: 0, trump: "S", chicago: true };
  assert.equal(about({ ...sweep, house: false }), "Chicago!");
  assert.equal(about({ ...sweep, house: true, quadrupled: true }), "Boston ×4");
});
