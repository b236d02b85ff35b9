// The table's courtesies for a seated player: "Take back" for the last move (when the room's
// `undoable` says so), the one-tap answer when asked to let a move be taken back, a card chosen
// ahead of your turn (marked in the hand), and the switch that plays a forced card for you.
// Protocol: docs/protocol.md, `undo`, `undo_answer`, `preselect`, `prefs`.
import { h } from "./dom.js";
import { descriptor } from "./games.js";
import { t } from "./i18n.js";

let lastAsked = ""; // the request last announced, so it is said once

/** Whether the game's moves include one card played alone (its descriptor's `oneCard` is not
 * false): only then is a card chosen ahead, or a forced card played for you. */
const playsOneCard = (state) => descriptor(state.room.game).oneCard !== false;

/** Whether the hand's cards may be chosen ahead now: seated, in play, not your turn. */
export function mayChooseAhead(state, legalCount) {
  return Boolean(state && state.you !== null && state.room.status === "playing" && legalCount === 0
    && !state.seats[state.you]?.away && Array.isArray(state.game?.hand) && playsOneCard(state));
}

/** The courtesies' controls (an empty list when there is nothing to offer). */
export function courtesyParts(state, names) {
  const r = state.room;
  if (r.status !== "playing" || state.you === null) return [];
  const out = [];
  const asked = r.undo_asked;
  if (asked && asked.seat === state.you) {
    out.push(h("div", { class: "undo-ask", role: "group", "aria-label": t("undo.askedLabel") },
      h("p", { class: "prompt" }, t("undo.asked", { name: names[asked.by] })),
      h("div", { class: "row" },
        h("button", { type: "button", class: "btn btn-primary", "data-undo-answer": "yes", "data-key": "undo-yes" }, t("undo.accept")),
        h("button", { type: "button", class: "btn", "data-undo-answer": "no", "data-key": "undo-no" }, t("undo.decline")))));
  } else if (asked && asked.by === state.you) {
    out.push(h("p", { class: "hint" }, t("undo.waiting", { name: names[asked.seat] })));
  } else if (r.undo !== "off" && r.undoable === state.you) {
    out.push(h("div", { class: "row" },
      h("button", { type: "button", class: "btn btn-ghost", "data-undo": "", "data-key": "undo" }, t("undo.button"))));
  }
  if (state.preselect) out.push(h("p", { class: "hint", "data-preselect-hint": "" }, t("preselect.chosen")));
  // The forced-card switch matters while cards are played: during bids, a kitty or a discard
  // it would only take the dock's room from the decision at hand.
  if (!playsOneCard(state) || state.game?.phase !== "playing") return out;
  out.push(h("label", { class: "forced-switch" },
    h("input", { type: "checkbox", "data-autoplay-forced": "", "data-key": "autoplay-forced", checked: Boolean(state.prefs?.autoplay_forced) }),
    " ", t("prefs.autoplayForced")));
  return out;
}

/** What the live region should say for this view's request, once (or "" for nothing new). */
export function courtesyNews(state, names) {
  const asked = state.room.undo_asked;
  const key = asked ? `${asked.seat}:${asked.by}` : "";
  if (key === lastAsked) return "";
  lastAsked = key;
  if (!asked || state.you === null) return "";
  if (asked.seat === state.you) return t("undo.asked", { name: names[asked.by] });
  return "";
}

/** A click on one of the courtesies' buttons: sent, and true; false when it is not one. */
export function courtesyClick(data, send) {
  if ("undo" in data) send({ type: "undo" });
  else if ("undoAnswer" in data) send({ type: "undo_answer", accept: data.undoAnswer === "yes" });
  else return false;
  return true;
}

/** The forced-card switch changed: kept with the player, for every table. */
export function courtesyChange(target, send) {
  if (!target.matches("[data-autoplay-forced]")) return false;
  send({ type: "prefs", autoplay_forced: target.checked });
  return true;
}

/** A card tapped while it is not your turn: chosen ahead, or, tapped again, no longer. */
export function chooseAhead(state, card, send) {
  send({ type: "preselect", card: state.preselect === card ? null : card });
}
