// "Why?" beside the prompt: one line saying which rule of the game shapes what the acting
// player may do now ("You must follow suit: you hold a heart"). Display only, like games.js:
// the reason is read off the view (its legal list, the hand, the trick and the bidding), and
// what may be played always comes from the server's legal list.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { parseCard } from "./cards.js";
import { descriptor } from "./games.js";

const JOKERS = new Set(["BJ", "LJ"]);

/** A card's suit as played: a joker (a house option) is a trump, no suit at all in no trump. */
const suitAsPlayed = (view) => (card) => (JOKERS.has(card) ? view.trump || null : parseCard(card).suit);

/** The suit led: the first card's, or (in no trump with jokers) the first that is not a joker. */
function ledSuit(trick, suitIn) {
  for (const play of trick) {
    const suit = typeof play.card === "string" ? suitIn(play.card) : null;
    if (suit) return suit;
  }
  return null;
}

/** Why the cards that may be played are these (a trick game: follow, head, trump, overtrump). */
function playWhy(view, legal, suitIn = suitAsPlayed(view)) {
  const hand = Array.isArray(view.hand) ? view.hand : [];
  const trick = Array.isArray(view.trick) ? view.trick : [];
  const may = legal.filter((a) => a.type === "play").map((a) => a.card);
  if (!may.length) return null;
  if (!trick.length || typeof trick[0].card !== "string") return t("why.lead");
  const led = ledSuit(trick, suitIn);
  if (!led) return JOKERS.has(trick[0].card) ? t("why.jokerLed") : null;
  const suit = t(`why.suitOne.${led}`);
  const following = hand.filter((c) => suitIn(c) === led);
  if (!following.length && may.length === hand.length) return t("why.void", { suit: t(`why.suitNone.${led}`) });
  if (may.every((c) => suitIn(c) === led)) {
    if (may.length !== following.length) return t("why.head");
    return jokerFollowWhy(view, following, led) || t("why.follow", { suit });
  }
  const trump = view.trump;
  if (trump && may.every((c) => suitIn(c) === trump)) {
    const trumps = hand.filter((c) => suitIn(c) === trump);
    return t(may.length === trumps.length ? "why.mustTrump" : "why.overtrump", { suit: t(`why.suitNone.${led}`) });
  }
  if (!view.trump && !following.length && may.length && may.every((c) => JOKERS.has(c))) {
    return t("why.mustJoker", { suit: t(`why.suitNone.${led}`) });
  }
  return null;
}

/** Following with jokers in hand: a joker is a trump, or in no trump no suit at all. */
function jokerFollowWhy(view, following, led) {
  const hand = Array.isArray(view.hand) ? view.hand : [];
  if (!hand.some((c) => JOKERS.has(c))) return null;
  if (view.trump && following.every((c) => JOKERS.has(c))) return t("why.jokerTrump");
  if (!view.trump) return t("why.jokerNoSuit", { one: t(`why.suitOne.${led}`), suitWord: t(`why.suitNone.${led}`) });
  return null;
}

/** The rule behind the acting player's choices now, in a line; null when none needs saying. */
export function whyLine(game, view, legal) {
  if (!view || !Array.isArray(legal) || !legal.length) return null;
  return descriptor(game).why?.(view, legal) || playWhy(view, legal);
}

let openFor = null; // the reason last opened: it stays open while the same reason holds

/**
 * The "Why?" control and its line (hidden until asked), or null when there is no reason to
 * give: ``ask`` goes beside the prompt, ``text`` under it.
 */
export function whyParts(game, view, legal) {
  const reason = whyLine(game, view, legal);
  if (!reason) return null;
  const open = openFor === reason;
  const text = h("p", { class: "why-text", id: "why-text", hidden: !open }, reason);
  const ask = h("button", {
    type: "button", class: "btn btn-small btn-ghost why-ask", "aria-expanded": String(open),
    "aria-controls": "why-text", "data-key": "why",
  }, t("why.ask"));
  ask.addEventListener("click", () => {
    const now = ask.getAttribute("aria-expanded") !== "true";
    openFor = now ? reason : null;
    ask.setAttribute("aria-expanded", String(now));
    text.hidden = !now;
  });
  return { ask, text };
}

/** Why no card is played now: the decision asked for first (a bid, trump, a direction). */
function notNowWhy(kinds) {
  if (kinds.has("bid") || kinds.has("take") || (kinds.has("pass") && !kinds.has("trump"))) return t("why.card.bidding");
  if (kinds.has("trump")) return t("why.card.trump");
  if (kinds.has("direction")) return t("why.card.direction");
  return t("why.card.notNow");
}

/** Why this card of the hand may not be played to the trick (the follow, head and trump rules). */
function cardPlayWhy(game, view, legal, card) {
  const suitIn = suitAsPlayed(view);
  const hand = Array.isArray(view.hand) ? view.hand : [];
  const trick = Array.isArray(view.trick) ? view.trick : [];
  const may = legal.filter((a) => a.type === "play").map((a) => a.card);
  const led = trick.length && typeof trick[0].card === "string" ? ledSuit(trick, suitIn) : null;
  if (led && may.some((c) => suitIn(c) === led)) {
    if (suitIn(card) === led) return t("why.head");
    const following = hand.filter((c) => suitIn(c) === led);
    return jokerFollowWhy(view, following, led) || t("why.follow", { suit: t(`why.suitOne.${led}`) });
  }
  const trump = view.trump;
  if (led && trump && may.length && may.every((c) => suitIn(c) === trump)) {
    // Void in the suit led: a card that is no trump must give way to a trump, a lower trump to a higher.
    return t(suitIn(card) === trump ? "why.overtrump" : "why.mustTrump", { suit: t(`why.suitNone.${led}`) });
  }
  const line = descriptor(game).why?.(view, legal) || playWhy(view, legal, suitIn);
  // "Any card may be played" is no reason for a card that may not (a house rule's case).
  const anyCard = [t("why.lead"), led && t("why.void", { suit: t(`why.suitNone.${led}`) })];
  return line && !anyCard.includes(line) ? line : t("why.card.notAllowed");
}

/**
 * Why a card of the hand cannot be played now, in a line: it is someone else's turn (``waiting``
 * names who), another decision comes first, or the game's rule for this trick rules it out.
 */
export function cardWhyLine(game, view, legal, card, waiting) {
  if (!view || !Array.isArray(legal)) return null;
  if (!legal.length) return waiting ? t("why.card.wait", { who: waiting }) : t("why.card.notYet");
  const kinds = new Set(legal.map((a) => a.type));
  if (!kinds.has("play")) return notNowWhy(kinds);
  return cardPlayWhy(game, view, legal, card);
}
