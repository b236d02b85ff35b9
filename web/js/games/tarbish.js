// Tarabish in the client: runs by name, and a sheet by team with card points, runs, bella,
// the last trick and bait; a no-trump hand says so where the trump suit would be.
import { t } from "../i18n.js";
import { SUITS } from "../cards.js";

const part = (e, i, key) => String(e.teams?.[i]?.[key] ?? "—");

export default {
  name: "tarbish",

  // The trump line: "no trump" once it is called, else "not yet" (games.js's fallback).
  noTrumpText(view) {
    return view.no_trump ? t("info.noTrump") : null;
  },

  info(view) {
    return view.throw_ins ? [[t("info.thrownIn"), String(view.throw_ins)]] : [];
  },

  sheet({ names, teams, teamLabel }) {
    return {
      about: (e) => {
        const trump = e.trump && SUITS[e.trump] ? `${SUITS[e.trump].symbol} ` : e.no_trump ? `${t("info.noTrump")} · ` : "";
        const result = e.result === "half_bait" ? t("sheet.halfBait") : e.bait ? t("sheet.bait") : e.made ? t("sheet.made") : "";
        return `${trump}${names[e.caller] ?? ""}${result ? ` · ${result}` : ""}`;
      },
      groups: (teams || []).map((team, i) => ({
        label: teamLabel(i),
        cols: [
          { label: t("sheet.cardPoints"), cell: (e) => part(e, i, "card_points") },
          { label: t("sheet.runs"), cell: (e) => part(e, i, "runs") },
          { label: t("sheet.bella"), cell: (e) => part(e, i, "bella") },
          { label: t("sheet.lastTrick"), cell: (e) => part(e, i, "last_trick") },
          { label: t("sheet.points"), score: (e) => e.team_scores?.[i] ?? e.teams?.[i]?.scored },
        ],
      })),
    };
  },
};
