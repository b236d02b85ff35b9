// Your hand in the order you choose: a small "Sort" control after the cards (by suit, trumps
// to one side, by rank, or by hand), kept on this device. Sorted by hand, the cards are dragged
// into place (mouse or touch), or moved with the keys: the row of cards takes focus, the arrow
// keys pick a card and Shift with an arrow moves it. The arrangement is kept for the hand being
// played. The cards keep their buttons and their data-index (the place in the view's hand), so
// playing and choosing cards work the same in every order.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { cardLabel } from "./cards.js";
import { descriptor } from "./games.js";
import { moved, orderFacts, sortHand, sortModes } from "./sorting.js";

const MODE_KEY = "felt.handSort";
const ARRANGED_KEY = "felt.handArranged";
const DRAG_PX = 8; // a press that moves less than this is a tap (it plays or chooses the card)

let current = null; // the hand last drawn: {box, game, view, code}
let picked = 0; // the place, in the shown order, of the card the keys move
let press = null; // a press on a card that may become a drag: {x, y, button, dragged}

function read(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // private browsing without storage: the order lasts as long as the page
  }
}

/** The sort mode kept on this device, if this game offers it; else the game's first. */
function modeFor(modes) {
  const kept = read(MODE_KEY);
  return modes.includes(kept) ? kept : modes[0];
}

const handId = (o) => JSON.stringify([o.code, o.view?.hand_number ?? null]);

/** The cards as the player arranged them in this hand of this table (null: not arranged). */
function arrangedCards(o) {
  try {
    const kept = JSON.parse(read(ARRANGED_KEY) || "null");
    return kept && kept.id === handId(o) && Array.isArray(kept.cards) ? kept.cards : null;
  } catch {
    return null;
  }
}

const row = () => current?.box.querySelector(".hand-cards");
const shownButtons = () => [...(row()?.querySelectorAll("button[data-card]") || [])];

/** Keep the cards as they are shown now as the player's arrangement. */
function keepShownOrder() {
  write(ARRANGED_KEY, JSON.stringify({ id: handId(current), cards: shownButtons().map((b) => b.dataset.card) }));
}

/**
 * Put the drawn hand in ``box`` in the chosen order and add the Sort control (room.js calls it
 * after drawing the hand; ``code`` is the table's).
 */
export function arrangeHand(box, game, view, code) {
  current = { box, game, view, code };
  const cards = row();
  if (!cards || !Array.isArray(view?.hand) || !view.hand.length) return;
  const d = descriptor(game);
  const modes = sortModes(d);
  const mode = modeFor(modes);
  const order = sortHand(view.hand, mode, orderFacts(d, view), mode === "hand" ? arrangedCards(current) || [] : null);
  if (!cards.querySelector(".hand-sort")) cards.append(sortControl(modes, mode));
  const byIndex = new Map(shownButtons().map((b) => [Number(b.dataset.index), b]));
  putInOrder(order.map((i) => byIndex.get(i)).filter(Boolean));
  markArranging(cards, mode === "hand");
  const hint = box.querySelector(".hand-sort-hint") || box.appendChild(h("p", { class: "hint hand-sort-hint" }, t("sort.arrangeHint")));
  hint.hidden = mode !== "hand";
}

/** Show the card buttons in this order, the Sort control after them (on their last line, where
 *  there is room: it adds no line to the dock). */
function putInOrder(buttons) {
  row().querySelector(".hand-sort").before(...buttons);
}

/** Sorted by hand, the row takes focus and shows the picked card; else it is a plain row. */
function markArranging(cards, on) {
  const buttons = shownButtons();
  for (const b of buttons) {
    b.classList.remove("card-picked");
    b.removeAttribute("id");
  }
  cards.toggleAttribute("data-arrange", on);
  if (!on) {
    for (const name of ["tabindex", "role", "aria-label", "aria-activedescendant", "data-key"]) cards.removeAttribute(name);
    return;
  }
  picked = Math.max(0, Math.min(picked, buttons.length - 1));
  const chosen = buttons[picked];
  chosen.classList.add("card-picked");
  chosen.id = "hand-picked";
  Object.entries({ tabindex: "0", role: "group", "aria-label": t("sort.arrangeLabel"), "aria-activedescendant": "hand-picked", "data-key": "hand-arrange" })
    .forEach(([name, value]) => cards.setAttribute(name, value));
}

