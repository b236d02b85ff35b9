// The hand's order in every mode, as each game's card order has it (web/js/sorting.js with the
// games' descriptors), and the bid bar's and the seats' standing words.
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.localStorage ??= { getItem: () => null, setItem: () => {} };
globalThis.navigator ??= { languages: ["en"] };
const { orderFacts, sortHand, sortModes, suitSequence, moved } = await import("../../web/js/sorting.js");
const { descriptor } = await import("../../web/js/games.js");
const { bidBarText } = await import("../../web/js/bidbar.js");
const { standing, goalsOf } = await import("../../web/js/needs.js");

/** ``hand`` as ``game`` shows it in ``mode`` with ``view``. */
function shown(game, view, hand, mode, arranged = null) {
  return sortHand(hand, mode, orderFacts(descriptor(game), view), arranged).map((i) => hand[i]);
}

test("suits alternate colours wherever the hand allows", () => {
  assert.deepEqual(suitSequence(new Set(["S", "H", "C", "D"])), ["S", "H", "C", "D"]);
  assert.deepEqual(suitSequence(new Set(["S", "C", "D"])), ["S", "D", "C"]);
  assert.deepEqual(suitSequence(new Set(["H", "D", "C"])), ["H", "C", "D"]);
  assert.deepEqual(suitSequence(new Set(["S", "C", "D", "H"]), "D"), ["D", "S", "H", "C"]);
});

test("Oh Hell: aces high; by suit, trumps to one side, by rank", () => {
  const hand = ["2C", "AH", "10S", "KC", "3D", "QH", "AS"];
  const view = { trump: "D" };
  assert.deepEqual(shown("oh_hell", view, hand, "suit"), ["AS", "10S", "AH", "QH", "KC", "2C", "3D"]);
  assert.deepEqual(shown("oh_hell", view, hand, "trump"), ["3D", "AS", "10S", "AH", "QH", "KC", "2C"]);
  assert.deepEqual(shown("oh_hell", view, hand, "rank"), ["AS", "AH", "KC", "QH", "10S", "3D", "2C"]);
  assert.deepEqual(shown("oh_hell", { trump: null }, ["5D", "AH"], "trump"), ["AH", "5D"]);
});

test("Bid Whist: uptown, downtown (A 2 3 … K), no trump, and the jokers with the trumps", () => {
  const hand = ["KS", "2S", "AS", "5H", "QH", "BJ", "LJ", "9C"];
  const up = { trump: "S", direction: "uptown" };
  assert.deepEqual(shown("bid_whist", up, hand, "suit"), ["BJ", "LJ", "AS", "KS", "2S", "QH", "5H", "9C"]);
  const down = { trump: "S", direction: "downtown", play_direction: "downtown" };
  assert.deepEqual(shown("bid_whist", down, hand, "suit"), ["BJ", "LJ", "AS", "2S", "KS", "5H", "QH", "9C"]);
  assert.deepEqual(shown("bid_whist", { ...down, trump: "H" }, hand, "trump"), ["BJ", "LJ", "5H", "QH", "AS", "2S", "KS", "9C"]);
  assert.deepEqual(shown("bid_whist", down, hand, "rank"), ["BJ", "LJ", "AS", "2S", "5H", "9C", "QH", "KS"]);
  const noTrump = { trump: null, direction: "no_trump", play_direction: "downtown" };
  assert.deepEqual(shown("bid_whist", noTrump, hand, "suit"), ["AS", "2S", "KS", "5H", "QH", "9C", "BJ", "LJ"]);
  assert.deepEqual(shown("bid_whist", { direction: "no_trump", play_direction: "uptown", trump: "S" }, hand, "trump"),
    ["AS", "KS", "2S", "QH", "5H", "9C", "BJ", "LJ"]);
});

