// Words for what the view says, per game. Display only: no rule is decided here;
// what a player may do always comes from the view's `legal` list.
import { h } from "./dom.js";
import { SUITS, cardView, suitBadge } from "./cards.js";

const BID_WORDS = { 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven" };

const PHASES = {
  bidding: "Bidding",
  playing: "Playing",
  over: "Finished",
  discarding: "Declarer discards",
  trump_or_lead: "Declarer names trump",
  naming: "Naming trump",
  declaring: "Declaring runs",
};

export const phaseText = (phase) => PHASES[phase] || String(phase || "").replace(/_/g, " ");

/** A bid as people say it: 3 -> "3" (Bid Whist "Three"), "pass" -> "Pass". */
export function bidText(game, value) {
  if (value === null || value === undefined) return null;
  if (value === "pass") return "Pass";
  if (value === "take") return "Took it";
  if (typeof value === "number" && game === "bid_whist") return BID_WORDS[value] || String(value);
  return String(value);
}

export const seatLabel = (names, seat) =>
  seat === null || seat === undefined ? "—" : names[seat] || `Seat ${Number(seat) + 1}`;

/** Team names from the view's `teams` ([[0, 2], [1, 3]]): "Ana & Cy". */
export function teamNames(view, names) {
  return (view.teams || []).map((team) => team.map((s) => seatLabel(names, s)).join(" & "));
}

/** What the acting player is asked to do, from the kinds of legal actions. */
export function promptFor(game, view, legal) {
  const types = new Set(legal.map((a) => a.type));
  const discard = legal.find((a) => a.type === "discard");
  if (discard) return `Choose ${discard.count ?? (discard.cards || []).length} cards to discard, then press Discard.`;
  if (types.has("ribs")) return "You lead: choose two cards for the Ribs (they go face down).";
  if (types.has("pair")) {
    return legal.some((a) => a.type === "pair" && a.fold)
      ? "Choose two cards, then play them face up or fold them face down."
      : "Choose two cards to play face up.";
  }
  if (types.has("take")) {
    return types.has("pass") ? "Take the contract yourself, or pass to grant it to the high bidder." : "You must take the contract.";
  }
  if (types.has("trump") && types.has("play")) return "Name trump, or lead a card (its suit becomes trump).";
  if (types.has("trump")) return types.has("pass") ? "Name a trump suit, or pass." : "Name a trump suit.";
  if (types.has("declare")) return "Declare your runs, or pass.";
  if (view.phase === "declaring" && types.has("pass")) return "Nothing to declare: press Pass.";
  if (types.has("bid")) {
    if (game === "oh_hell") return "How many tricks will you take?";
    return types.has("pass") ? "Bid or pass." : "Make your bid.";
  }
  if (types.has("play")) return "Play a card.";
  if (types.has("pass")) return "Pass.";
  return "Your move.";
}

/** The label of a pass button in this situation. */
export function passLabel(view, legal) {
  if (legal.some((a) => a.type === "take")) return "Pass (grant)";
  if (view.phase === "declaring") return "Pass (no declaration)";
  return "Pass";
}

/**
 * A seat's bid: the view's `bids` is either one entry per seat (a value, "pass", "take" or null)
 * or a log of {seat, bid, pass} (Ribs, where the bidding goes round several times): its last word.
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
  const notes = [];
  if (!view) return notes;
  if (view.declarer === seat && view.contract != null) notes.push(`Declarer · ${bidText(game, view.contract)}`);
  if (view.caller === seat && view.trump) notes.push("Named trump");
  if (game === "ribs" && view.leader === seat && view.phase !== "bidding") notes.push("Leader");
  const bid = seatBid(view, seat);
  if (bid !== null && bid !== undefined && !(game === "bid_whist" && view.contract != null)) {
    notes.push(bid === "pass" ? "Passed" : bid === "take" ? "Took it" : `Bid ${bidText(game, bid)}`);
  }
  for (const d of view.declarations || []) {
    if (d.seat === seat) notes.push(d.run ? `Declared a ${d.run}` : "No runs declared");
  }
  const perSeat = Array.isArray(view.tricks_won) && view.tricks_won.length === (view.hand_counts || []).length;
  if (perSeat && view.phase !== "bidding" && game !== "ribs") {
    const n = view.tricks_won[seat];
    if (typeof n === "number") notes.push(`${n} trick${n === 1 ? "" : "s"}`);
  }
  if (game === "ribs" && Array.isArray(view.points)) notes.push(`${view.points[seat]} pts`);
  return notes;
}

/** Label/value pairs for the bar above the table. */
export function infoItems(game, view, names) {
  const items = [];
  if (!view) return items;
  if (view.phase) items.push(["", h("span", { class: "phase-pill" }, phaseText(view.phase))]);
  if (view.hand_number) {
    items.push(["Hand", view.hands_total ? `${view.hand_number} of ${view.hands_total}` : String(view.hand_number)]);
  }
  if (view.hand_size) items.push(["Cards", String(view.hand_size)]);
  if (game !== "ribs") items.push(["Trump", view.trump ? h("span", {}, suitBadge(view.trump), ` ${SUITS[view.trump]?.name || view.trump}`) : "not yet"]);
  if (view.turned) items.push(["Turned", cardView(view.turned, { small: true })]);
  if (game === "ribs" && view.trick_number) items.push(["Trick", `${view.trick_number} of 4`]);
  if (game === "oh_hell" && Array.isArray(view.bids) && view.bids.some((b) => typeof b === "number")) {
    const total = view.bids.reduce((sum, b) => sum + (typeof b === "number" ? b : 0), 0);
    items.push(["Bids", `${total} for ${view.hand_size ?? "?"} tricks`]);
  }
  if (view.contract != null && view.declarer != null) {
    const need = view.tricks_needed != null ? ` (needs ${view.tricks_needed})` : "";
    items.push(["Contract", `${bidText(game, view.contract)} by ${seatLabel(names, view.declarer)}${need}`]);
  } else if (view.high_bid != null) {
    const by = view.high_bidder ?? view.leader;
    items.push(["High bid", `${bidText(game, view.high_bid)}${by != null ? ` by ${seatLabel(names, by)}` : ""}`]);
  }
  if (view.caller != null) items.push(["Called by", seatLabel(names, view.caller)]);
  const teamTricks = Array.isArray(view.team_tricks) ? view.team_tricks
    : view.teams && Array.isArray(view.tricks_won) && view.tricks_won.length === view.teams.length ? view.tricks_won : null;
  if (teamTricks && view.teams) {
    items.push(["Tricks", teamNames(view, names).map((t, i) => `${t} ${teamTricks[i]}`).join(" · ")]);
  }
  if (view.teams && Array.isArray(view.points_taken) && view.points_taken.length === view.teams.length) {
    items.push(["Card points", teamNames(view, names).map((t, i) => `${t} ${view.points_taken[i]}`).join(" · ")]);
  }
  if (view.target) items.push(["Playing to", String(view.target)]);
  return items;
}

/** A short description of one finished hand for the score sheet. */
export function handNote(game, entry, names) {
  const parts = [];
  if (entry.hand_size) parts.push(`${entry.hand_size} card${entry.hand_size === 1 ? "" : "s"}`);
  if (entry.trump && SUITS[entry.trump]) parts.push(`${SUITS[entry.trump].symbol} trump`);
  if (entry.contract != null && entry.declarer != null) {
    parts.push(`${bidText(game, entry.contract)} by ${seatLabel(names, entry.declarer)}`);
  }
  if (entry.caller != null) parts.push(`called by ${seatLabel(names, entry.caller)}`);
  if (entry.chicago) parts.push("Chicago!");
  else if (entry.result === "half_bait") parts.push("half bait");
  else if (entry.bait === true) parts.push("bait");
  else if (entry.made === true) parts.push("made");
  else if (entry.made === false) parts.push("set");
  if (Array.isArray(entry.bids) && game === "oh_hell" && Array.isArray(entry.tricks_won)) {
    parts.push(`took/bid: ${entry.bids.map((b, s) => `${seatLabel(names, s)} ${entry.tricks_won[s]}/${b}`).join(", ")}`);
  }
  if (Array.isArray(entry.points)) parts.push(`points ${entry.points.join("–")}`);
  return parts.join(" · ");
}

/** An action in words, for the replay: "played Q♥", "bid Four", "passed". */
export function actionText(game, action) {
  if (!action) return "";
  const cards = (list) => (list || []).map((c) => cardTextOf(c)).join(" ");
  switch (action.type) {
    case "play": return `played ${cardTextOf(action.card)}`;
    case "bid": return `bid ${bidText(game, action.value)}`;
    case "pass": return "passed";
    case "take": return "took the contract";
    case "discard": return `discarded ${cards(action.cards)}`;
    case "trump": return `named ${SUITS[action.suit]?.name || action.suit} trump`;
    case "declare": return "declared runs";
    case "ribs": return `laid the Ribs (${cards(action.cards)})`;
    case "pair": return action.fold ? `folded (${cards(action.cards)})` : `played ${cards(action.cards)}`;
    default: return action.type;
  }
}

function cardTextOf(code) {
  const text = String(code);
  const suit = SUITS[text.slice(-1)];
  return suit && text.length > 1 ? `${text.slice(0, -1)}${suit.symbol}` : text;
}
