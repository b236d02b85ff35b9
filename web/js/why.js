// "Why?" beside the prompt: one line saying which rule of the game shapes what the acting
// player may do now ("You must follow suit: you hold a heart"). Display only, like games.js:
// the reason is read off the view (its legal list, the hand, the trick and the bidding), and
// what may be played always comes from the server's legal list.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { parseCard } from "./cards.js";
import { bidText } from "./games.js";

const suitOf = (card) => parseCard(card).suit;
const LEAST_CONTRACT = 4; // Bid Whist's least contract: a dealer nobody bid to takes it

/** Why the cards that may be played are these (a trick game: follow, head, trump, overtrump). */
function playWhy(view, legal) {
  const hand = Array.isArray(view.hand) ? view.hand : [];
  const trick = Array.isArray(view.trick) ? view.trick : [];
  const may = legal.filter((a) => a.type === "play").map((a) => a.card);
  if (!may.length) return null;
  if (!trick.length || typeof trick[0].card !== "string") return t("why.lead");
  const led = suitOf(trick[0].card);
  if (!led) return null;
  const suit = t(`why.suitOne.${led}`);
  const following = hand.filter((c) => suitOf(c) === led);
  if (!following.length && may.length === hand.length) return t("why.void", { suit: t(`why.suitNone.${led}`) });
  if (may.every((c) => suitOf(c) === led)) {
    return may.length === following.length ? t("why.follow", { suit }) : t("why.head");
  }
  const trump = view.trump;
  if (trump && may.every((c) => suitOf(c) === trump)) {
    const trumps = hand.filter((c) => suitOf(c) === trump);
    return t(may.length === trumps.length ? "why.mustTrump" : "why.overtrump", { suit: t(`why.suitNone.${led}`) });
  }
  return null;
}

/** Oh Hell's bidding: the hook keeps the dealer off one number. */
function ohHellBidWhy(view, legal) {
  if (view.forbidden_bid == null || !legal.some((a) => a.type === "bid")) return null;
  return t("why.hook", { n: view.forbidden_bid, size: view.hand_size ?? "?" });
}

/** Bid Whist's bidding: the others bid up (or pass under the top bid), the dealer takes or
 *  grants (or must take at Four). */
function bidWhistBidWhy(view, legal) {
  const kinds = new Set(legal.map((a) => a.type));
  if (kinds.has("take")) return kinds.has("pass") ? t("why.bidWhist.dealer") : t("why.bidWhist.forced", { bid: bidText("bid_whist", LEAST_CONTRACT) });
  if (view.high_bid == null || !kinds.has("pass")) return null;
  const bid = bidText("bid_whist", view.high_bid);
  return kinds.has("bid") ? t("why.bidWhist.higher", { bid }) : t("why.bidWhist.top", { bid });
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

const BY_GAME = {
  oh_hell: (view, legal) => ohHellBidWhy(view, legal) || playWhy(view, legal),
  bid_whist: (view, legal) => bidWhistBidWhy(view, legal) || playWhy(view, legal),
  tarbish: (view, legal) => tarbishCallWhy(view, legal) || playWhy(view, legal),
  ribs: ribsWhy,
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
