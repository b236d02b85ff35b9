// "Why?" beside the prompt: each game's common constraints read off the view, in English.
import { test } from "node:test";
import assert from "node:assert/strict";

// The client reads the language from the browser; in Node it falls back to English.
globalThis.localStorage = { getItem: () => null, setItem() {} };
globalThis.navigator = { language: "en" };
const { whyLine } = await import("../../web/js/why.js");

const plays = (...cards) => cards.map((card) => ({ type: "play", card }));
const bids = (...values) => values.map((value) => ({ type: "bid", value }));
const PASS = { type: "pass" };

test("a trick game: lead anything, follow suit, or play anything when void", () => {
  for (const game of ["oh_hell", "bid_whist", "tarbish"]) {
    const hand = ["AS", "7H", "QH", "2C"];
    assert.equal(whyLine(game, { hand, trick: [] }, plays(...hand)), "You lead this trick: any card may be played.");
    const trick = [{ seat: 1, card: "9H" }];
    assert.equal(whyLine(game, { hand, trick, trump: "S" }, plays("7H", "QH")), "You must follow suit: you hold a heart.");
    assert.equal(whyLine(game, { hand: ["AS", "2C"], trick: [{ seat: 1, card: "9D" }], trump: null }, plays("AS", "2C")),
      "You hold no diamonds: any card may be played.");
  }
});

test("Tarabish: head a trump trick, trump when void, overtrump when you can", () => {
  const trick = [{ seat: 0, card: "9S" }];
  // Trumps (spades) led: only the higher trump may be played.
  assert.equal(whyLine("tarbish", { hand: ["JS", "7S", "AH"], trick, trump: "S" }, plays("JS")),
    "You must head the trick: you hold a higher trump.");
  // Holding no higher trump: follow with any trump.
  assert.equal(whyLine("tarbish", { hand: ["8S", "7S", "AH"], trick, trump: "S" }, plays("8S", "7S")),
    "You must follow suit: you hold a spade.");
  const hearts = [{ seat: 0, card: "AH" }, { seat: 1, card: "9S" }];
  assert.equal(whyLine("tarbish", { hand: ["8S", "7S", "AC"], trick: [hearts[0]], trump: "S" }, plays("8S", "7S")),
    "You hold no hearts: you must play a trump.");
  assert.equal(whyLine("tarbish", { hand: ["JS", "7S", "AC"], trick: hearts, trump: "S" }, plays("JS")),
    "You hold no hearts: you must overtrump, and you hold a higher trump.");
});

test("Tarabish: a dealer who may not pass is forced", () => {
  const call = [{ type: "trump", suit: "S" }, { type: "trump", suit: "H" }];
  assert.equal(whyLine("tarbish", { phase: "trump", throw_ins: 0 }, call), "The other three passed, so the dealer must name trump.");
  assert.equal(whyLine("tarbish", { phase: "trump", throw_ins: 3 }, call), "3 hands in a row were thrown in, so the dealer must name trump.");
  assert.equal(whyLine("tarbish", { phase: "trump", throw_ins: 0 }, [...call, PASS]), null);
});

test("Oh Hell: the hook keeps the dealer off one bid", () => {
  const view = { forbidden_bid: 2, hand_size: 5, hand: [] };
  assert.equal(whyLine("oh_hell", view, bids(0, 1, 3, 4, 5)),
    "The dealer may not bid 2: the bids would add up to the 5 cards dealt (the hook).");
  assert.equal(whyLine("oh_hell", { forbidden_bid: 0, hand_size: 1 }, bids(1)),
    "The dealer may not bid 0: the bids would add up to the 1 card dealt (the hook).");
  assert.equal(whyLine("oh_hell", { forbidden_bid: null, hand_size: 5 }, bids(0, 1, 2, 3, 4, 5)), null);
});

test("Bid Whist: outbid the high bid; the dealer takes or grants, and must take when nobody bid", () => {
  assert.equal(whyLine("bid_whist", { high_bid: 4 }, [...bids(5, 6, 7), PASS]), "Each bid must be higher than the high bid (Four).");
  assert.equal(whyLine("bid_whist", { high_bid: 7 }, [PASS]), "The high bid is Seven, the most there is: you can only pass.");
  assert.equal(whyLine("bid_whist", { high_bid: null }, [...bids(3, 4, 5, 6, 7), PASS]), null);
  assert.equal(whyLine("bid_whist", { high_bid: 5 }, [{ type: "take", value: 5 }, PASS]),
    "The dealer does not bid: take the contract at the high bid, or pass to give it to the high bidder.");
  assert.equal(whyLine("bid_whist", { high_bid: 3 }, [{ type: "take", value: 4 }]),
    "Nobody bid Four or more, so the dealer must take the contract at Four.");
});

