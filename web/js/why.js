// "Why?" beside the prompt: one line saying which rule of the game shapes what the acting
// player may do now ("You must follow suit: you hold a heart"). Display only, like games.js:
// the reason is read off the view (its legal list, the hand, the trick and the bidding), and
// what may be played always comes from the server's legal list.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { parseCard } from "./cards.js";
import { bidText } from "./games.js";

const suitOf = (card) => parseCard(card).suit;
const LEAST_CONTRACT = 4; // Bid Whist's least contract unless the view says (`min_bid`)
const JOKERS = new Set(["BJ", "LJ"]);

/** Bid Whist's suit of a card as played: a joker is a trump (no suit at all in no trump). */
const bidWhistSuit = (view) => (card) => (JOKERS.has(card) ? view.trump || null : suitOf(card));

/** The suit led: the first card's, or (Bid Whist's no trump) the first that is not a joker. */
function ledSuit(trick, suitIn) {
  for (const play of trick) {
    const suit = typeof play.card === "string" ? suitIn(play.card) : null;
    if (suit) return suit;
  }
  return null;
}

/** Why the cards that may be played are these (a trick game: follow, head, trump, overtrump). */
function playWhy(view, legal, suitIn = suitOf) {
  const hand = Array.isArray(view.hand) ? view.hand : [];
  const trick = Array.isArray(view.trick) ? view.trick : [];
  const may = legal.filter((a) => a.type === "play").map((a) => a.card);
  if (!may.length) return null;
  if (!trick.length || typeof trick[0].card !== "string") return t("why.lead");
  const led = ledSuit(trick, suitIn);
  if (!led) return JOKERS.has(trick[0].card) ? t("why.bidWhist.jokerLed") : null;
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
    return t("why.bidWhist.mustJoker", { suit: t(`why.suitNone.${led}`) });
  }
  return null;
}

/** Following with jokers in hand (Bid Whist): a joker is a trump, or in no trump no suit at all. */
function jokerFollowWhy(view, following, led) {
  const hand = Array.isArray(view.hand) ? view.hand : [];
  if (!hand.some((c) => JOKERS.has(c))) return null;
  if (view.trump && following.every((c) => JOKERS.has(c))) return t("why.bidWhist.jokerTrump");
  if (!view.trump) return t("why.bidWhist.jokerNoSuit", { one: t(`why.suitOne.${led}`), suitWord: t(`why.suitNone.${led}`) });
  return null;
}

/** Oh Hell's bidding: the hook keeps the dealer off one number. */
function ohHellBidWhy(view, legal) {
  if (view.forbidden_bid == null || !legal.some((a) => a.type === "bid")) return null;
  return t("why.hook", { n: view.forbidden_bid, size: view.hand_size ?? "?" });
}

/** A Bid Whist bid in words: "Four", "Four downtown". */
function bidWords(value, direction) {
  const bid = bidText("bid_whist", value);
  return direction ? `${bid} ${t(`bidWhist.direction.${direction}`)}` : bid;
}

/** Bid Whist's bidding: the others bid up (a higher number, or with directions the same number
 *  in a direction that outranks), the dealer takes or grants (or must take at the minimum,
 *  naming a direction). */
function bidWhistBidWhy(view, legal) {
  const kinds = new Set(legal.map((a) => a.type));
  if (kinds.has("take")) {
    if (kinds.has("pass")) return t("why.bidWhist.dealer");
    const bid = bidText("bid_whist", view.min_bid ?? LEAST_CONTRACT);
    const named = legal.filter((a) => a.type === "take" && a.direction).map((a) => t(`bidWhist.direction.${a.direction}`));
    return named.length ? t("why.bidWhist.forcedDirection", { bid, directions: named.join(" / ") }) : t("why.bidWhist.forced", { bid });
  }
  if (view.high_bid == null || !kinds.has("pass")) return null;
  const bid = bidWords(view.high_bid, view.high_direction);
  if (!kinds.has("bid")) return t("why.bidWhist.top", { bid });
  const same = legal.filter((a) => a.type === "bid" && a.value === view.high_bid && a.direction);
  if (!same.length) return t("why.bidWhist.higher", { bid });
  const number = bidText("bid_whist", view.high_bid);
  return t("why.bidWhist.outrank", { bid, number, same: same.map((a) => bidWords(a.value, a.direction)).join(" / ") });
}

