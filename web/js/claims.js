// Claiming the rest of the hand: the "Claim the rest" button for a seated player while the
// tricks are played, the polite note when the table is not certain yet, and an accepted claim
// ("Ana claimed the rest", a chat line with "event": "claim") shown and said as the table's
// news, not as something anyone typed. Protocol: docs/protocol.md, `claim`.
//
// The client cannot know whether a claim holds (it sees one hand); it offers the button only
// where one could: during trick play, to a seated player who still holds cards, in a game with
// claims. The server decides, and its refusal names no card.
import { h } from "./dom.js";
import { t } from "./i18n.js";

let refusedAt = null; // the position a claim was refused at: the note stays until the play moves on
let lastClaim; // {when, count} of the newest claim line known, null for none (undefined before the first view: older ones are history)
let news = null; // {text, hands}: the claim shown as news, and how many hands were done then

/** Where the play stands: the hands done and the moves of this one. */
const position = (v) => `${Array.isArray(v?.history) ? v.history.length : 0}:${Array.isArray(v?.log) ? v.log.length : 0}`;
const handsDone = (v) => (Array.isArray(v?.history) ? v.history.length : 0);

/** Whether a claim could hold now (``claims``: the game has them). */
export function mayClaim(state, claims = true) {
  const v = state.game;
  return Boolean(claims && state.you !== null && state.room.status === "playing" && v?.phase === "playing"
    && Array.isArray(v.hand) && v.hand.length > 0 && !state.seats[state.you]?.away);
}

/** The claim's button (and the refusal's note while nothing has moved since), or nothing. */
export function claimParts(state, claims, pending) {
  if (!mayClaim(state, claims)) return [];
  const refused = refusedAt === position(state.game);
  return [h("div", { class: "row claim-row" },
    h("button", { type: "button", class: "btn btn-ghost", "data-claim": "", "data-key": "claim", disabled: pending,
      "aria-describedby": refused ? "claim-note" : null }, t("claim.button")),
    refused ? h("span", { class: "hint", id: "claim-note", "data-claim-refused": "" }, t("claim.refused")) : null)];
}

/** A claim was refused at this position: the note to show and say. */
export function claimRefused(state) {
  refusedAt = position(state?.game);
  return t("claim.refused");
}

/** A chat line that is the table's news of a claim, in the page's words. */
export const claimText = (line, names) => t("claim.news", { name: line.name || names[line.seat] || "" });

/** The news to show now (null for none), and whether a claim is new since the last view (the
 * words to announce, or ""). A claim stays news until the next hand's first card is played
 * (and at the match's end, with the result). */
export function claimNews(state, names) {
  const v = state.game;
  const claims = (state.chat || []).filter((line) => line.event === "claim");
  const newest = claims[claims.length - 1] || null;
  // Lines carry the second they were said: a second claim in the same second is told by the
  // count of claims growing (the count alone shrinks as old lines leave the chat).
  const key = newest ? { when: `${newest.at}:${newest.seat}`, count: claims.length } : null;
  let fresh = "";
  const isNew = key !== null && (!lastClaim || key.when !== lastClaim.when || key.count > lastClaim.count);
  if (lastClaim !== undefined && isNew) {
    news = { text: claimText(newest, names), hands: handsDone(v) };
    fresh = news.text;
  }
  lastClaim = key;
  if (news && state.room.status !== "finished") {
    const later = handsDone(v) - news.hands; // the claimed hand ends with its last card played out
    const played = Array.isArray(v?.log) && v.log.some((e) => e.action?.type === "play");
    if (later > 1 || (later === 1 && played)) news = null;
  }
  return { text: news ? news.text : null, fresh };
}
