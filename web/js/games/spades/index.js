// Spades in the client: bids per seat with nil said "Nil" (and a blind nil marked), each
// partnership's contract, its tricks toward it and its bags, whether spades are broken, the
// blind nil choice (bid nil unseen, or look at the cards) as buttons of its own, the "needs N
// more" goals (a partnership's contract, a nil bidder's exact 0), the bids' total against the
// 13 tricks, the "Why?" of blind nil and of spades not yet broken, and a sheet by team with
// each hand's bids, tricks, bags and points.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { parseCard } from "../../cards.js";
import { ACES_HIGH } from "../../sorting.js";
import strings from "./strings.js";

const TEAMS = [[0, 2], [1, 3]];

/** A bid as people say it: 0 is "Nil". */
const bidWord = (value) => (value === 0 ? t("spades.nil") : String(value));

const teamsOf = (view) => (Array.isArray(view.teams) && view.teams.length ? view.teams : TEAMS);
const isNil = (view, seat) => view.bids?.[seat] === 0;
const blindNil = (view, seat) => Boolean(view.blind_nil?.[seat]);
const teamWord = (names, team) => team.map((s) => names?.[s] || t("seat.n", { n: s + 1 })).join(" & ");

/** The blind nil choice (bid nil before looking, or look): buttons of its own; else the
 *  table's bid buttons (0 to 13, "Nil" first). */
function controls(view, moves) {
  const out = [];
  moves.forEach((a, i) => {
    if (a.type === "bid" && a.blind) {
      out.push({ index: i, label: t("spades.blindNil"), attrs: { class: ["btn", "btn-primary", "spades-blind"], "data-bid": "blind", "data-key": "blind-nil" } });
    } else if (a.type === "look") {
      out.push({ index: i, label: t("spades.look"), attrs: { class: ["btn", "spades-look"], "data-act": "look", "data-key": "look" } });
    }
  });
  return out.length ? out : null;
}

/** The goals while the tricks are played: each partnership's contract, counted by the partners
 *  who did not bid nil (a both-nil partnership has none), and each nil bidder's exact 0. */
function goals(view) {
  if (view.phase !== "playing" || !Array.isArray(view.bids) || !Array.isArray(view.tricks_won)) return [];
  const out = [];
  for (const team of teamsOf(view)) {
    const bidders = team.filter((s) => typeof view.bids[s] === "number" && view.bids[s] > 0);
    if (bidders.length) {
      const need = bidders.reduce((sum, s) => sum + view.bids[s], 0);
      const won = bidders.reduce((sum, s) => sum + (view.tricks_won[s] ?? 0), 0);
      out.push({ seats: bidders, need, won, exact: false });
    }
    for (const s of team) {
      if (isNil(view, s)) out.push({ seats: [s], need: 0, won: view.tricks_won[s] ?? 0, exact: true });
    }
  }
  return out;
}

/** The rule behind the choices now: a blind nil is bid before looking; a spade may not be led
 *  until spades are broken, unless the leader holds nothing else (else the trick rules say). */
function why(view, legal) {
  if (legal.some((a) => a.type === "look")) return t("why.spades.blindNil");
  const trick = Array.isArray(view.trick) ? view.trick : [];
  const hand = Array.isArray(view.hand) ? view.hand : [];
  const may = legal.filter((a) => a.type === "play").map((a) => a.card);
  if (trick.length || !may.length || view.spades_broken) return null;
  const spade = (c) => parseCard(c).suit === "S";
  if (hand.some(spade) && !may.some(spade)) return t("why.spades.notBroken");
  if (hand.length && hand.every(spade)) return t("why.spades.onlySpades");
  return null;
}

/** "3 + Nil" — the partners' bids on a team's line (a blind nil says so). */
function teamBids(bids, blind, team) {
  if (!Array.isArray(bids) || team.some((s) => bids[s] === null || bids[s] === undefined)) return "—";
  return team.map((s) => (blind?.[s] ? t("spades.blindNilShort") : bidWord(bids[s]))).join(" + ");
}