/** Bid Whist after the auction: the kitty to discard (4 + jokers), a no-trump declarer's
 *  direction, and trump to name before a joker may be led. */
function bidWhistDeclarerWhy(view, legal) {
  const kinds = new Set(legal.map((a) => a.type));
  if (kinds.has("discard")) {
    const count = legal.find((a) => a.type === "discard").count ?? view.kitty_size ?? 4;
    const jokers = view.jokers ?? 0;
    return jokers ? t("why.bidWhist.kittyJokers", { count, jokers }) : t("why.bidWhist.kitty", { count });
  }
  if (kinds.has("direction")) return t("why.bidWhist.chooseDirection");
  if (kinds.has("trump") && kinds.has("play")) {
    const hand = Array.isArray(view.hand) ? view.hand : [];
    return t(hand.some((c) => JOKERS.has(c)) ? "why.bidWhist.trumpBeforeJoker" : "why.bidWhist.trumpOrLead");
  }
  return null;
}

/** Tarabish's trump call: a dealer with no pass is forced (three passes, or three throw-ins). */
function tarbishCallWhy(view, legal) {
  const kinds = new Set(legal.map((a) => a.type));
  if (!kinds.has("trump") || kinds.has("pass") || kinds.has("play")) return null;
  return (view.throw_ins ?? 0) >= 3 ? t("why.tarbish.throwIns", { n: view.throw_ins }) : t("why.tarbish.forced");
}

/** Ribs: the opener must bid, raises go up by one, the Leader lays the Ribs, one fold a hand. */
function ribsWhy(view, legal) {
  const kinds = new Set(legal.map((a) => a.type));
  if (kinds.has("ribs")) return t("why.ribs.leader");
  if (kinds.has("pair")) return legal.some((a) => a.fold) ? t("why.ribs.mayFold") : t("why.ribs.folded");
  if (kinds.has("bid") && !kinds.has("pass")) return t("why.ribs.open", { n: view.min_bid ?? 2 });
  if (kinds.has("bid")) return t("why.ribs.raise", { high: view.high_bid, n: (view.high_bid ?? 0) + 1 });
  if (kinds.has("pass")) return t("why.ribs.most", { n: view.max_bid });
  return null;
}

/** Spades: a blind nil is bid before looking; a spade may not be led until spades are broken
 *  (unless the leader holds nothing else). */
function spadesWhy(view, legal) {
  if (legal.some((a) => a.type === "look")) return t("why.spades.blindNil");
  const trick = Array.isArray(view.trick) ? view.trick : [];
  const hand = Array.isArray(view.hand) ? view.hand : [];
  const may = legal.filter((a) => a.type === "play").map((a) => a.card);
  if (trick.length || !may.length || view.spades_broken) return null;
  if (hand.some((c) => suitOf(c) === "S") && may.every((c) => suitOf(c) !== "S")) return t("why.spades.notBroken");
  if (hand.every((c) => suitOf(c) === "S")) return t("why.spades.onlySpades");
  return null;
}

const BY_GAME = {
  oh_hell: (view, legal) => ohHellBidWhy(view, legal) || playWhy(view, legal),
  bid_whist: (view, legal) => bidWhistBidWhy(view, legal) || bidWhistDeclarerWhy(view, legal)
    || playWhy(view, legal, bidWhistSuit(view)),
  tarbish: (view, legal) => tarbishCallWhy(view, legal) || playWhy(view, legal),
  ribs: ribsWhy,
  spades: (view, legal) => spadesWhy(view, legal) || playWhy(view, legal),
};

/** The rule behind the acting player's choices now, in a line; null when none needs saying. */
export function whyLine(game, view, legal) {
  const why = BY_GAME[game];
  return why && view && Array.isArray(legal) && legal.length ? why(view, legal) : null;
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
  const suitIn = game === "bid_whist" ? bidWhistSuit(view) : suitOf;
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
  const line = (game === "bid_whist" && bidWhistDeclarerWhy(view, legal)) || (game === "spades" && spadesWhy(view, legal))
    || playWhy(view, legal, suitIn);
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
