// Words for what the view says. Display only: no rule is decided here; what a player may do
// always comes from the view's `legal` list. What differs between games lives in one
// descriptor per game (games/<name>/index.js, listed in games/index.js); this module holds
// what they share.
import { h } from "./dom.js";
import { t, has } from "./i18n.js";
import { SUITS, cardText, cardView, suitBadge, suitName } from "./cards.js";
import * as GAMES from "./games/index.js";

/** What a game's client does differently (defaults: trump shown, tricks counted per seat). */
export const descriptor = (name) => GAMES[name] || { name };

/** The names of the games this client knows. */
export const gameNames = () => Object.keys(GAMES);

export const phaseText = (phase) => (has(`phase.${phase}`) ? t(`phase.${phase}`) : String(phase || "").replace(/_/g, " "));

/** A game's title and rules summary in the page's language (the server's English otherwise). */
export const gameTitle = (name, fallback) => (has(`game.${name}.title`) ? t(`game.${name}.title`) : fallback || name);
export const gameSummary = (name, fallback) => (has(`game.${name}.summary`) ? t(`game.${name}.summary`) : fallback || "");

/** A bid as people say it: 3 -> "3" (or the game's word, "Three"), "pass" -> "Pass". */
export function bidText(game, value) {
  if (value === null || value === undefined) return null;
  if (value === "pass") return t("bid.pass");
  if (value === "take") return t("bid.took");
  const word = descriptor(game).bidWord;
  return word ? word(value) : String(value);
}

export const seatLabel = (names, seat) =>
  seat === null || seat === undefined ? "—" : names[seat] || t("seat.n", { n: Number(seat) + 1 });

/** Team names from the view's `teams` ([[0, 2], [1, 3]]): "Ana & Cy". */
export function teamNames(view, names) {
  return (view.teams || []).map((team) => team.map((s) => seatLabel(names, s)).join(" & "));
}

/** What the acting player is asked to do, from the kinds of legal actions. */
export function promptFor(game, view, legal) {
  const own = descriptor(game).prompt?.(view, legal); // a game's own moves (choosing cards...)
  if (own) return own;
  const types = new Set(legal.map((a) => a.type));
  if (types.has("trump") && types.has("play")) return t("prompt.trumpOrLead");
  if (types.has("trump")) return types.has("pass") ? t("prompt.trumpOrPass") : t("prompt.trump");
  if (types.has("bid")) return t(descriptor(game).bidPrompt || (types.has("pass") ? "prompt.bidOrPass" : "prompt.bid"));
  if (types.has("play")) return t("prompt.play");
  if (types.has("pass")) return t("prompt.pass");
  return t("prompt.move");
}

/** The label of a pass button in this situation (the game's own, else "Pass"). */
export function passLabel(game, view, legal) {
  return descriptor(game).passLabel?.(view, legal) || t("button.pass");
}

/**
 * A seat's bid: the view's `bids` is either one entry per seat (a value, "pass", "take" or null)
 * or a log of {seat, bid, pass} (a game whose bidding goes round several times): its last word.
 */
function seatBid(view, seat) {
  if (!Array.isArray(view.bids)) return null;
  if (view.bids.length && view.bids.every((b) => b !== null && typeof b === "object")) {
    const mine = view.bids.filter((b) => b.seat === seat);
    const last = mine[mine.length - 1];
    if (!last) return null;
    return last.pass ? "pass" : last.bid;
  }
  return view.bids[seat] ?? null;
}

