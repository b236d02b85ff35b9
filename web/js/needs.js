// Each seat's standing against its bid while the tricks are played: "needs 2 more", "made" or
// "set". The game's descriptor says what is aimed at (``goals(view)``: the seats that share a
// goal, the tricks it needs, those won, and whether it must be met exactly, as an exact bid
// must); the tricks still to play are read off the hands. A change is said to screen readers
// (``#helpers-live``): the notes on the seats are drawn anew with every view.
import { h } from "./dom.js";
import { descriptor } from "./games.js";
import { t } from "./i18n.js";

/** The tricks still to play, the one in progress included: the fullest hand's cards. */
function tricksLeft(view) {
  const counts = (view.hand_counts || []).filter(Number.isInteger);
  return counts.length ? Math.max(...counts) : Infinity;
}

/** ``{state: "needs" | "made" | "set", n}`` of one goal with ``left`` tricks still to play. */
export function standing(goal, left) {
  const more = goal.need - goal.won;
  if ((goal.exact && more < 0) || more > left) return { state: "set", n: 0 };
  if (more <= 0) return { state: "made", n: 0 };
  return { state: "needs", n: more };
}

/** Each goal of ``view`` with its standing. */
export function goalsOf(game, view) {
  const d = descriptor(game);
  if (!view || !d.goals) return [];
  const left = tricksLeft(view);
  return d.goals(view).map((goal) => ({ ...goal, ...standing(goal, left) }));
}

const words = (g) => (g.state === "needs" ? t("needs.more", { n: g.n }) : t(`needs.${g.state}`));

/** The badge on ``seat``'s box ("needs 2 more"): one, or none when it has no goal now. */
export function goalNotes(game, view, seat) {
  const goal = goalsOf(game, view).find((g) => g.seats.includes(seat));
  return goal ? [h("span", { class: ["badge", "seat-goal", `goal-${goal.state}`], "data-goal": goal.state }, words(goal))] : [];
}

let said = null; // {hand, texts}: what each goal stood at when last drawn

/** Say what changed since the last view: "Ana: needs 1 more", "Ana & Cy: made". */
export function announceGoals(game, view, names) {
  const hand = JSON.stringify([game, view?.hand_number ?? null]);
  const texts = new Map(goalsOf(game, view).map((g) => [g.seats.join(","), `${g.seats.map((s) => names[s]).join(" & ")}: ${words(g)}`]));
  const before = said?.hand === hand ? said.texts : null;
  said = { hand, texts };
  if (!before) return; // a new hand, or the page just opened: nothing changed
  const news = [...texts].filter(([key, text]) => before.get(key) !== text).map(([, text]) => text);
  const live = document.getElementById("helpers-live");
  if (live && news.length) live.textContent = news.join(". ");
}
