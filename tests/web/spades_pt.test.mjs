// Spades' client in Portuguese: Nulo, nulo às cegas, the sides' tricks of their contracts, sacos.
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.localStorage ??= { getItem: () => "pt", setItem: () => {} };
globalThis.navigator ??= { languages: ["pt-BR"] };
const { descriptor, bidText, actionText } = await import("../../web/js/games.js");
const { whyLine } = await import("../../web/js/why.js");

const spades = descriptor("spades");
const BLIND_CHOICE = [{ type: "bid", value: 0, blind: true }, { type: "look" }];

test("bids, the blind nil choice and the info bar in Portuguese", () => {
  assert.equal(bidText("spades", 0), "Nulo");
  assert.equal(actionText("spades", { type: "bid", value: 0, blind: true }), "apostou nulo às cegas");
  const own = spades.controls({ phase: "bidding" }, BLIND_CHOICE);
  assert.deepEqual(own.map((c) => c.label), ["Nulo às cegas", "Ver minhas cartas"]);
  const view = { phase: "playing", teams: [[0, 2], [1, 3]], bids: [4, 0, 3, 5], tricks_won: [1, 0, 2, 0],
    contracts: [7, 5], bags: [2, 4, 2, 4], spades_broken: false };
  const info = spades.info(view, ["Ana", "Bo", "Cy", "Di"]);
  assert.deepEqual(info.map(([label]) => label), ["Espadas", "Vazas dos contratos", "Sacos"]);
  assert.equal(info[1][1], "Ana & Cy: 3 de 7 · Bo & Di: 0 de 5");
  assert.equal(info[2][1], "Ana & Cy: 2 · Bo & Di: 4");
  const sheet = spades.sheet({ names: ["Ana", "Bo", "Cy", "Di"], teams: [[0, 2], [1, 3]], teamLabel: (i) => ["Nós", "Eles"][i] });
  assert.deepEqual(sheet.groups[0].cols.map((c) => c.label).slice(2), ["Sacos", "Pts"]);
  const hand = ["AS", "9H"];
  assert.equal(whyLine("spades", { ...view, hand, trick: [] }, [{ type: "play", card: "9H" }]),
    "As espadas ainda não foram quebradas: saia com outro naipe (você tem um).");
});
