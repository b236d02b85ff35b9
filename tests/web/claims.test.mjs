// Claiming the rest in the client (web/js/claims.js): when the button is offered, and when an
// accepted claim is the table's news (new since the page opened, until the next hand's play).
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.localStorage = { getItem: () => null, setItem() {} };
globalThis.navigator = { language: "en" };
const { claimNews, mayClaim } = await import("../../web/js/claims.js");

const state = (over = {}, game = {}) => ({
  you: 0, room: { status: "playing" }, seats: [{ seat: 0 }, { seat: 1 }, { seat: 2 }], chat: [],
  game: { phase: "playing", hand: ["AS", "2H"], history: [], log: [], ...game }, ...over,
});
const claimLine = (at) => ({ seat: 0, name: "Ana", text: "Ana claimed the rest", at, event: "claim" });

test("a claim is offered to a seated player holding cards while the tricks are played", () => {
  assert.equal(mayClaim(state()), true);
  assert.equal(mayClaim(state({ you: null })), false); // watching
  assert.equal(mayClaim(state({}, { phase: "bidding" })), false);
  assert.equal(mayClaim(state({}, { hand: [] })), false);
  assert.equal(mayClaim(state({ room: { status: "finished" } })), false);
  assert.equal(mayClaim(state({ seats: [{ seat: 0, away: true }] })), false); // a bot plays on
  assert.equal(mayClaim(state(), false), false); // a game without claims (Ribs)
});

test("a claim is news once, from the page's first view on, until the next hand's first card", () => {
  const names = ["Ana", "Bot 2", "Bot 3"];
  assert.deepEqual(claimNews(state({ chat: [claimLine(1)] }), names), { text: null, fresh: "" }); // history
  const chat = [claimLine(1), { seat: 1, name: "Bea", text: "gg", at: 2 }, claimLine(3)];
  assert.deepEqual(claimNews(state({ chat }), names), { text: "Ana claimed the rest", fresh: "Ana claimed the rest" });
  assert.deepEqual(claimNews(state({ chat }), names), { text: "Ana claimed the rest", fresh: "" }); // said once
  const bidding = state({ chat }, { phase: "bidding", history: [{}], log: [{ seat: 1, action: { type: "bid", value: 1 } }] });
  assert.equal(claimNews(bidding, names).text, "Ana claimed the rest"); // the next hand is bid
  const played = state({ chat }, { history: [{}], log: [{ seat: 1, action: { type: "play", card: "KS" } }] });
  assert.equal(claimNews(played, names).text, null);
});

test("a second claim in the same second is news too, and an old one leaving the chat is not", () => {
  const names = ["Ana", "Bot 2", "Bot 3"];
  const first = [claimLine(7)];
  claimNews(state({ chat: first }), names);
  const again = [claimLine(7), { seat: 1, name: "Bea", text: "gg", at: 7 }, claimLine(7)];
  assert.equal(claimNews(state({ chat: again }, { history: [{}] }), names).fresh, "Ana claimed the rest");
  const rolled = [{ seat: 1, name: "Bea", text: "gg", at: 7 }, claimLine(7)]; // the oldest line left the chat
  assert.equal(claimNews(state({ chat: rolled }, { history: [{}] }), names).fresh, "");
});