test("Tarabish: J 9 A 10 K Q 8 7 6 in trump, A 10 K Q J 9 8 7 6 otherwise", () => {
  const hand = ["AS", "JS", "9S", "10S", "7S", "JH", "AH", "10H", "9H", "6C"];
  assert.deepEqual(shown("tarbish", { trump: "S" }, hand, "suit"), ["JS", "9S", "AS", "10S", "7S", "AH", "10H", "JH", "9H", "6C"]);
  assert.deepEqual(shown("tarbish", { trump: "H" }, hand, "trump"), ["JH", "9H", "AH", "10H", "AS", "10S", "JS", "9S", "7S", "6C"]);
  assert.deepEqual(shown("tarbish", { trump: "S", no_trump: true }, hand, "suit"), ["AS", "10S", "JS", "9S", "7S", "AH", "10H", "JH", "9H", "6C"]);
  assert.deepEqual(shown("tarbish", { trump: "S" }, ["AH", "JS", "10H", "9S"], "rank"), ["JS", "AH", "9S", "10H"]);
});

test("Ribs: ranks only, by rank or by hand", () => {
  assert.deepEqual(sortModes(descriptor("ribs")), ["rank", "hand"]);
  assert.deepEqual(sortModes(descriptor("oh_hell")), ["suit", "trump", "rank", "hand"]);
  assert.deepEqual(shown("ribs", {}, ["7", "A", "10", "K", "A", "J"], "rank"), ["A", "A", "K", "J", "10", "7"]);
});

test("by hand: the player's order, repeated ranks kept apart, new cards after it", () => {
  const hand = ["A", "7", "A", "K"];
  assert.deepEqual(sortHand(hand, "hand", orderFacts(descriptor("ribs"), {}), ["A", "K", "A"]), [0, 3, 2, 1]);
  assert.deepEqual(moved(["a", "b", "c", "d"], 0, 2), ["b", "c", "a", "d"]);
  assert.deepEqual(moved(["a", "b", "c", "d"], 3, 0), ["d", "a", "b", "c"]);
});

test("Oh Hell's bid bar: the total against the tricks, the hook's bid only when it applies", () => {
  assert.equal(bidBarText("oh_hell", { phase: "bidding", bids: [3, null, 6, null], hand_size: 10, forbidden_bid: null }), "Bids 9 of 10");
  assert.equal(bidBarText("oh_hell", { phase: "bidding", bids: [3, 2, 4, null], hand_size: 10, forbidden_bid: 1 }),
    "Bids 9 of 10 · the dealer may not bid 1");
  assert.equal(bidBarText("oh_hell", { phase: "playing", bids: [3, 2, 4, 0], hand_size: 10 }), null);
  assert.equal(bidBarText("bid_whist", { phase: "bidding", bids: [null, null, null, null] }), null);
});

test("needs N more, made and set: Oh Hell exactly, Bid Whist's declarer side at least", () => {
  assert.deepEqual(standing({ need: 3, won: 1, exact: true }, 4), { state: "needs", n: 2 });
  assert.deepEqual(standing({ need: 3, won: 1, exact: true }, 1), { state: "set", n: 0 });
  assert.deepEqual(standing({ need: 3, won: 3, exact: true }, 1), { state: "made", n: 0 });
  assert.deepEqual(standing({ need: 3, won: 4, exact: true }, 1), { state: "set", n: 0 });
  assert.deepEqual(standing({ need: 8, won: 9, exact: false }, 1), { state: "made", n: 0 });
  const oh = { phase: "playing", bids: [2, 0, 1, 1], tricks_won: [1, 1, 0, 0], hand_counts: [3, 3, 2, 3] };
  assert.deepEqual(goalsOf("oh_hell", oh).map((g) => [g.seats, g.state, g.n]),
    [[[0], "needs", 1], [[1], "set", 0], [[2], "needs", 1], [[3], "needs", 1]]);
  const bw = { phase: "playing", contract: 4, declarer: 1, tricks_needed: 9, team_tricks: [1, 5], teams: [[0, 2], [1, 3]], hand_counts: [6, 6, 6, 6] };
  assert.deepEqual(goalsOf("bid_whist", bw).map((g) => [g.seats, g.state, g.n]), [[[1, 3], "needs", 4]]);
  assert.deepEqual(goalsOf("bid_whist", { ...bw, phase: "bidding" }), []);
  assert.deepEqual(goalsOf("tarbish", { phase: "playing" }), []);
});
