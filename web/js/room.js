// The table page /r/{code}: one socket, the room view kept current, everything drawn from it.
// Its parts, by job (web/js/room/): page.js the shared state; connection.js the socket, its
// views and reconnects; table_view.js the drawing of the table and its seats (hold.js the
// finished trick, fit.js the fit to the screen, clock.js the turn clock); controls.js your
// moves, your hand and their buttons; panels.js the bars and side panels; dialogs.js the
// result, the chat and the invite. What differs by game comes from the game's client
// descriptor (web/js/games/<name>/). This module wires the page's clicks to them.
import { $ } from "./dom.js";
import { courtesyChange, courtesyClick } from "./courtesies.js";
import { act, onCard, send, showCardWhy, stepBid, submitSelection } from "./room/controls.js";
import { copyInvite, playAgain, setChat } from "./room/dialogs.js";
import { releaseHeld } from "./room/hold.js";
import { legal, page } from "./room/page.js";
import { heldFor, render } from "./room/table_view.js";
import { connect } from "./room/connection.js";

document.addEventListener("change", (event) => {
  if (event.target.matches("[data-bot-level]")) page.botLevel = event.target.value === "strong" ? "strong" : "easy";
  else courtesyChange(event.target, send);
});

document.addEventListener("click", (event) => {
  if (page.held && event.target.closest("[data-skip-hold]")) {
    releaseHeld(); // a tap on the table clears the finished trick at once
    return;
  }
  const el = event.target.closest("button");
  if (!el || el.disabled) return;
  const d = el.dataset;
  if (courtesyClick(d, send)) return;
  if ("copyInvite" in d) copyInvite();
  else if ("chatJump" in d) setChat(!page.chatOpen);
  else if ("chatClose" in d) setChat(false);
  else if ("cardWhy" in d) showCardWhy();
  else if ("sit" in d) send({ type: "sit", seat: Number(d.sit) });
  else if ("stand" in d) send({ type: "stand" });
  else if ("back" in d) send({ type: "sit", seat: page.state.you });
  else if ("reclaim" in d) send({ type: "reclaim" });
  else if ("claim" in d) send({ type: "claim" });
  else if ("takeSeat" in d) send({ type: "take_seat", seat: Number(d.takeSeat) });
  else if ("joinNext" in d) send({ type: "join_next" });
  else if ("allow" in d) send({ type: "allow_seat", player_id: d.allow, allow: true });
  else if ("decline" in d) send({ type: "allow_seat", player_id: d.decline, allow: false });
  else if ("botNext" in d) {
    // Quick clicks before the table answers each ask for a different seat.
    const free = page.state.seats.find((s) => !s.name && !page.botAsked.has(s.seat) && !heldFor(s.seat));
    if (free) {
      page.botAsked.add(free.seat);
      send({ type: "bot", seat: free.seat, level: page.botLevel });
    }
  } else if ("botRemove" in d) send({ type: "bot", seat: Number(d.botRemove), remove: true });
  else if ("bot" in d) send({ type: "bot", seat: Number(d.bot), level: page.botLevel });
  else if ("start" in d) send({ type: "start" });
  else if ("card" in d) onCard(el);
  else if ("submit" in d) submitSelection(d.submit);
  else if ("bidStep" in d) stepBid(Number(d.bidStep));
  else if ("legal" in d) {
    const a = legal()[Number(d.legal)];
    if (a) act(a);
  } else if ("clearSelection" in d) {
    page.selection = [];
    render();
  } else if ("playAgain" in d) playAgain(el);
});

$("#chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("#chat-text");
  const text = input.value.trim();
  if (!text) return;
  send({ type: "chat", text });
  input.value = "";
});

connect();