test("Ribs: the opener must bid, raises go up by one, the Leader lays the Ribs, one fold a hand", () => {
  assert.equal(whyLine("ribs", { min_bid: 2, high_bid: null, max_bid: 12 }, bids(2, 3, 4)),
    "You open the bidding: the opener may not pass and bids at least 2.");
  assert.equal(whyLine("ribs", { min_bid: 2, high_bid: 4, max_bid: 12 }, [...bids(5), PASS]),
    "Each bid is exactly one more than the high bid of 4: bid 5, or pass.");
  assert.equal(whyLine("ribs", { min_bid: 2, high_bid: 12, max_bid: 12 }, [PASS]),
    "No bid may be above 12, the most a trick can yield: you can only pass.");
  assert.match(whyLine("ribs", {}, [{ type: "ribs", cards: ["A", "K"] }]), /the Leader may not fold/);
  const pair = (fold) => ({ type: "pair", cards: ["A", "K"], fold });
  assert.match(whyLine("ribs", {}, [pair(false), pair(true)]), /once a hand/);
  assert.equal(whyLine("ribs", {}, [pair(false)]), "You have folded once this hand already: one fold a hand.");
});

test("no reason without a decision", () => {
  assert.equal(whyLine("oh_hell", { hand: ["AS"] }, []), null);
  assert.equal(whyLine("ribs", null, [PASS]), null);
});

test("Bid Whist with directions: a bid outranks by number or by direction", () => {
  const legal = [PASS, { type: "bid", value: 4, direction: "downtown" }, { type: "bid", value: 4, direction: "no_trump" },
    { type: "bid", value: 5, direction: "uptown" }];
  assert.equal(whyLine("bid_whist", { high_bid: 4, high_direction: "uptown" }, legal),
    "Each bid must outrank the high bid (Four uptown): bid more than Four, or Four downtown / Four no trump.");
  // Downtown over uptown switched off: the same number no longer outranks downtown.
  assert.equal(whyLine("bid_whist", { high_bid: 4, high_direction: "downtown" }, [PASS, { type: "bid", value: 5, direction: "uptown" }]),
    "Each bid must be higher than the high bid (Four downtown).");
  assert.equal(whyLine("bid_whist", { high_bid: 7, high_direction: "no_trump" }, [PASS]),
    "The high bid is Seven no trump, the most there is: you can only pass.");
});

test("Bid Whist: the forced dealer takes at min_bid and names the direction", () => {
  const takes = ["uptown", "downtown", "no_trump"].map((direction) => ({ type: "take", direction }));
  assert.equal(whyLine("bid_whist", { high_bid: null, min_bid: 3 }, takes),
    "Nobody bid Three or more, so the dealer must take the contract at Three, naming its direction (uptown / downtown / no trump).");
  assert.equal(whyLine("bid_whist", { high_bid: 3, min_bid: 4 }, [{ type: "take" }]),
    "Nobody bid Four or more, so the dealer must take the contract at Four.");
});

test("Bid Whist: the kitty of 4 + jokers, the no-trump declarer's direction, trump before a joker lead", () => {
  assert.equal(whyLine("bid_whist", { jokers: 2, kitty_size: 6 }, [{ type: "discard", count: 6 }]),
    "You took the kitty of 4 + 2 jokers: discard 6 cards, as many as it held, to keep 12.");
  assert.equal(whyLine("bid_whist", { jokers: 0 }, [{ type: "discard", count: 4 }]),
    "You took the kitty: discard 4 cards, as many as it held, to keep 12.");
  assert.match(whyLine("bid_whist", { direction: "no_trump" }, [{ type: "direction", direction: "uptown" }, { type: "direction", direction: "downtown" }]),
    /^You bid no trump: choose the direction/);
  const suits = ["S", "H", "D", "C"].map((suit) => ({ type: "trump", suit }));
  assert.match(whyLine("bid_whist", { hand: ["BJ", "AS", "2H"], trick: [] }, [...suits, ...plays("AS", "2H")]),
    /name trump before you lead a joker/);
});

test("Bid Whist jokers: a trump in a trump contract, no suit in no trump, forced out when void with must_play", () => {
  // Trump (spades) led, the only trump held a joker: it must follow.
  assert.equal(whyLine("bid_whist", { hand: ["LJ", "AH", "2C"], trick: [{ seat: 1, card: "9S" }], trump: "S" }, plays("LJ")),
    "You must follow suit: your joker is a trump.");
  // A joker led in a trump contract is a trump lead.
  assert.equal(whyLine("bid_whist", { hand: ["3S", "AH"], trick: [{ seat: 1, card: "BJ" }], trump: "S" }, plays("3S")),
    "You must follow suit: you hold a spade.");
  // No trump: a joker is no heart.
  assert.equal(whyLine("bid_whist", { hand: ["BJ", "AH", "2C"], trick: [{ seat: 1, card: "9H" }], trump: null }, plays("AH")),
    "You must follow suit: you hold a heart (a joker is no heart in no trump).");
  // No trump, must_play: void in hearts with a joker, only the joker.
  assert.equal(whyLine("bid_whist", { hand: ["BJ", "AS", "2C"], trick: [{ seat: 1, card: "9H" }], trump: null }, plays("BJ")),
    "No trump: you hold no hearts, so you must play a joker (it cannot win).");
  // No trump, a joker led alone: any card.
  assert.match(whyLine("bid_whist", { hand: ["AS", "2C"], trick: [{ seat: 1, card: "LJ" }], trump: null }, plays("AS", "2C")),
    /^A joker was led in no trump/);
});