export default {
  name: "spades",
  strings,
  why,
  bidWord,
  bidPrompt: "prompt.spadesBid",
  bidBar: true, // the bids' total against the 13 tricks (bidbar.js)
  controls,
  goals,

  /** Spades are always trump and every suit runs A K Q … 2. */
  cardOrder() {
    return { trump: "S", ranks: () => ACES_HIGH };
  },

  /** The blind nil choice asks its own question; a bid, the table's ("How many tricks..."). */
  prompt(view, legal) {
    return legal.some((a) => a.type === "look") ? t("prompt.spadesBlind") : null;
  },

  /** Under a hand not yet seen (a seat that may bid blind nil): where its cards are. */
  handNotes(view) {
    if (view.phase !== "bidding" || !Array.isArray(view.hand) || view.hand.length || !(view.blind_nil_seats || []).length) return [];
    return [h("p", { class: "hint", "data-face-down": "" }, t("spades.hand.faceDown"))];
  },

  hint(view, moves) {
    if (moves.some((a) => a.type === "look")) return t("spades.hint.blindNil");
    if (view.phase === "playing" && !view.spades_broken && moves.some((a) => a.type === "play") && !(view.trick || []).length) {
      return t("spades.hint.notBroken");
    }
    return null;
  },

  actionText(action) {
    if (action.type === "look") return t("spades.act.look");
    if (action.type === "bid" && action.blind) return t("spades.act.blindNil");
    return null;
  },

  info(view, names) {
    const items = [];
    const teams = teamsOf(view);
    if (view.phase === "playing") {
      items.push([t("spades.info.broken"), view.spades_broken ? t("spades.broken.yes") : t("spades.broken.no")]);
    }
    if (Array.isArray(view.contracts) && view.contracts.some((c) => c !== null && c !== undefined)) {
      // While the tricks are played: each side's tricks of its contract ("Ana & Cy: 3 of 6").
      const playing = view.phase === "playing" && Array.isArray(view.tricks_won);
      items.push([t(playing ? "spades.info.tricksOfContracts" : "spades.info.contracts"), teams.map((team, i) => {
        const need = view.contracts[i] ?? "—";
        if (need === 0) return t("spades.info.side", { who: teamWord(names, team), n: bidWord(0) }); // both nil
        if (!playing) return t("spades.info.side", { who: teamWord(names, team), n: need });
        const won = team.reduce((sum, s) => sum + (view.tricks_won[s] ?? 0), 0);
        return t("spades.info.sideOf", { who: teamWord(names, team), won, need });
      }).join(" · ")]);
    }
    if (Array.isArray(view.bags)) {
      items.push([t("spades.info.bags"), teams.map((team) => t("spades.info.side", { who: teamWord(names, team), n: view.bags[team[0]] ?? 0 })).join(" · ")]);
    }
    return items;
  },

  seatNotes(view, seat) {
    if (blindNil(view, seat)) return [t("spades.note.blind")];
    if (view.phase === "bidding" && view.bids?.[seat] == null && (view.blind_nil_seats || []).includes(seat)) {
      return [t("spades.note.mayBlind")];
    }
    return [];
  },

  /** The sheet: per partnership, its bids, its tricks, its bags after the hand and its points. */
  sheet({ names, teams, teamLabel }) {
    const sides = teams && teams.length ? teams : TEAMS;
    return {
      about: (e) => t("spades.sheet.dealer", { who: names[e.dealer] ?? t("seat.n", { n: (e.dealer ?? 0) + 1 }) }),
      groups: sides.map((team, i) => ({
        label: teamLabel(i),
        cols: [
          { label: t("sheet.bid"), cell: (e) => teamBids(e.bids, e.blind_nil, team) },
          { label: t("sheet.took"), cell: (e) => String(team.reduce((sum, s) => sum + (e.tricks?.[s] ?? 0), 0)) },
          { label: t("spades.sheet.bags"), cell: (e) => String(e.bags?.[team[0]] ?? "—") },
          { label: t("sheet.points"), score: (e) => e.scores?.[team[0]] },
        ],
      })),
    };
  },
};
