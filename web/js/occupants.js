// Who made each decision at a seat that changed hands during play (a late friend took a bot's
// seat, or a bot kept the seat of a player who left): the live table's room.seat_history and a
// stored match's players[i].occupants name the right one for every move, the log, the sheet
// and the replay alike.
import { t } from "./i18n.js";

/** An occupant's name as the page says it (bots get the page's word for a bot). */
export const occupantName = (o, seat) => (o.bot ? t(o.level === "strong" ? "seat.strongBotName" : "seat.botName", { n: seat + 1 }) : o.name);

/** The seats' names at move `at` of hand `hand` (live: room.seat_history), `current` elsewhere. */
export function namesAtMove(history, hand, at, current) {
  const out = [...current];
  for (const o of history || []) {
    if (o.hand < hand || (o.hand === hand && o.at <= at)) out[o.seat] = occupantName(o, o.seat);
  }
  return out;
}

/** Who sat at a stored match's seat for action `index` (its occupants by "from"). */
export function occupantAt(player, index) {
  const occupants = player.occupants?.length ? player.occupants : [{ from: 0, ...player }];
  return occupants.filter((o) => o.from <= index).at(-1) || occupants[0];
}

/** The seats' names at action `index` of a stored match. */
export function namesAtAction(players, index) {
  const out = [];
  for (const p of players) out[p.seat] = occupantName(occupantAt(p, index), p.seat);
  return out;
}

/** A name for each seat over a whole match: "Bot 4 → Dee" for a seat that changed hands. */
export function seatNamesOverMatch(occupantsBySeat, current) {
  return current.map((name, seat) => {
    const occupants = occupantsBySeat[seat] || [];
    return occupants.length > 1 ? occupants.map((o) => occupantName(o, seat)).join(" → ") : name;
  });
}
