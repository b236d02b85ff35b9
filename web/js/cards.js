// How cards look: rank + suit symbol + a distinct colour per suit (four-colour deck).
import { h } from "./dom.js";
import { t, has } from "./i18n.js";

// U+FE0E asks for the text (not emoji) form of the symbol.
export const SUITS = {
  S: { symbol: "\u2660\uFE0E" },
  H: { symbol: "\u2665\uFE0E" },
  D: { symbol: "\u2666\uFE0E" },
  C: { symbol: "\u2663\uFE0E" },
};

// Jokers (a house option): no rank, no suit; shown by name, a star in the corner.
export const JOKERS = { BJ: "big", LJ: "little" };
export const isJoker = (code) => Object.prototype.hasOwnProperty.call(JOKERS, code);
const jokerName = (code) => t(`card.joker.${code}`);

/** A suit's name in the page's language: "spades", "espadas". */
export const suitName = (suit) => (SUITS[suit] ? t(`suit.${suit}`) : String(suit ?? "—"));

/** {rank, suit}: "10H" -> {rank: "10", suit: "H"}; a bare rank "A" (a game played by rank alone) -> {rank: "A", suit: null}. */
export function parseCard(code) {
  const text = String(code);
  const last = text.slice(-1);
  if (text.length > 1 && SUITS[last]) return { rank: text.slice(0, -1), suit: last };
  return { rank: text, suit: null };
}

/** Words for screen readers: "Queen of hearts", "Ten", "Ace". */
export function cardName(code) {
  if (isJoker(code)) return jokerName(code);
  const { rank, suit } = parseCard(code);
  const r = has(`rank.${rank}`) ? t(`rank.${rank}`) : rank;
  return suit ? t("card.of", { rank: r, suit: suitName(suit) }) : r;
}

/** A card button's name: what it shows, then the words ("J♠, Jack of spades"; a bare rank "8"). */
export function cardLabel(code) {
  const text = cardText(code), name = cardName(code);
  return text === name ? name : `${text}, ${name}`;
}

/** Short text: "Q♥", "10♠", "A". */
export function cardText(code) {
  if (isJoker(code)) return jokerName(code);
  const { rank, suit } = parseCard(code);
  return suit ? `${rank}${SUITS[suit].symbol}` : rank;
}

function faceParts(code) {
  if (isJoker(code)) {
    // The visible words are the card's accessible name ("Big joker"); no corner symbol (the
    // hand's star marks the kitty's cards).
    return [h("span", { class: "card-joker-name" }, jokerName(code))];
  }
  const { rank, suit } = parseCard(code);
  const sym = suit ? SUITS[suit].symbol : "";
  return [
    h("span", { class: "card-corner", "aria-hidden": "true" }, h("span", { class: "card-rank" }, rank), h("span", { class: "card-suit" }, sym)),
    h("span", { class: "card-pip", "aria-hidden": "true", "data-pip": sym || rank }),
  ];
}

export function suitClass(code) {
  if (isJoker(code)) return `card-joker joker-${JOKERS[code]}`;
  const { suit } = parseCard(code);
  return suit ? `suit-${suit}` : "suit-none";
}

/** A card that is only shown (trick, last trick, replay hands). */
export function cardView(code, { small = false } = {}) {
  return h(
    "span",
    { class: ["card", suitClass(code), small && "card-small"], role: "img", "aria-label": cardName(code) },
    faceParts(code),
  );
}

/** A face-down card. */
export function cardBack({ small = false, label } = {}) {
  return h("span", { class: ["card", "card-back", small && "card-small"], role: "img", "aria-label": label || t("card.faceDown") });
}

/** A card in your hand: a button carrying data-card (and its position, for ranks a hand repeats). */
export function cardButton(code, index, { disabled = false, pressed = null, key } = {}) {
  return h(
    "button",
    {
      type: "button",
      class: ["card", "card-button", suitClass(code), pressed && "selected"],
      "data-card": code,
      "data-index": index,
      "data-key": key || `hand-${index}-${code}`,
      "aria-label": cardLabel(code),
      "aria-pressed": pressed === null ? null : String(pressed),
      disabled,
    },
    faceParts(code),
  );
}

/** A suit symbol in its colour, with its name for screen readers. */
export function suitBadge(suit) {
  if (!SUITS[suit]) return h("span", {}, String(suit ?? "—"));
  return h("span", { class: ["suit-badge", `suit-${suit}`], title: suitName(suit) },
    h("span", { "aria-hidden": "true" }, SUITS[suit].symbol), h("span", { class: "sr-only" }, suitName(suit)));
}

/** Cards in words, a face-down one as a card back: "Q♥ 🂠". */
export const cardsText = (list) => (list || []).map((c) => (c ? cardText(c) : "\u{1F0A0}")).join(" ");
