// What opens over the table page or at its end: the result and its next table, the chat's
// drawer, the invite link copied, and a new table to play again.
import { api, matchUrl, roomUrl } from "../api.js";
import { $, fill, h, toast } from "../dom.js";
import { claimText } from "../claims.js";
import { seatLabel } from "../games.js";
import { errorText, t } from "../i18n.js";
import { inviteUrl, names, page, room, view } from "./page.js";
import { render } from "./table_view.js";

/** Who won and the final scores: by team in a team game, by player otherwise. */
function resultLines(res, teams) {
  const nm = names();
  const won = new Set(res.winners || []);
  const rows = teams
    ? teams.map((team) => ({ label: team.map((s) => seatLabel(nm, s)).join(" & "), score: res.scores[team[0]], won: team.some((s) => won.has(s)) }))
    : (res.scores || []).map((score, s) => ({ label: seatLabel(nm, s), score, won: won.has(s) }));
  const winners = rows.filter((r) => r.won).map((r) => r.label);
  return [
    h("p", { class: "result-winners" }, winners.length > 1 ? t("result.winners", { who: winners.join(", ") }) : t("result.winner", { who: winners[0] || "—" })),
    h("ol", { class: "result-scores" }, rows.sort((a, b) => b.score - a.score)
      .map((r) => h("li", { class: r.won ? "winner" : null }, `${r.label}: ${r.score}`))),
  ];
}

/** The result panel of a finished table: who won, the scores, and where to go next. */
export function renderResult() {
  const box = $("#result");
  const r = room();
  const res = page.state.result;
  if (r.status !== "finished" || !res) {
    fill(box);
    return;
  }
  const iWon = page.state.you !== null && (res.winners || []).includes(page.state.you);
  const parts = [h("h2", {}, iWon ? t("result.youWon") : t("result.over")), ...resultLines(res, view()?.teams)];
  const row = [];
  if (r.next) {
    row.push(h("a", { class: "btn btn-primary", href: roomUrl(r.next), "data-key": "next-room" }, t("result.next")));
  } else if (page.state.me && page.state.you !== null) {
    row.push(h("button", { type: "button", class: "btn btn-primary", "data-play-again": "", "data-key": "again" }, t("result.again")));
    if (view()?.teams && r.seats === 4) row.push(h("button", { type: "button", class: "btn", "data-play-again": "rotate", "data-key": "again-rotate" }, t("result.againRotate")));
  }
  if (res.match_id) row.push(h("a", { class: "btn", href: matchUrl(res.match_id), "data-key": "record" }, t("result.record")));
  else parts.push(h("p", { class: "hint" }, t("result.saving")));
  row.push(h("a", { class: "btn btn-ghost", href: "/" }, t("nav.lobby")));
  parts.push(h("div", { class: "row" }, row));
  fill(box, h("div", { class: "panel result-panel" }, parts));
}

/** The chat's lines, its unread count and its form. */
export function renderChat() {
  const lines = page.state.chat || [];
  const log = $("#chat-log");
  const nm = names();
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 30;
  fill(log, lines.map((line) => (line.event === "claim"
    ? h("li", { class: "chat-news", "data-chat-news": "" }, h("span", { class: "chat-text" }, claimText(line, nm))) // the table's news, not typed
    : h("li", {},
      h("span", { class: "chat-name" }, line.name || (line.seat != null ? seatLabel(nm, line.seat) : t("chat.watcher"))),
      h("span", { class: "chat-text" }, line.text)))));
  if (lines.length !== page.chatSeen && (atBottom || page.chatSeen === 0)) log.scrollTop = log.scrollHeight;
  page.chatSeen = lines.length;
  if (page.chatRead === null || page.chatOpen) page.chatRead = lines.length;
  const unread = lines.length - page.chatRead;
  const badge = $("#chat-unread");
  badge.hidden = unread <= 0;
  badge.textContent = unread > 0 ? String(unread) : "";
  $("#chat-jump").setAttribute("aria-label", unread > 0 ? t("chat.unread", { n: unread }) : t("chat.title"));
  $("#chat-form").hidden = !page.state.me;
}

/** Open or close the chat's lines. They drop down over the page, so neither opening them nor
 * typing scrolls anything; closing gives the focus back to the button that opened them. */
export function setChat(open) {
  page.chatOpen = open;
  $("#chat-drawer").classList.toggle("chat-open", open);
  $("[data-chat-close]").hidden = !open;
  $("#chat-jump").setAttribute("aria-expanded", String(open));
  const log = $("#chat-log");
  if (open) {
    log.tabIndex = 0; // a region the keyboard scrolls (Tab to it, then the arrow keys)
    log.scrollTop = log.scrollHeight;
    const input = $("#chat-text");
    (input.closest("form").hidden ? $("[data-chat-close]") : input).focus({ preventScroll: true });
    page.chatRead = (page.state?.chat || []).length;
  } else {
    log.removeAttribute("tabindex"); // not drawn: no Tab stops at it
    $("#chat-jump").focus({ preventScroll: true });
  }
  if (page.state) render();
}

// Esc closes the open chat wherever the focus is (its box, its lines or its button).
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && page.chatOpen) {
    event.preventDefault();
    setChat(false);
  }
});

/** Copy the table's link (or select it, where the clipboard is refused). */
export async function copyInvite() {
  const url = inviteUrl();
  try {
    await navigator.clipboard.writeText(url);
    toast(t("invite.copied"));
  } catch {
    const input = $("#invite-url");
    input.focus();
    input.select();
    const ok = document.execCommand && document.execCommand("copy");
    toast(ok ? t("invite.copiedShort") : t("invite.selectIt"));
  }
}

/** Open the next table with the same rules and players (``rotate``: partners rotated). */
export async function playAgain(btn) {
  btn.disabled = true;
  const r = room();
  try {
    const made = await api("/api/rooms", {
      method: "POST",
      auth: true,
      body: { game: r.game, options: r.options, seats: r.seats, private: r.private, turn_timer: r.turn_timer || 0,
        open_bot_seats: Boolean(r.open_bot_seats), undo: r.undo || "ask", from: r.code,
        rotate_partners: btn.dataset.playAgain === "rotate" },
    });
    if (page.moving) return; // the finished table's view already took this page there (rotated partners)
    page.moving = true;
    location.href = roomUrl(made.code);
  } catch (err) {
    toast(errorText(err), "error");
    btn.disabled = false;
  }
}

