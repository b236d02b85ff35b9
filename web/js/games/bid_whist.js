// Bid Whist in the client: bids said as words, the contract instead of bids once won, and a
// sheet by team with each hand's contract and whether it was made.
import { t } from "../i18n.js";
import { SUITS } from "../cards.js";

const bidWord = (value) => (typeof value === "number" ? t(`bidWhist.bid.${value}`) : String(value));

export default {
  name: "bid_whist",
  bidWord,
  hideBidsOnceContracted: true,

  sheet({ names, teams, teamLabel }) {
    return {
      about: (e) => {
        if (e.contract == null) return t("sheet.noContract");
        const trump = e.trump && SUITS[e.trump] ? ` ${SUITS[e.trump].symbol}` : e.trump ? ` ${t("bidWhist.noTrump")}` : "";
        const who = names[e.declarer] ?? "";
        const result = e.chicago ? t("sheet.chicago") : e.made ? t("sheet.made") : t("sheet.set");
        return `${bidWord(e.contract)}${trump} · ${who} · ${result}`;
      },
      groups: (teams || []).map((team, i) => ({
        label: teamLabel(i),
        cols: [
          { label: t("sheet.tricks"), cell: (e) => String(e.tricks?.[i] ?? "—") },
          { label: t("sheet.points"), score: (e) => e.team_scores?.[i] },
        ],
      })),
    };
  },
};
