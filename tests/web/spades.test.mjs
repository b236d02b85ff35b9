// Spades' client, read off views as the engine writes them: bids with Nil, the blind nil choice,
// the goals behind "needs N more", the bid bar against 13, the hand's order, the "Why?" lines
// and the sheet by partnership (in English; spades_pt.test.mjs: in Portuguese).
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.localStorage ??= { getItem: () => null, setItem: () => {} };
globalThis.navigator ??= { languages: ["en"] };
const { descriptor, bidText, actionText, promptFor } = await import("../../web/js/games.js");
const { bidBarText } = await import("../../web/js/bidbar.js");
const { goalsOf } = await import("../../web/js/needs.js");
const { orderFacts, sortHand } = await import("../../web/js/sorting.js");
const { whyLine, cardWhyLine } = await import("../../web/js/why.js");

const spades = descriptor("spades");
const TEAMS = [[0, 2], [1, 3]];
const BLIND_CHOICE = [{ type: "bid", value: 0, blind: true }, { type: "look" }];
const plays = (...cards) => cards.map((card) => ({ type: "play", card }));

/** A view in play: Ana (0) bid 4, Bo (1) nil, Cy (2) 3, Di (3) 5; tricks so far per seat. */
const playing = (tricks, extra = {}) => ({
  phase: "playing", teams: TEAMS, bids: [4, 0, 3, 5], blind_nil: [false, false, false, false],
  tricks_won: tricks, hand_counts: [9, 9, 9, 9], contracts: [7, 5], bags: [2, 4, 2, 4], spades_broken: false, ...extra,
});

test("a bid of 0 is Nil; blind nil and looking are said as such", () => {
  assert.equal(bidText("spades", 0), "Nil");
  assert.equal(bidText("spades", 7), "7");
  assert.equal(actionText("spades", { type: "bid", value: 0, blind: true }), "bid blind nil");
  assert.equal(actionText("spades", { type: "bid", value: 0 }), "bid Nil");
  assert.equal(actionText("spades", { type: "look" }), "looked at the cards");
  assert.equal(promptFor("spades", { phase: "bidding" }, [{ type: "bid", value: 0 }]), "How many tricks will you take? Nil: none at all.");
});

test("the blind nil choice has buttons of its own; plain bids are left to the table's stepper", () => {
  const own = spades.controls({ phase: "bidding" }, BLIND_CHOICE);
  assert.deepEqual(own.map((c) => [c.index, c.label, c.attrs["data-key"]]), [[0, "Blind nil", "blind-nil"], [1, "Look at my cards", "look"]]);
  const bids = Array.from({ length: 14 }, (_, value) => ({ type: "bid", value }));
  assert.equal(spades.controls({ phase: "bidding" }, bids), null);
  assert.match(spades.hint({ phase: "bidding" }, BLIND_CHOICE), /200 points/);
  assert.equal(promptFor("spades", { phase: "bidding" }, BLIND_CHOICE), "Bid blind nil, or look at your cards first.");
  assert.match(whyLine("spades", { phase: "bidding", hand: [] }, BLIND_CHOICE), /behind by 100 points or more/);
});

test("goals: each side's contract counted by its bidders, a nil bidder's exact 0", () => {
  const goals = goalsOf("spades", playing([2, 0, 1, 3]));
  assert.deepEqual(goals.map((g) => [g.seats, g.need, g.won, g.state, g.n]),
    [[[0, 2], 7, 3, "needs", 4], [[3], 5, 3, "needs", 2], [[1], 0, 0, "made", 0]]);
  // The nil bidder takes a trick: set; the tricks won by a nil never count for the partner.
  const after = goalsOf("spades", playing([2, 1, 1, 3]));
  assert.deepEqual(after.map((g) => [g.seats, g.won, g.state]), [[[0, 2], 3, "needs"], [[3], 3, "needs"], [[1], 1, "set"]]);
  // Both partners nil: no contract, two nils.
  const bothNil = goalsOf("spades", playing([0, 0, 0, 0], { bids: [0, 4, 0, 5], contracts: [0, 9] }));
  assert.deepEqual(bothNil.map((g) => [g.seats, g.need]), [[[0], 0], [[2], 0], [[1, 3], 9]]);
  assert.deepEqual(goalsOf("spades", { ...playing([0, 0, 0, 0]), phase: "bidding" }), []);
});

test("the bid bar counts the bids against the 13 tricks dealt", () => {
  const view = { phase: "bidding", bids: [4, 0, null, null], hand_counts: [13, 13, 13, 13] };
  assert.equal(bidBarText("spades", view), "Bids 4 of 13");
  assert.equal(bidBarText("spades", { ...view, phase: "playing" }), null);
});

test("spades are always trump and aces high: the hand shows spades first in trump order", () => {
  const hand = ["2H", "KS", "AD", "3S", "10C", "AS"];
  const facts = orderFacts(spades, { trump: "S" });
  assert.deepEqual(sortHand(hand, "trump", facts).map((i) => hand[i]), ["AS", "KS", "3S", "2H", "10C", "AD"]);
  assert.deepEqual(sortHand(hand, "rank", facts).map((i) => hand[i]).slice(0, 3), ["AS", "AD", "KS"]);
});

test("Why: spades not broken, only spades held, following suit", () => {
  const hand = ["AS", "4S", "9H", "2C"];
  const lead = { ...playing([0, 0, 0, 0]), hand, trick: [] };
  assert.equal(whyLine("spades", lead, plays("9H", "2C")), "Spades are not broken yet: lead another suit (you hold one).");
  assert.equal(cardWhyLine("spades", lead, plays("9H", "2C"), "AS"), "Spades are not broken yet: lead another suit (you hold one).");
  assert.equal(whyLine("spades", { ...lead, spades_broken: true }, plays(...hand)), "You lead this trick: any card may be played.");
  assert.equal(whyLine("spades", { ...lead, hand: ["AS", "4S"] }, plays("AS", "4S")), "You hold only spades: you may lead one though spades are not broken.");
  const follow = { ...lead, trick: [{ seat: 3, card: "KH" }] };
  assert.equal(whyLine("spades", follow, plays("9H")), "You must follow suit: you hold a heart.");
  assert.equal(cardWhyLine("spades", follow, plays("9H"), "AS"), "You must follow suit: you hold a heart.");
});

test("the sheet: per side its bids (blind nil named), tricks, bags and points", () => {
  const names = ["Ana", "Bo", "Cy", "Di"];
  const sheet = spades.sheet({ names, teams: TEAMS, teamLabel: (i) => ["Us", "Them"][i] });
  const entry = { hand_number: 1, dealer: 3, bids: [0, 4, 3, 5], blind_nil: [true, false, false, false],
    tricks: [0, 4, 4, 5], scores: [231, -90, 231, -90], bags: [1, 0, 1, 0] };
  assert.equal(sheet.about(entry), "dealt by Di");
  assert.deepEqual(sheet.groups.map((g) => g.label), ["Us", "Them"]);
  const cells = (g) => sheet.groups[g].cols.map((c) => (c.cell ? c.cell(entry) : c.score(entry)));
  assert.deepEqual(cells(0), ["Blind nil + 3", "4", "1", 231]);
  assert.deepEqual(cells(1), ["4 + 5", "9", "0", -90]);
  assert.deepEqual(sheet.groups[0].cols.map((c) => c.label), ["Bid", "Took", "Bags", "Pts"]);
});
