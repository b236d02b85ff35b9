// The table page drawn: everything from the state, in one pass (render), the felt with its
// seats (the host's bot buttons, a seat kept for a rotated partner, a spectator's offers), and
// the turn said to screen readers.
import { roomUrl } from "../api.js";
import { $, fill, h, keepFocus, toast } from "../dom.js";
import { renderBidBar } from "../bidbar.js";
import { claimNews, claimParts } from "../claims.js";
import { courtesyNews, courtesyParts } from "../courtesies.js";
import { gameTitle, promptFor } from "../games.js";
import { t } from "../i18n.js";
import { announceGoals } from "../needs.js";
import { gameEntry } from "../summary.js";
import { renderTable } from "../table.js";
import { turnTimer } from "./clock.js";
import { renderControls, renderHand } from "./controls.js";
import { renderChat, renderResult } from "./dialogs.js";
import { bringUpWhatMatters, fitTable, keepDecisionInView } from "./fit.js";
import { tableTrick, trackTrick } from "./hold.js";
import { alerts, game, legal, names, page, room, view } from "./page.js";
import { renderFair, renderHeader, renderInfo, renderJoin, renderLastTrick, renderMoveLog, renderScores, renderScoreStrip, renderSheet } from "./panels.js";

/** Draw the whole page from the state (a chosen card is forgotten when the hand or the moves change). */
export function render() {
  if (!page.state) return;
  const key = JSON.stringify([view()?.hand ?? null, legal().map((a) => a.type)]);
  if (key !== page.selectionKey) {
    page.selection = [];
    page.selectionKey = key;
  }
  trackTrick();
  const claimed = claimNews(page.state, names());
  keepFocus(() => {
    renderHeader();
    renderJoin();
    renderNews(claimed.text);
    renderInfo();
    renderBidBar(room().game, view());
    announceGoals(room().game, view(), names());
    renderScoreStrip();
    renderTableArea();
    renderControls();
    fill($("#courtesies"), claimParts(page.state, game().claims !== false, page.pending), courtesyParts(page.state, names()));
    renderSeatOffers();
    renderHand();
    renderResult();
    renderScores();
    renderLastTrick();
    renderSheet();
    renderFair();
    renderChat();
    renderMoveLog();
  });
  announceTurn();
  const news = courtesyNews(page.state, names());
  if (news) $("#announce").textContent = news;
  if (claimed.fresh) $("#news-live").textContent = claimed.fresh;
  announceRequests(alerts.view(page.state, gameTitle(room().game, room().title)));
  if (fitTable()) keepDecisionInView(); // the dock just left (or rejoined) the bottom of the screen
  bringUpWhatMatters();
}

/** The table's news above your moves (a claim accepted), or nothing. */
function renderNews(text) {
  const box = $("#table-news");
  box.hidden = !text;
  box.textContent = text || "";
}

/** The rotated partner a seat is kept for now (room.partners until room.held_until), or null. */
export function heldFor(seat) {
  const r = room();
  if (!r.partners || r.status !== "waiting" || Date.now() >= r.held_until) return null;
  const kept = r.partners.find((p) => p.seat === seat);
  return kept && !page.state.seats.some((s) => s.player_id === kept.player_id) ? kept : null;
}

/** The page draws again when the seats stop being kept (the host may then add bots). */
export function watchHeld() {
  const r = room();
  clearTimeout(page.heldTimer);
  if (r.partners && r.status === "waiting" && Date.now() < r.held_until) page.heldTimer = setTimeout(render, r.held_until - Date.now() + 50);
}

/** "New partners: you are with Ana": the player across from you at a table of rotated partners. */
export function partnersLine() {
  const r = room();
  if (!r.partners || r.status !== "waiting" || page.state.you === null || page.state.seats.length !== 4) return null;
  const across = partnerOf(r.game, page.state.you);
  const partner = r.partners.find((p) => p.seat === across);
  const name = partner ? partner.name : names()[across];
  return h("p", { class: "pill pill-turn", "data-partners": "", role: "status" }, t("rotate.partners", { name }));
}

/** Your partner's seat: the other seat of your partnership as GET /api/games lists them for
 *  four (``partnerships``), else the seat across the table. */
function partnerOf(name, you) {
  const mine = (gameEntry(name)?.partnerships || []).find((seats) => seats.includes(you));
  return mine?.find((seat) => seat !== you) ?? (you + 2) % 4;
}

/** A player of a finished table whose next table rotates partners goes there by themselves. */
export function followRotation() {
  const r = room();
  if (page.moving || r.status !== "finished" || !r.next || !r.next_rotated || page.state.you === null) return;
  page.moving = true;
  toast(t("rotate.moving"));
  location.assign(roomUrl(r.next));
}

