// Your moves: the prompt and its buttons (bids, trump, pass and whatever the game's descriptor
// draws itself), your hand (a card to play, or several chosen for a move), why a card may not
// be played, and the actions sent.
import { cardBack, cardButton, cardView, suitName, SUITS } from "../cards.js";
import { $, fill, h, keepFocus, toast } from "../dom.js";
import { bidText, passLabel, promptFor, seatLabel } from "../games.js";
import { chooseAhead, mayChooseAhead } from "../courtesies.js";
import { arrangeHand } from "../handorder.js";
import { t } from "../i18n.js";
import { cardWhyLine, whyParts } from "../why.js";
import { turnClock } from "./clock.js";
import { code, game, legal, names, page, room, view } from "./page.js";
import { heldFor, partnersLine, render } from "./table_view.js";

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
export const playResult = (r) => game().resultWord?.(r) || String(r).replace(/_/g, " ");

/** The game's way of choosing several cards now ({count, selectable, submits}), or null. */
const choosing = () => (view() ? game().select?.(view(), legal()) || null : null);

/** How the hand is used now: "play" (click a card), "select" (choose several), or "none". */
function handMode() {
  if (choosing()) return "select";
  if (legal().some((a) => a.type === "play")) return "play";
  return "none";
}

const selectCount = () => choosing()?.count ?? 0;

/** A control button, disabled while an action is on its way. */
function button(label, attrs) {
  return h("button", { type: "button", class: "btn", "data-control": "", disabled: page.pending, ...attrs }, label);
}

/** The controls under the table: the waiting room's, or your turn's prompt and moves. */
export function renderControls() {
  const r = room();
  const box = $("#controls");
  if (r.status === "waiting") {
    const parts = [];
    const empty = page.state.seats.filter((s) => !s.name).length;
    if (!page.state.me) parts.push(h("p", {}, t("wait.watchingGiveName")));
    else if (page.state.you === null) parts.push(h("p", {}, empty ? t("wait.chooseSeat") : t("wait.full")));
    else parts.push(partnersLine(), h("p", {}, t("wait.youSit", { n: page.state.you + 1 })), h("div", { class: "row" }, h("button", { type: "button", class: "btn btn-ghost", "data-stand": "", "data-key": "stand" }, t("button.stand"))));
    if (page.state.is_host) {
      parts.push(h("div", { class: "row" },
        h("label", { class: "bot-level" }, t("wait.botLevel"), " ",
          h("select", { "data-bot-level": "", "data-key": "bot-level" },
            h("option", { value: "easy", selected: page.botLevel === "easy" }, t("level.easy")),
            h("option", { value: "strong", selected: page.botLevel === "strong" }, t("level.strong")))),
        h("button", { type: "button", class: "btn", "data-bot-next": "", "data-key": "bot-next", disabled: !page.state.seats.some((s) => !s.name && !heldFor(s.seat)) }, t("button.addBot")),
        h("button", { type: "button", class: "btn btn-primary", "data-start": "", "data-key": "start", disabled: empty > 0 }, t("button.start")),
        empty > 0 ? h("span", { class: "hint" }, t("wait.fill", { n: empty })) : null));
    } else {
      parts.push(h("p", { class: "hint" }, t("wait.host", { host: r.host_name || t("wait.theHost") })));
    }
    fill(box, parts);
    return;
  }
  if (r.status === "finished" || !view()) {
    fill(box);
    return;
  }
  const v = view();
  const moves = legal();
  if (page.state.you === null) {
    const behind = r.watch_delay === "trick" || r.watch_delay === "hand" ? t(`watch.behind.${r.watch_delay}`) : null;
    fill(box, h("p", { class: "hint" }, t("watch.inPlay")), behind ? h("p", { class: "hint", "data-watch-delay": r.watch_delay }, behind) : null, waitingLine(v));
    return;
  }
  if (page.state.seats[page.state.you]?.away) {
    // Drawn once while away: the button must not be replaced under a finger as the bots play on.
    if (!box.querySelector("[data-back]")) {
      fill(box, h("p", { class: "prompt" }, t("away.text")),
        h("div", { class: "row" }, h("button", { type: "button", class: "btn btn-primary", "data-back": "", "data-key": "back" }, t("away.back"))));
    }
    return;
  }
  if (moves.length === 0) {
    fill(box, waitingLine(v));
    return;
  }
  const why = whyParts(r.game, v, moves);
  const out = [h("div", { class: "turn-banner" }, t("turn.yours")), turnClock(), h("p", { class: "prompt" }, promptFor(r.game, v, moves), why ? [" ", why.ask] : null)];
  if (why) out.push(why.text);
  const hint = game().hint?.(v, moves);
  if (hint) out.push(h("p", { class: "hint" }, hint));
  // A game may draw some moves' buttons itself (bids that name a direction).
  const own = game().controls?.(v, moves) || [];
  const handled = new Set(own.map((c) => c.index));
  const row = own.length ? own.map((c) => button(c.label, { ...c.attrs, "data-legal": c.index })) : bidButtons(r.game, moves);
  moves.forEach((a, i) => {
    if (handled.has(i)) return;
    if (a.type === "trump" && SUITS[a.suit]) {
      row.push(button([h("span", { class: `suit-${a.suit}`, "aria-hidden": "true" }, SUITS[a.suit].symbol), ` ${capital(suitName(a.suit))}`],
        { class: "btn btn-suit", "data-suit": a.suit, "data-legal": i, "data-key": `trump-${a.suit}` }));
    }
  });
  // The game's own moves (a call of no trump, taking the contract, declaring runs): its buttons.
  moves.forEach((a, i) => {
    if (handled.has(i)) return;
    const mine = game().moveButton?.(a, v, moves);
    if (mine) row.push(button(mine.label, { ...mine.attrs, "data-legal": i }));
  });
  moves.forEach((a, i) => {
    if (handled.has(i)) return;
    if (a.type === "pass") row.push(button(passLabel(r.game, v, moves), { "data-act": "pass", "data-legal": i, "data-key": "pass" }));
  });
  if (handMode() === "select") {
    const hand = v.hand || [];
    const chosen = page.selection.map((i) => hand[i]);
    for (const submit of choosing().submits) {
      row.push(button(submit.label(chosen), { ...(submit.primary ? { class: "btn btn-primary" } : {}),
        "data-submit": submit.key, "data-key": `submit-${submit.key}`, disabled: page.pending || !submit.move(chosen) }));
    }
    if (page.selection.length) row.push(h("button", { type: "button", class: "btn btn-ghost", "data-clear-selection": "", "data-key": "clear" }, t("button.clear")));
  }
  if (row.length) out.push(h("div", { class: "row actions" }, row));
  fill(box, out);
}

