// The order of the cards in your hand, as the table's card order has it now. Four ways:
//   suit  - suits together, the suits' colours alternating (black, red, black, red), each suit
//           high to low; jokers sit with the trumps (or at the end without a trump suit);
//   trump - the same, with the trumps (jokers first) at the left end;
//   rank  - high to low across suits; equal ranks by the suits' order, trumps first;
//   hand  - as the player arranged them (dragged, or moved with the keys).
// What "high" means comes from the game's descriptor (``cardOrder(view)``: the trump suit now
// and each suit's ranks, high to low); without one, aces are high and the view's ``trump`` is
// trump. This module knows no game and draws nothing.
import { SUITS, isJoker, parseCard } from "./cards.js";

export const SORT_MODES = ["suit", "trump", "rank", "hand"];

/** Ranks high to low in an ordinary suit, aces high (a run of ranks alone is its top part). */
export const ACES_HIGH = ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"];
const JOKERS_HIGH = ["BJ", "LJ"]; // the big joker above the little one
const BLACK = new Set(["S", "C"]);
const SUIT_ORDER = ["S", "H", "C", "D"]; // ties between suits of one colour

/**
 * The order facts for ``view``: ``{trump, ranks(suit, isTrump)}`` from the descriptor's
 * ``cardOrder``, with the defaults filled in.
 */
export function orderFacts(descriptor, view) {
  const own = descriptor?.cardOrder ? descriptor.cardOrder(view || {}) || {} : {};
  const trump = own.trump !== undefined ? own.trump : view?.trump;
  return { trump: SUITS[trump] ? trump : null, ranks: own.ranks || (() => ACES_HIGH) };
}

/** The sort modes a game offers: without suits only rank and hand; without trump no "trump". */
export function sortModes(descriptor) {
  if (descriptor?.suits === false) return ["rank", "hand"];
  return SORT_MODES.filter((m) => m !== "trump" || descriptor?.trump !== false);
}

/**
 * The suits in ``present`` in the order they are shown: ``first`` (when given) leads, then
 * each next suit is of the other colour wherever the hand allows it.
 */
export function suitSequence(present, first = null) {
  const colour = (s) => (BLACK.has(s) ? "black" : "red");
  const rest = SUIT_ORDER.filter((s) => present.has(s) && s !== first);
  const out = first ? [first] : [];
  while (rest.length) {
    const last = out[out.length - 1];
    const blacks = rest.filter((s) => BLACK.has(s)).length;
    const want = last ? (colour(last) === "black" ? "red" : "black") : blacks >= rest.length - blacks ? "black" : "red";
    const at = Math.max(0, rest.findIndex((s) => colour(s) === want));
    out.push(rest.splice(at, 1)[0]);
  }
  return out;
}

/** Where a card stands within its group: jokers above the trump ace, else its rank's place. */
function power(card, facts) {
  if (isJoker(card)) return JOKERS_HIGH.indexOf(card) - JOKERS_HIGH.length;
  const { rank, suit } = parseCard(card);
  const at = facts.ranks(suit, suit !== null && suit === facts.trump).indexOf(rank);
  return at < 0 ? ACES_HIGH.length : at;
}

/** The group a card is shown in: its suit; a joker goes with the trumps, or its own group. */
const groupOf = (card, facts) => (isJoker(card) ? facts.trump || "joker" : parseCard(card).suit || "none");

/**
 * The positions of ``hand`` in the order ``mode`` shows them. ``arranged`` (mode "hand"):
 * the cards as the player last left them; cards not in it (new ones) follow in suit order.
 */
export function sortHand(hand, mode, facts, arranged = null) {
  const cards = Array.isArray(hand) ? hand : [];
  const positions = cards.map((_, i) => i);
  if (mode === "hand" && Array.isArray(arranged)) return byArrangement(cards, arranged, facts);
  const present = new Set(cards.map((c) => groupOf(c, facts)).filter((g) => SUITS[g]));
  const suits = suitSequence(present, mode === "trump" || mode === "rank" ? facts.trump : null);
  const rankOfGroup = (g) => (SUITS[g] ? suits.indexOf(g) : g === "joker" ? suits.length : suits.length + 1);
  const key = (i) => {
    const card = cards[i];
    const group = rankOfGroup(groupOf(card, facts));
    return mode === "rank" ? [power(card, facts), group] : [group, power(card, facts)];
  };
  return positions.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return x[0] - y[0] || x[1] - y[1] || a - b;
  });
}

/** The player's own order: each card of ``arranged`` takes the first unused position holding
 *  it (a hand of ranks alone repeats them); the rest follow in suit order. */
function byArrangement(cards, arranged, facts) {
  const used = new Set();
  const out = [];
  for (const card of arranged) {
    const at = cards.findIndex((c, i) => c === card && !used.has(i));
    if (at >= 0) {
      used.add(at);
      out.push(at);
    }
  }
  const rest = sortHand(cards, "suit", facts).filter((i) => !used.has(i));
  return [...out, ...rest];
}

/** ``order`` with the item at ``from`` moved to ``to`` (both places in ``order``). */
export function moved(order, from, to) {
  const out = [...order];
  const [item] = out.splice(from, 1);
  out.splice(Math.max(0, Math.min(to, out.length)), 0, item);
  return out;
}
