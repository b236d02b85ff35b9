// The table page's connection: the socket to the room (web/js/connection.js does the patches
// and reconnects), each state it sends drawn, each refusal said, the line's status shown (a
// paused table while it is down, a missing one explained), and the Join form that reopens it.
import { api, ensurePlayer, identity, matchUrl } from "../api.js";
import { RoomConnection } from "../connection.js";
import { $, fill, h, toast } from "../dom.js";
import { claimRefused } from "../claims.js";
import { errorText, t } from "../i18n.js";
import { setupRules } from "../rules.js";
import { send } from "./controls.js";
import { code, inviteUrl, page, room, view } from "./page.js";
import { renderJoin, showSignedOut } from "./panels.js";
import { followRotation, render, watchHeld } from "./table_view.js";

$("#join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const me = await ensurePlayer($("#join-name").value);
    $("#join").hidden = true;
    page.sitOnArrival = true;
    page.conn.reopen(me.token);
  } catch (err) {
    toast(errorText(err), "error");
  }
});

/** Sit in the first free seat of a waiting table, once (see ``sitOnArrival``). */
function takeASeat() {
  page.sitOnArrival = false;
  if (page.state.you !== null || room().status !== "waiting") return;
  const free = page.state.seats.find((s) => !s.name && !s.bot);
  if (free) send({ type: "sit", seat: free.seat });
}

/** The line's status in the header; a table paused while it is down, explained when gone. */
function showStatus(status, message) {
  const el = $("#conn");
  const text = t(`conn.${status}`);
  el.className = `conn conn-${status}`;
  el.textContent = text;
  showPaused(status);
  if (status === "gone") showMissing(message);
}

/** While the line is down the table is paused: greyed, a banner says so while reconnecting, and
 * nothing on it or in the hand can be clicked (a click could not reach the table anyway). */
function showPaused(status) {
  const paused = status === "reconnecting" || status === "gone";
  document.body.classList.toggle("table-paused", paused);
  for (const id of ["#table", "#dock"]) $(id).inert = paused;
  let banner = $("#paused");
  if (status === "reconnecting" && !banner) {
    banner = h("p", { id: "paused", class: "paused-banner" }, t("conn.paused"));
    $("#table").before(banner);
  }
  if (banner) banner.hidden = status !== "reconnecting";
}

/** The match a table that has finished and closed since played there, if the server names
 * one to this browser's player (an old link then opens the match record). */
async function matchPlayedHere() {
  try {
    const found = await api(`/api/rooms/${encodeURIComponent(code)}/match`, { auth: true });
    return typeof found.match_id === "string" ? found.match_id : null;
  } catch {
    return null;
  }
}

/** A table that is not there: its match record if it finished here, else why and the way back. */
async function showMissing(message) {
  if (page.missingShown) return; // the first explanation stays
  page.missingShown = true;
  const played = page.state ? null : await matchPlayedHere();
  if (played) {
    location.replace(matchUrl(played));
    return;
  }
  const box = $("#missing");
  box.hidden = false;
  fill(box, h("p", {}, message), h("a", { class: "btn btn-primary", href: "/" }, t("room.backToLobby")));
  $("#room-title").textContent = t("room.notFound");
  if (!page.state) $("#table").hidden = true;
}

/** Open the table's connection: every state it sends is drawn, every refusal said. */
export function connect() {
  $("#invite-url").value = inviteUrl();
  const me = identity.get();
  $("#join-name").value = me ? me.name : sessionStorage.getItem("felt.typedName") || ""; // typed in the lobby
  page.conn = new RoomConnection(code, {
    token: me ? me.token : null,
    onState: (next) => {
      page.state = next;
      page.pending = false;
      page.botAsked = new Set([...page.botAsked].filter((i) => next.seats[i] && !next.seats[i].name));
      render();
      watchHeld();
      followRotation();
      if (page.sitOnArrival && page.state.me) takeASeat();
    },
    onStatus: showStatus,
    onError: (frame) => {
      page.pending = false;
      page.botAsked = new Set();
      if (frame.code === "claim_refused" && page.state) {
        // Said politely beside the button, the same whatever the hands hold; nothing changed.
        $("#news-live").textContent = claimRefused(page.state);
        render();
        return;
      }
      if (frame.code === "not_found") {
        showStatus("gone", t("room.noSuch", { code }));
        return;
      }
      if (frame.code === "unauthorized" && page.conn.sync.waiting) {
        // Refused while connecting: this device's token is not known here any more. One the
        // table took before was signed out from another device: the page says so.
        const signedOut = Boolean(page.conn.token);
        identity.clear();
        page.conn.token = null;
        if (signedOut) showSignedOut();
        renderJoin();
        if (!page.state) $("#join").hidden = false;
        if (signedOut) return toast(t("devices.signedOut"), "error");
      }
      toast(errorText(frame), "error");
      if (page.state) render();
    },
  });
  page.conn.open();
  setupRules(() => page.state && { game: room().game, phase: view() && view().phase, options: room().options });
}
