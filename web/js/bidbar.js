// The bid bar (a game whose descriptor asks for it), over the controls while the table bids: the bids so far against the tricks
// in the hand ("Bids 9 of 10"), and, when the hook rule applies (the dealer is to bid), the bid
// the dealer may not make ("the dealer may not bid 1"). A game asks for it in its descriptor
// (``bidBar``); the bar is a polite live region, so a screen reader hears the total change.
import { descriptor } from "./games.js";
import { t } from "./i18n.js";

/** The bar's words for ``view``, or null when there is no bar. */
export function bidBarText(game, view) {
  if (!descriptor(game).bidBar || view?.phase !== "bidding" || !Array.isArray(view.bids)) return null;
  const total = view.bids.reduce((sum, b) => sum + (typeof b === "number" ? b : 0), 0);
  const dealt = (view.hand_counts || []).filter(Number.isInteger); // no hand_size: the cards dealt
  const parts = [t("bidBar.total", { total, n: view.hand_size ?? (dealt.length ? Math.max(...dealt) : "?") })];
  if (Number.isInteger(view.forbidden_bid)) parts.push(t("bidBar.hook", { n: view.forbidden_bid }));
  return parts.join(" · ");
}

/** Draw the bar (``#bid-bar``); its text is only replaced when it changes (one announcement). */
export function renderBidBar(game, view) {
  const bar = document.getElementById("bid-bar");
  if (!bar) return;
  const text = bidBarText(game, view);
  bar.hidden = text === null;
  if ((text ?? "") !== bar.textContent) bar.textContent = text ?? "";
}