function sortControl(modes, mode) {
  return h("span", { class: "hand-sort" },
    h("label", { for: "hand-sort" }, t("sort.label")),
    h("select", { id: "hand-sort", "data-hand-sort": "", "data-key": "hand-sort" },
      modes.map((m) => h("option", { value: m, selected: m === mode }, t(`sort.${m}`)))));
}

/** Put the hand in its new order (the control stays, and keeps the focus it has). */
function again() {
  if (current) arrangeHand(current.box, current.game, current.view, current.code);
}

/** Tell screen readers where a moved card now is. */
function say(text) {
  const live = document.getElementById("helpers-live");
  if (live) live.textContent = text;
}

/** Move the card at shown place ``from`` to ``to``; the new order is kept. */
function moveCard(from, to) {
  const buttons = shownButtons();
  if (to < 0 || to >= buttons.length || from === to) return;
  const order = moved(buttons, from, to);
  putInOrder(order);
  picked = to;
  keepShownOrder();
  again();
  say(t("sort.moved", { card: cardLabel(order[to].dataset.card), n: to + 1, m: order.length }));
}

document.addEventListener("change", (event) => {
  if (!event.target.matches?.("[data-hand-sort]") || !current) return;
  if (event.target.value === "hand") keepShownOrder(); // arranging starts from the order shown
  write(MODE_KEY, event.target.value);
  again();
});

document.addEventListener("keydown", (event) => {
  const cards = event.target.closest?.(".hand-cards[data-arrange]");
  if (!cards || !current || event.target.closest(".hand-sort")) return; // the select keeps its keys
  if (!["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) return;
  const buttons = shownButtons();
  const card = event.target.closest("button[data-card]");
  if (card) picked = buttons.indexOf(card);
  const step = event.key === "ArrowLeft" ? -1 : event.key === "ArrowRight" ? 1 : 0;
  event.preventDefault();
  if (event.shiftKey || event.altKey) {
    moveCard(picked, step ? picked + step : event.key === "Home" ? 0 : buttons.length - 1);
    if (card) card.focus();
    return;
  }
  picked = step ? Math.max(0, Math.min(buttons.length - 1, picked + step)) : event.key === "Home" ? 0 : buttons.length - 1;
  markArranging(cards, true);
});

// Dragging: a press on a card sorted by hand that moves a few pixels drags it; the row is
// reordered as it goes and kept when it is let go. The tap that ends a drag plays nothing.
document.addEventListener("pointerdown", (event) => {
  const card = event.target.closest?.(".hand-cards[data-arrange] button[data-card]");
  press = card && event.isPrimary ? { x: event.clientX, y: event.clientY, button: card, dragged: false } : null;
}, true);

document.addEventListener("pointermove", (event) => {
  if (!press || !row()?.contains(press.button)) return;
  if (!press.dragged && Math.hypot(event.clientX - press.x, event.clientY - press.y) < DRAG_PX) return;
  press.dragged = true;
  press.button.classList.add("card-dragging");
  const buttons = shownButtons();
  const over = placeAt(buttons, event.clientX, event.clientY);
  const from = buttons.indexOf(press.button);
  if (over !== from) putInOrder(moved(buttons, from, over));
}, true);

/** The shown place the pointer is over: the card in its line whose middle it is nearest. */
function placeAt(buttons, x, y) {
  let best = 0, bestDistance = Infinity;
  buttons.forEach((b, i) => {
    const r = b.getBoundingClientRect();
    const off = y < r.top ? r.top - y : y > r.bottom ? y - r.bottom : 0;
    const distance = off * 4 + Math.abs(x - (r.left + r.width / 2));
    if (distance < bestDistance) [best, bestDistance] = [i, distance];
  });
  return best;
}

function endPress(event) {
  const done = press;
  press = null;
  if (!done?.dragged) return;
  event.stopPropagation(); // no "why" line for a greyed card let go of
  done.button.classList.remove("card-dragging");
  picked = shownButtons().indexOf(done.button);
  keepShownOrder();
  again();
  say(t("sort.moved", { card: cardLabel(done.button.dataset.card), n: picked + 1, m: shownButtons().length }));
  // The click that follows the drag's end (at once, if at all) is not a tap on the card.
  window.addEventListener("click", swallow, true);
  setTimeout(() => window.removeEventListener("click", swallow, true), 0);
}

function swallow(event) {
  event.stopPropagation();
  event.preventDefault();
}
window.addEventListener("pointerup", endPress, true);
window.addEventListener("pointercancel", endPress, true);