/** A seat's buttons while the table waits: sit, add or remove a bot (or whom it is kept for). */
function seatExtras(s) {
  if (room().status !== "waiting") return null;
  const out = [];
  const kept = !s.name ? heldFor(s.seat) : null;
  if (kept) return h("div", { class: "seat-actions" }, h("span", { class: "hint", "data-kept": s.seat }, t("rotate.kept", { name: kept.name })));
  if (!s.name && page.state.me && page.state.you === null) {
    out.push(h("button", { type: "button", class: "btn btn-small btn-primary", "data-sit": s.seat, "data-key": `sit-${s.seat}` }, t("seat.sit")));
  }
  if (!s.name && page.state.is_host) {
    out.push(h("button", { type: "button", class: "btn btn-small", "data-bot": s.seat, "data-key": `bot-${s.seat}` }, t("button.addBot")));
  }
  if (s.bot && page.state.is_host) {
    out.push(h("button", { type: "button", class: "btn btn-small btn-ghost", "data-bot-remove": s.seat, "data-key": `unbot-${s.seat}`, "aria-label": t("seat.removeBotLabel", { n: s.seat + 1 }) }, t("seat.removeBot")));
  }
  return out.length ? h("div", { class: "seat-actions" }, out) : null;
}

/** The host hears of each new ask for a bot's seat (a live region), looking at the page or not. */
function announceRequests(events) {
  const asks = events.filter((e) => e.kind === "request");
  if (asks.length) $("#seat-live").textContent = asks.map((e) => t("offer.requestAnnounce", { name: e.who, n: e.seat + 1 })).join(" ");
}

/** The seats a spectator may have during play (their own back, a bot's, one at the next game)
 * and, for the host, who asks for a bot's seat. */
function renderSeatOffers() {
  const parts = [...hostRequests(), ...spectatorOffers()];
  const box = $("#seat-offers");
  box.hidden = parts.length === 0;
  fill(box, parts);
}

/** The host's answers to asks for a bot's seat. */
function hostRequests() {
  if (!page.state.is_host || room().status !== "playing") return [];
  return (room().seat_requests || []).map((q) => h("div", { class: "row seat-request" },
    h("span", {}, t("offer.request", { name: q.name, n: q.seat + 1 })),
    h("button", { type: "button", class: "btn btn-small btn-primary", "data-allow": q.player_id, "data-key": `allow-${q.player_id}` }, t("offer.allow")),
    h("button", { type: "button", class: "btn btn-small btn-ghost", "data-decline": q.player_id, "data-key": `decline-${q.player_id}` }, t("offer.decline"))));
}

/** A spectator's ways back in: their own seat, a bot's, or one at the next game. */
function spectatorOffers() {
  const r = room();
  if (!page.state.me || page.state.you !== null || r.status === "waiting") return [];
  const nm = names();
  const mine = page.state.seats.find((s) => s.bot && s.left_by === page.state.me.id);
  if (r.status === "playing" && mine) {
    return [h("p", {}, t("offer.left", { n: mine.seat + 1 })),
      h("div", { class: "row" }, h("button", { type: "button", class: "btn btn-primary", "data-reclaim": "", "data-key": "reclaim" }, t("offer.reclaim")))];
  }
  const out = [];
  const bots = page.state.seats.filter((s) => s.bot);
  const asked = (r.seat_requests || []).find((q) => q.player_id === page.state.me.id);
  if (r.status === "playing" && asked) out.push(h("p", { class: "hint" }, t("offer.asked", { n: asked.seat + 1 })));
  else if (r.status === "playing" && bots.length) {
    out.push(h("p", {}, t(r.open_bot_seats ? "offer.takeText" : "offer.askText")),
      h("div", { class: "row" }, bots.map((s) => h("button", { type: "button", class: "btn btn-small", "data-take-seat": s.seat, "data-key": `take-${s.seat}` },
        t(r.open_bot_seats ? "offer.take" : "offer.ask", { who: nm[s.seat] })))));
  }
  if (!r.next && bots.length) {
    const joining = (r.joining || []).some((j) => j.player_id === page.state.me.id);
    out.push(joining ? h("p", { class: "hint" }, t("offer.joining"))
      : h("div", { class: "row" }, h("button", { type: "button", class: "btn", "data-join-next": "", "data-key": "join-next" }, t("offer.joinNext"))));
  }
  return out;
}

/** The felt: the seats, the trick in play (or held), the turn clock. */
function renderTableArea() {
  const r = room();
  let center = null;
  if (r.status === "waiting") {
    const taken = page.state.seats.filter((s) => s.name).length;
    center = [h("div", { class: "felt-wait" }, t("wait.seated", { n: taken, m: page.state.seats.length })),
      h("div", { class: "felt-hint" }, taken < page.state.seats.length ? t("wait.invite") : t("wait.ready"))];
  }
  renderTable($("#table"), {
    game: r.game,
    view: view(),
    seats: page.state.seats,
    you: page.state.you,
    hostId: r.host,
    names: names(),
    seatExtras,
    center,
    trick: tableTrick(),
    timer: turnTimer(),
  });
}

/** Your turn (and the end of the match) said to screen readers, once each. */
function announceTurn() {
  const mine = page.state.you !== null && legal().length > 0 && room().status === "playing";
  if (mine && !page.wasMyTurn) {
    const live = $("#announce");
    live.textContent = "";
    // Said a moment later (so it is heard as new), unless something newer was said meanwhile
    // (a request to allow a take-back that came with the turn).
    setTimeout(() => {
      if (!live.textContent) live.textContent = t("turn.announce", { prompt: promptFor(room().game, view(), legal()) });
    }, 50);
  } else if (room().status === "finished" && page.wasMyTurn !== "over") {
    $("#announce").textContent = t("result.overAnnounce");
  }
  page.wasMyTurn = room().status === "finished" ? "over" : mine;
}