// More bids than this (a big table's long run of bids: up to 35) are chosen with a stepper, so the
// controls stay a row high and the table above them stays in sight.
const MOST_BID_BUTTONS = 8;
/** A button per legal bid; or, for a long run of bids, lower / "Bid n" / higher. */
function bidButtons(game, moves) {
  const bids = moves.map((a, i) => [a, i]).filter(([a]) => a.type === "bid");
  if (bids.length <= MOST_BID_BUTTONS) {
    return bids.map(([a, i]) => button(bidText(game, a.value), { class: "btn btn-bid", "data-bid": a.value, "data-legal": i, "data-key": `bid-${a.value}` }));
  }
  let k = bids.findIndex(([a]) => a.value === page.bidPick);
  if (k < 0) k = 0;
  page.bidPick = bids[k][0].value;
  const [a, i] = bids[k];
  const step = (by, label, key) => h("button", {
    type: "button", class: "btn btn-step", "data-bid-step": by, "data-key": key, "aria-label": label,
    disabled: page.pending || !bids[k + by],
  }, by < 0 ? "−" : "+");
  return [
    step(-1, t("bid.lower"), "bid-lower"),
    button(t("bid.make", { bid: bidText(game, a.value) }), { class: "btn btn-bid btn-primary", "data-bid": a.value, "data-legal": i, "data-key": `bid-${a.value}` }),
    step(1, t("bid.higher"), "bid-higher"),
  ];
}

/** Move the bid stepper one bid lower or higher. */
export function stepBid(by) {
  const bids = legal().filter((a) => a.type === "bid").map((a) => a.value);
  const k = Math.max(0, bids.indexOf(page.bidPick));
  page.bidPick = bids[Math.min(bids.length - 1, Math.max(0, k + by))];
  renderControls();
  $(`#controls [data-key="${by < 0 ? "bid-lower" : "bid-higher"}"]`)?.focus();
}

/** Who the table waits for. */
function waitingLine(v) {
  const who = (v.to_act || []).map((s) => seatLabel(names(), s));
  return h("p", { class: "waiting" }, who.length ? t("turn.waitingFor", { who: who.join(", ") }) : "");
}

const handKey = () => JSON.stringify([view()?.hand ?? null, legal()]);

/** The reason a card of the hand cannot be played now, in a line. */
function reasonFor(card) {
  const who = (view()?.to_act || []).map((s) => seatLabel(names(), s)).join(", ");
  return cardWhyLine(room().game, view(), legal(), card, who);
}

/** The reasons for the cards that cannot be played (one line each, said once). */
const reasonsFor = (blocked) => [...new Set(blocked.map((b) => reasonFor(b.dataset.card)).filter(Boolean))].join(" ");

/**
 * The line under the hand that says why a card cannot be played. A tap on a greyed card shows
 * its reason; while some cards may be played and others not, "Why not these cards?" gives the
 * same to the keyboard. Every greyed card is described by it, so a screen reader says why.
 */