/** Short lines under a seat's name: bid, tricks, declarations, roles. */
export function seatNotes(game, view, seat) {
  const d = descriptor(game);
  const notes = [];
  if (!view) return notes;
  if (view.declarer === seat && view.contract != null) notes.push(t("note.declarer", { bid: bidText(game, view.contract) }));
  if (view.caller === seat && view.trump) notes.push(t("note.namedTrump"));
  const bid = seatBid(view, seat);
  if (bid !== null && bid !== undefined && !(d.hideBidsOnceContracted && view.contract != null)) {
    notes.push(bid === "pass" ? t("note.passed") : bid === "take" ? t("bid.took") : t("note.bid", { bid: bidText(game, bid) }));
  }
  for (const decl of view.declarations || []) {
    if (decl.seat === seat) notes.push(decl.run ? t("note.declaredRun", { run: runName(decl.run) }) : t("note.noRuns"));
  }
  const perSeat = Array.isArray(view.tricks_won) && view.tricks_won.length === (view.hand_counts || []).length;
  if (perSeat && view.phase !== "bidding" && d.trickCounts !== false) {
    const n = view.tricks_won[seat];
    if (typeof n === "number") notes.push(t("note.tricks", { n }));
  }
  if (d.seatNotes) notes.push(...d.seatNotes(view, seat));
  return notes;
}

const runName = (run) => (has(`run.${run}`) ? t(`run.${run}`) : String(run));

const item = (label, value) => [label, value];

/** Label/value pairs for the bar above the table. */
export function infoItems(game, view, names) {
  const d = descriptor(game);
  const items = [];
  if (!view) return items;
  if (view.phase) items.push(item("", h("span", { class: "phase-pill" }, phaseText(view.phase))));
  if (view.hand_number) {
    items.push(item(t("info.hand"), view.hands_total ? t("info.nOfM", { n: view.hand_number, m: view.hands_total }) : String(view.hand_number)));
  }
  if (view.hand_size) items.push(item(t("info.cards"), String(view.hand_size)));
  if (d.trump !== false) {
    items.push(item(t("info.trump"), view.trump ? h("span", {}, suitBadge(view.trump), ` ${suitName(view.trump)}`) : (d.noTrumpText?.(view) ?? t("info.notYet"))));
  }
  if (view.turned) items.push(item(t("info.turned"), cardView(view.turned, { small: true })));
  if (d.info) items.push(...d.info(view, names));
  if (view.contract != null && view.declarer != null) {
    const need = view.tricks_needed != null ? t("info.needs", { n: view.tricks_needed }) : "";
    items.push(item(t("info.contract"), `${t("info.byWhom", { what: bidText(game, view.contract), who: seatLabel(names, view.declarer) })}${need}`));
  } else if (view.high_bid != null) {
    const by = view.high_bidder ?? view.leader;
    items.push(item(t("info.highBid"), by != null ? t("info.byWhom", { what: bidText(game, view.high_bid), who: seatLabel(names, by) }) : bidText(game, view.high_bid)));
  }
  if (view.caller != null) items.push(item(t("info.calledBy"), seatLabel(names, view.caller)));
  const teamTricks = Array.isArray(view.team_tricks) ? view.team_tricks
    : view.teams && Array.isArray(view.tricks_won) && view.tricks_won.length === view.teams.length ? view.tricks_won : null;
  if (teamTricks && view.teams) {
    items.push(item(t("info.tricks"), teamNames(view, names).map((tm, i) => `${tm} ${teamTricks[i]}`).join(" · ")));
  }
  if (view.teams && Array.isArray(view.points_taken) && view.points_taken.length === view.teams.length) {
    items.push(item(t("info.cardPoints"), teamNames(view, names).map((tm, i) => `${tm} ${view.points_taken[i]}`).join(" · ")));
  }
  return items;
}

/** An action in words: "played Q♥", "bid Four", "passed". */
export function actionText(game, action) {
  if (!action) return "";
  const own = descriptor(game).actionText?.(action); // a game's own moves
  if (own) return own;
  switch (action.type) {
    case "play": return t("act.play", { card: cardText(action.card) });
    case "bid": return t("act.bid", { bid: bidText(game, action.value) });
    case "pass": return t("act.pass");
    case "trump": return t("act.trump", { suit: suitName(action.suit) });
    case "take_back": return t("act.takeBack");
    default: return t("act.other");
  }
}

export { SUITS };