function cardWhyParts(blocked, mixed) {
  if (page.state.you === null || room().status !== "playing" || page.pending || !blocked.length) return null;
  const shown = page.cardWhy?.key === handKey() ? page.cardWhy.text : null;
  for (const b of blocked) b.setAttribute("aria-describedby", "card-why");
  const text = h("p", { class: "why-text card-why", id: "card-why", hidden: !shown }, shown || reasonsFor(blocked));
  if (!mixed) return text;
  const ask = h("button", {
    type: "button", class: "btn btn-small btn-ghost why-ask", "aria-expanded": String(Boolean(shown)),
    "aria-controls": "card-why", "data-card-why": "", "data-key": "card-why",
  }, t("why.cards"));
  return h("div", { class: "card-why-row" }, ask, text);
}

/** Show (or, asked again, hide) why the greyed cards cannot be played; ``card`` names one. */
export function showCardWhy(card) {
  const blocked = [...document.querySelectorAll("#hand button[data-card]:disabled")];
  const open = card === undefined && page.cardWhy?.key === handKey();
  page.cardWhy = open ? null : { key: handKey(), text: card === undefined ? reasonsFor(blocked) : reasonFor(card) };
  keepFocus(renderHand);
  $("#why-live").textContent = page.cardWhy ? page.cardWhy.text : "";
}

// A greyed card is a disabled button: it gets no click, but a tap on it still ends a pointer.
document.addEventListener("pointerup", (event) => {
  const card = event.target.closest?.("#hand button[data-card]");
  if (card?.disabled && !page.pending) showCardWhy(card.dataset.card);
});

/** Your hand: cards to play or to choose, greyed ones with their reason, and what lies face down. */
export function renderHand() {
  const box = $("#hand");
  const v = view();
  if (!v || !Array.isArray(v.hand) || room().status === "finished") {
    fill(box);
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const mode = handMode();
  const playable = new Set(legal().filter((a) => a.type === "play").map((a) => a.card));
  const selectable = choosing()?.selectable ?? null;
  const kitty = new Set(Array.isArray(v.kitty) ? v.kitty : []);
  const ahead = mode === "none" && mayChooseAhead(page.state, legal().length); // a card chosen before your turn
  const cards = v.hand.map((c, i) => {
    let disabled = true;
    let pressed = null;
    if (mode === "play") disabled = page.pending || !playable.has(c);
    else if (mode === "select") {
      pressed = page.selection.includes(i);
      disabled = page.pending || (selectable !== null && !selectable.has(c) && !pressed);
    } else if (ahead) {
      pressed = c === page.state.preselect;
      disabled = page.pending;
    }
    const btn = cardButton(c, i, { disabled, pressed });
    if (kitty.has(c)) btn.classList.add("from-kitty");
    return btn;
  });
  const parts = [h("h2", { class: "sr-only" }, t("hand.title")), h("div", { class: ["hand-cards", mode !== "none" && "hand-live"] }, cards)];
  parts.push(cardWhyParts(cards.filter((b) => b.disabled), mode === "play"));
  if (v.hand.length === 0) parts.push(h("p", { class: "hint" }, t("hand.empty")));
  if (kitty.size) parts.push(h("p", { class: "hint" }, t("hand.kittyMarked")));
  parts.push(...(game().handNotes?.(v) || []));
  if (Array.isArray(v.discards) && v.discards.length) {
    parts.push(h("div", { class: "discards" }, h("span", { class: "hint" }, t("hand.discards")), v.discards.map((c) => cardView(c, { small: true }))));
  }
  if (Array.isArray(v.kitty_count) && page.state.you !== null && v.kitty_count[page.state.you]) {
    const k = v.kitty_count[page.state.you];
    parts.push(h("div", { class: "discards" }, h("span", { class: "hint" }, t("hand.kittyDown")),
      Array.from({ length: k }, () => cardBack({ small: true }))));
  }
  fill(box, parts);
  arrangeHand(box, room().game, v, code);
}

/** Send a move; nothing more is sent until the table answers. */
export function act(action) {
  if (page.pending || !page.conn) return;
  if (page.conn.act(action)) {
    page.pending = true;
    render();
  } else {
    toast(t("conn.notSent"), "error");
  }
}

/** Send a frame that is not a move (sit, stand, a bot, chat...). */
export function send(frame) {
  if (!page.conn || !page.conn.send(frame)) toast(t("conn.tryAgain"), "error");
}

/** A card of your hand tapped: played, or chosen (or no longer chosen) for a move of several. */
export function onCard(btn) {
  const index = Number(btn.dataset.index);
  const mode = handMode();
  if (mode === "play") {
    const a = legal().find((x) => x.type === "play" && x.card === btn.dataset.card);
    if (a) act(a);
  } else if (mode === "select") {
    const at = page.selection.indexOf(index);
    if (at >= 0) page.selection.splice(at, 1);
    else if (page.selection.length < selectCount()) page.selection.push(index);
    else toast(t("hand.unselectFirst", { n: selectCount() }));
    render();
  } else if (mayChooseAhead(page.state, legal().length)) chooseAhead(page.state, btn.dataset.card, send);
}

/** The chosen cards sent as the move of the game's submit button ``key``. */
export function submitSelection(key) {
  const hand = view().hand || [];
  const move = choosing()?.submits.find((s) => s.key === key)?.move(page.selection.map((i) => hand[i]));
  if (move) act(move);
}

