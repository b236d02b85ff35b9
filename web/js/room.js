// The table page /r/{code}: one socket, the room view kept current, everything drawn from it.
import { $, h, fill, keepFocus, toast } from "./dom.js";
import { api, ensurePlayer, identity, matchUrl, roomUrl } from "./api.js";
import { RoomConnection } from "./connection.js";
import { playCards, renderTable } from "./table.js";
import { SUITS, cardBack, cardButton, cardView } from "./cards.js";
import { scoreSheet } from "./sheet.js";
import { bidText, infoItems, passLabel, promptFor, seatLabel, teamNames } from "./games.js";
import { sha256Hex } from "./sha256.js";

const code = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
let state = null;
let conn = null;
let botLevel = "easy"; // the level of the next bot the host adds: "easy" or "strong"
let selection = []; // positions in your hand chosen for a discard or a Ribs pair
let selectionKey = "";
let pending = false; // an action is on its way: wait for the next version
let wasMyTurn = false;
let chatSeen = 0;
const digests = new Map(); // seed -> sha256 hex

const room = () => state.room;
const view = () => state.game;
const legal = () => (state.game && Array.isArray(state.game.legal) ? state.game.legal : []);
const names = () => state.seats.map((s) => s.name || `Seat ${s.seat + 1}`);
const inviteUrl = () => `${location.origin}${roomUrl(code)}`;

function sameCards(a, b) {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((c, i) => c === y[i]);
}

/** How the hand is used now: "play" (click a card), "select" (choose several), or "none". */
function handMode() {
  const kinds = new Set(legal().map((a) => a.type));
  if (kinds.has("discard") || kinds.has("ribs") || kinds.has("pair")) return "select";
  if (kinds.has("play")) return "play";
  return "none";
}

function selectCount() {
  const d = legal().find((a) => a.type === "discard");
  if (d) return d.count ?? (d.cards || []).length;
  return 2;
}

// ---- rendering -------------------------------------------------------------------------

function render() {
  if (!state) return;
  const key = JSON.stringify([view()?.hand ?? null, legal().map((a) => a.type)]);
  if (key !== selectionKey) {
    selection = [];
    selectionKey = key;
  }
  keepFocus(() => {
    renderHeader();
    renderJoin();
    renderInfo();
    renderTableArea();
    renderControls();
    renderHand();
    renderResult();
    renderScores();
    renderLastTrick();
    renderSheet();
    renderFair();
    renderChat();
  });
  announceTurn();
}

function renderHeader() {
  const r = room();
  const status = { waiting: "Waiting for players", playing: "Playing", finished: "Finished" }[r.status] || r.status;
  fill($("#room-title"), r.title || r.game, h("span", { class: "room-code" }, ` · ${r.code}`),
    h("span", { class: ["pill", `pill-${r.status}`] }, status),
    r.private ? h("span", { class: "pill" }, "Private") : null);
  const mine = state.you !== null && legal().length > 0;
  document.title = `${mine ? "● Your turn · " : ""}${r.title || r.game} · Felt`;
}

function renderJoin() {
  $("#join").hidden = Boolean(identity.get());
}

function renderInfo() {
  const items = infoItems(room().game, view(), names());
  $("#info").hidden = items.length === 0;
  fill($("#info"), items.map(([label, value]) => h("span", { class: "info-item" }, h("span", { class: "info-label" }, `${label} `), value)));
}

function seatExtras(s) {
  if (room().status !== "waiting") return null;
  const out = [];
  if (!s.name && state.me && state.you === null) {
    out.push(h("button", { type: "button", class: "btn btn-small btn-primary", "data-sit": s.seat, "data-key": `sit-${s.seat}` }, "Sit here"));
  }
  if (!s.name && state.is_host) {
    out.push(h("button", { type: "button", class: "btn btn-small", "data-bot": s.seat, "data-key": `bot-${s.seat}` }, "Add bot"));
  }
  if (s.bot && state.is_host) {
    out.push(h("button", { type: "button", class: "btn btn-small btn-ghost", "data-bot-remove": s.seat, "data-key": `unbot-${s.seat}`, "aria-label": `Remove the bot from seat ${s.seat + 1}` }, "Remove bot"));
  }
  return out.length ? h("div", { class: "seat-actions" }, out) : null;
}

function renderTableArea() {
  const r = room();
  let center = null;
  if (r.status === "waiting") {
    const taken = state.seats.filter((s) => s.name).length;
    center = [h("div", { class: "felt-wait" }, `${taken} of ${state.seats.length} seated`),
      h("div", { class: "felt-hint" }, taken < state.seats.length ? "Invite friends or add bots" : "Ready to start")];
  }
  renderTable($("#table"), {
    game: r.game,
    view: view(),
    seats: state.seats,
    you: state.you,
    hostId: r.host,
    names: names(),
    seatExtras,
    center,
  });
}

function button(label, attrs) {
  return h("button", { type: "button", class: "btn", "data-control": "", disabled: pending, ...attrs }, label);
}

function renderControls() {
  const r = room();
  const box = $("#controls");
  if (r.status === "waiting") {
    const parts = [];
    const empty = state.seats.filter((s) => !s.name).length;
    if (!state.me) parts.push(h("p", {}, "You are watching. Give your name above to take a seat."));
    else if (state.you === null) parts.push(h("p", {}, empty ? "Choose a seat at the table: press “Sit here”." : "Every seat is taken: you are watching."));
    else parts.push(h("p", {}, `You sit at seat ${state.you + 1}. `), h("div", { class: "row" }, h("button", { type: "button", class: "btn btn-ghost", "data-stand": "", "data-key": "stand" }, "Stand up")));
    if (state.is_host) {
      parts.push(h("div", { class: "row" },
        h("label", { class: "bot-level" }, "Bot level ",
          h("select", { "data-bot-level": "", "data-key": "bot-level" },
            h("option", { value: "easy", selected: botLevel === "easy" }, "Easy"),
            h("option", { value: "strong", selected: botLevel === "strong" }, "Strong"))),
        h("button", { type: "button", class: "btn", "data-bot-next": "", "data-key": "bot-next", disabled: empty === 0 }, "Add bot"),
        h("button", { type: "button", class: "btn btn-primary", "data-start": "", "data-key": "start", disabled: empty > 0 }, "Start"),
        empty > 0 ? h("span", { class: "hint" }, `Fill ${empty} more seat${empty === 1 ? "" : "s"} to start.`) : null));
    } else {
      parts.push(h("p", { class: "hint" }, `Waiting for ${r.host_name || "the host"} to start the game.`));
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
  if (state.you === null) {
    fill(box, h("p", { class: "hint" }, "You are watching this game."), waitingLine(v));
    return;
  }
  if (moves.length === 0) {
    fill(box, waitingLine(v));
    return;
  }
  const game = r.game;
  const out = [h("div", { class: "turn-banner" }, "Your turn"), h("p", { class: "prompt" }, promptFor(game, v, moves))];
  if (game === "oh_hell" && v.forbidden_bid != null && moves.some((a) => a.type === "bid")) {
    out.push(h("p", { class: "hint" }, `Hook rule: as dealer you may not bid ${v.forbidden_bid}.`));
  }
  const row = [];
  moves.forEach((a, i) => {
    if (a.type === "bid") row.push(button(bidText(game, a.value), { class: "btn btn-bid", "data-bid": a.value, "data-legal": i, "data-key": `bid-${a.value}` }));
  });
  moves.forEach((a, i) => {
    if (a.type === "trump" && SUITS[a.suit]) {
      row.push(button([h("span", { class: `suit-${a.suit}`, "aria-hidden": "true" }, SUITS[a.suit].symbol), ` ${SUITS[a.suit].name[0].toUpperCase()}${SUITS[a.suit].name.slice(1)}`],
        { class: "btn btn-suit", "data-suit": a.suit, "data-legal": i, "data-key": `trump-${a.suit}` }));
    }
  });
  moves.forEach((a, i) => {
    if (a.type === "take") row.push(button("Take the contract", { class: "btn btn-primary", "data-act": "take", "data-legal": i, "data-key": "take" }));
    if (a.type === "declare") row.push(button("Declare runs", { class: "btn btn-primary", "data-act": "declare", "data-legal": i, "data-key": "declare" }));
  });
  moves.forEach((a, i) => {
    if (a.type === "pass") row.push(button(passLabel(v, moves), { "data-act": "pass", "data-legal": i, "data-key": "pass" }));
  });
  if (handMode() === "select") {
    const hand = v.hand || [];
    const chosen = selection.map((i) => hand[i]);
    const need = selectCount();
    const kinds = new Set(moves.map((a) => a.type));
    if (kinds.has("discard")) {
      row.push(button(`Discard (${chosen.length}/${need})`, { class: "btn btn-primary", "data-submit": "discard", "data-key": "submit-discard", disabled: pending || chosen.length !== need }));
    }
    if (kinds.has("ribs")) {
      row.push(button(`Lay the Ribs (${chosen.length}/2)`, { class: "btn btn-primary", "data-submit": "ribs", "data-key": "submit-ribs", disabled: pending || !findSelected("ribs", chosen) }));
    }
    if (kinds.has("pair")) {
      row.push(button(`Play face up (${chosen.length}/2)`, { class: "btn btn-primary", "data-submit": "pair", "data-key": "submit-pair", disabled: pending || !findSelected("pair", chosen, false) }));
      if (moves.some((a) => a.type === "pair" && a.fold)) {
        row.push(button("Fold (face down)", { "data-submit": "fold", "data-key": "submit-fold", disabled: pending || !findSelected("pair", chosen, true) }));
      }
    }
    if (selection.length) row.push(h("button", { type: "button", class: "btn btn-ghost", "data-clear-selection": "", "data-key": "clear" }, "Clear"));
  }
  if (row.length) out.push(h("div", { class: "row actions" }, row));
  fill(box, out);
}

function waitingLine(v) {
  const who = (v.to_act || []).map((s) => seatLabel(names(), s));
  return h("p", { class: "waiting" }, who.length ? `Waiting for ${who.join(", ")}…` : "");
}

/** The legal action of ``type`` that the chosen cards make (null if none). */
function findSelected(type, chosen, fold) {
  if (chosen.length !== 2) return null;
  for (const a of legal()) {
    if (a.type !== type) continue;
    if (fold !== undefined && Boolean(a.fold) !== fold) continue;
    if (!Array.isArray(a.cards)) return { type, cards: chosen, ...(fold !== undefined ? { fold } : {}) };
    if (sameCards(a.cards, chosen)) return a;
  }
  return null;
}

function renderHand() {
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
  const selectable = selectableRanks();
  const kitty = new Set(Array.isArray(v.kitty) ? v.kitty : []);
  const cards = v.hand.map((c, i) => {
    let disabled = true;
    let pressed = null;
    if (mode === "play") disabled = pending || !playable.has(c);
    else if (mode === "select") {
      pressed = selection.includes(i);
      disabled = pending || (selectable !== null && !selectable.has(c) && !pressed);
    }
    const btn = cardButton(c, i, { disabled, pressed });
    if (kitty.has(c)) btn.classList.add("from-kitty");
    return btn;
  });
  const parts = [h("h2", { class: "sr-only" }, "Your hand"), h("div", { class: ["hand-cards", mode !== "none" && "hand-live"] }, cards)];
  if (v.hand.length === 0) parts.push(h("p", { class: "hint" }, "No cards in hand."));
  if (kitty.size) parts.push(h("p", { class: "hint" }, "Cards marked ★ came from the kitty."));
  const faceDown = (Array.isArray(v.my_face_down) ? v.my_face_down : []).filter((f) => f.trick_number === v.trick_number);
  for (const f of faceDown) {
    parts.push(h("div", { class: "discards" }, h("span", { class: "hint" }, f.fold ? "You folded, face down: " : "Your Ribs, face down: "),
      (f.cards || []).map((c) => cardView(c, { small: true }))));
  }
  if (Array.isArray(v.discards) && v.discards.length) {
    parts.push(h("div", { class: "discards" }, h("span", { class: "hint" }, "Your discards: "), v.discards.map((c) => cardView(c, { small: true }))));
  }
  if (Array.isArray(v.kitty_count) && state.you !== null && v.kitty_count[state.you]) {
    const k = v.kitty_count[state.you];
    parts.push(h("div", { class: "discards" }, h("span", { class: "hint" }, "Your kitty (face down until trump is named): "),
      Array.from({ length: k }, () => cardBack({ small: true }))));
  }
  fill(box, parts);
}

/** Cards that appear in some legal multi-card action, or null when any card may be chosen. */
function selectableRanks() {
  const lists = legal().filter((a) => a.type === "ribs" || a.type === "pair");
  if (!lists.length || lists.some((a) => !Array.isArray(a.cards))) return null;
  return new Set(lists.flatMap((a) => a.cards));
}

function renderResult() {
  const box = $("#result");
  const r = room();
  const res = state.result;
  if (r.status !== "finished" || !res) {
    fill(box);
    return;
  }
  const nm = names();
  const winners = (res.winners || []).map((s) => seatLabel(nm, s));
  const iWon = state.you !== null && (res.winners || []).includes(state.you);
  const parts = [
    h("h2", {}, iWon ? "You won!" : "Game over"),
    h("p", { class: "result-winners" }, winners.length > 1 ? `Winners: ${winners.join(", ")}` : `Winner: ${winners[0] || "—"}`),
    h("ol", { class: "result-scores" }, (res.scores || []).map((score, s) => ({ s, score }))
      .sort((a, b) => b.score - a.score)
      .map(({ s, score }) => h("li", { class: (res.winners || []).includes(s) ? "winner" : null }, `${seatLabel(nm, s)}: ${score}`))),
  ];
  const row = [];
  if (r.next) {
    row.push(h("a", { class: "btn btn-primary", href: roomUrl(r.next), "data-key": "next-room" }, "Join the next game"));
  } else if (state.me && state.you !== null) {
    row.push(h("button", { type: "button", class: "btn btn-primary", "data-play-again": "", "data-key": "again" }, "Play again"));
  }
  if (res.match_id) row.push(h("a", { class: "btn", href: matchUrl(res.match_id), "data-key": "record" }, "Match record & replay"));
  else parts.push(h("p", { class: "hint" }, "The match record is being saved…"));
  row.push(h("a", { class: "btn btn-ghost", href: "/" }, "Lobby"));
  parts.push(h("div", { class: "row" }, row));
  fill(box, h("div", { class: "panel result-panel" }, parts));
}

function renderScores() {
  const v = view();
  const box = $("#scores");
  if (!v || !Array.isArray(v.scores)) {
    fill(box, h("p", { class: "hint" }, "The match has not started."));
    return;
  }
  const nm = names();
  const rows = v.teams
    ? teamNames(v, nm).map((label, t) => ({ label, score: v.scores[v.teams[t][0]], you: v.teams[t].includes(state.you) }))
    : v.scores.map((score, s) => ({ label: seatLabel(nm, s), score, you: s === state.you }));
  const best = Math.max(...rows.map((r) => r.score));
  fill(box, h("table", { class: "scores" },
    h("tbody", {}, rows.map((r) => h("tr", { class: [r.you && "you", r.score === best && "leader"] },
      h("th", { scope: "row" }, r.label), h("td", {}, String(r.score)))))),
  v.target ? h("p", { class: "hint" }, `First to ${v.target} wins.`) : null);
}

function renderLastTrick() {
  const v = view();
  const box = $("#last-trick");
  const last = v && v.last_trick;
  const plays = last && (Array.isArray(last.cards) ? last.cards : Array.isArray(last.plays) ? last.plays : Array.isArray(last) ? last : null);
  if (!plays || plays.length === 0) {
    fill(box, h("p", { class: "hint" }, "None yet."));
    return;
  }
  const nm = names();
  const ribs = last.ribs ? h("li", {}, h("span", { class: "lt-name" }, "Ribs"), h("span", { class: "lt-cards" }, playCards({ cards: last.ribs }, { small: true }))) : null;
  fill(box, h("ul", { class: "last-trick" }, ribs,
    plays.map((p) => h("li", { class: p.seat === last.winner ? "winner" : null },
      h("span", { class: "lt-name" }, seatLabel(nm, p.seat)),
      h("span", { class: "lt-cards" }, playCards(p, { small: true })),
      p.result || p.outcome ? h("span", { class: "hint" }, String(p.result || p.outcome)) : null))),
  last.winner != null ? h("p", { class: "hint" }, `Won by ${seatLabel(nm, last.winner)}`) : null,
  last.summary ? h("p", { class: "hint" }, String(last.summary)) : null);
}

function renderSheet() {
  const v = view();
  const box = $("#sheet");
  if (!v || !Array.isArray(v.history) || v.history.length === 0) {
    fill(box, h("p", { class: "hint" }, "No hand finished yet."));
    return;
  }
  fill(box, scoreSheet(room().game, v.history, v.teams, names(), v.scores));
}

function renderFair() {
  const r = room();
  const box = $("#fair");
  if (!r.commitment) {
    fill(box, h("p", { class: "hint" }, "The seed commitment appears when the match starts."));
    return;
  }
  const parts = [h("p", { class: "hint" }, "Before the first card the server commits to its shuffle seed with this SHA-256 hash. The seed is revealed at the end, so anyone can check it."),
    h("div", { class: "hash-label" }, "Commitment"), h("code", { class: "hash" }, r.commitment)];
  if (r.seed) {
    parts.push(h("div", { class: "hash-label" }, "Seed"), h("code", { class: "hash" }, r.seed));
    const digest = digests.get(r.seed);
    if (digest === undefined) {
      digests.set(r.seed, null);
      sha256Hex(r.seed).then((hex) => { digests.set(r.seed, hex); render(); });
    } else if (digest) {
      parts.push(digest === r.commitment
        ? h("p", { class: "verify ok" }, "✓ SHA-256 of the seed equals the commitment.")
        : h("p", { class: "verify bad" }, "✗ The seed does not match the commitment."));
    }
  }
  fill(box, parts);
}

function renderChat() {
  const lines = state.chat || [];
  const log = $("#chat-log");
  const nm = names();
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 30;
  fill(log, lines.map((line) => h("li", {},
    h("span", { class: "chat-name" }, line.name || (line.seat != null ? seatLabel(nm, line.seat) : "Watcher")),
    h("span", { class: "chat-text" }, line.text))));
  if (lines.length !== chatSeen && (atBottom || chatSeen === 0)) log.scrollTop = log.scrollHeight;
  chatSeen = lines.length;
  $("#chat-form").hidden = !state.me;
}

function announceTurn() {
  const mine = state.you !== null && legal().length > 0 && room().status === "playing";
  if (mine && !wasMyTurn) {
    const live = $("#announce");
    live.textContent = "";
    setTimeout(() => { live.textContent = `Your turn. ${promptFor(room().game, view(), legal())}`; }, 50);
  } else if (room().status === "finished" && wasMyTurn !== "over") {
    $("#announce").textContent = "Game over.";
  }
  wasMyTurn = room().status === "finished" ? "over" : mine;
}

// ---- actions -----------------------------------------------------------------------------

function act(action) {
  if (pending || !conn) return;
  if (conn.act(action)) {
    pending = true;
    render();
  } else {
    toast("Not connected: your move was not sent.", "error");
  }
}

function send(frame) {
  if (!conn || !conn.send(frame)) toast("Not connected: try again in a moment.", "error");
}

function onCard(btn) {
  const index = Number(btn.dataset.index);
  const mode = handMode();
  if (mode === "play") {
    const a = legal().find((x) => x.type === "play" && x.card === btn.dataset.card);
    if (a) act(a);
  } else if (mode === "select") {
    const at = selection.indexOf(index);
    if (at >= 0) selection.splice(at, 1);
    else if (selection.length < selectCount()) selection.push(index);
    else toast(`Choose ${selectCount()} cards: unselect one first.`);
    render();
  }
}

function submitSelection(kind) {
  const hand = view().hand || [];
  const chosen = selection.map((i) => hand[i]);
  if (kind === "discard") act({ type: "discard", cards: chosen });
  else if (kind === "ribs") {
    const a = findSelected("ribs", chosen);
    if (a) act(a);
  } else {
    const a = findSelected("pair", chosen, kind === "fold");
    if (a) act({ ...a, fold: kind === "fold" });
  }
}

async function copyInvite() {
  const url = inviteUrl();
  try {
    await navigator.clipboard.writeText(url);
    toast("Invite link copied. Send it to your friends.");
  } catch {
    const input = $("#invite-url");
    input.focus();
    input.select();
    const ok = document.execCommand && document.execCommand("copy");
    toast(ok ? "Invite link copied." : "Select the link and copy it.");
  }
}

async function playAgain(btn) {
  btn.disabled = true;
  const r = room();
  try {
    const made = await api("/api/rooms", {
      method: "POST",
      auth: true,
      body: { game: r.game, options: r.options, seats: r.seats, private: r.private, from: r.code },
    });
    location.href = roomUrl(made.code);
  } catch (err) {
    toast(err.message, "error");
    btn.disabled = false;
  }
}

document.addEventListener("change", (event) => {
  if (event.target.matches("[data-bot-level]")) botLevel = event.target.value === "strong" ? "strong" : "easy";
});

document.addEventListener("click", (event) => {
  const el = event.target.closest("button");
  if (!el || el.disabled) return;
  const d = el.dataset;
  if ("copyInvite" in d) copyInvite();
  else if ("sit" in d) send({ type: "sit", seat: Number(d.sit) });
  else if ("stand" in d) send({ type: "stand" });
  else if ("botNext" in d) {
    const free = state.seats.find((s) => !s.name);
    if (free) send({ type: "bot", seat: free.seat, level: botLevel });
  } else if ("botRemove" in d) send({ type: "bot", seat: Number(d.botRemove), remove: true });
  else if ("bot" in d) send({ type: "bot", seat: Number(d.bot), level: botLevel });
  else if ("start" in d) send({ type: "start" });
  else if ("card" in d) onCard(el);
  else if ("submit" in d) submitSelection(d.submit);
  else if ("legal" in d) {
    const a = legal()[Number(d.legal)];
    if (a) act(a);
  } else if ("clearSelection" in d) {
    selection = [];
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

$("#join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const me = await ensurePlayer($("#join-name").value);
    $("#join").hidden = true;
    conn.reopen(me.token);
  } catch (err) {
    toast(err.message, "error");
  }
});

// ---- connection ----------------------------------------------------------------------------

function showStatus(status, message) {
  const el = $("#conn");
  const text = { connecting: "Connecting…", connected: "Connected", reconnecting: "Reconnecting…", gone: "Closed" }[status] || status;
  el.className = `conn conn-${status}`;
  el.textContent = text;
  if (status === "gone") showMissing(message);
}

function showMissing(message) {
  const box = $("#missing");
  if (!box.hidden) return; // the first explanation stays
  box.hidden = false;
  fill(box, h("p", {}, message), h("a", { class: "btn btn-primary", href: "/" }, "Back to the lobby"));
  $("#room-title").textContent = "Room not found";
  if (!state) $("#table").hidden = true;
}

async function main() {
  $("#invite-url").value = inviteUrl();
  const me = identity.get();
  if (me) $("#join-name").value = me.name;
  conn = new RoomConnection(code, {
    token: me ? me.token : null,
    onState: (next) => {
      state = next;
      pending = false;
      render();
    },
    onStatus: showStatus,
    onError: (frame) => {
      pending = false;
      if (frame.code === "not_found") {
        showStatus("gone", `There is no room “${code}”. It may have closed.`);
        return;
      }
      if (frame.code === "unauthorized" && conn.sync.waiting) {
        // Refused while connecting: this browser's player token is not known here (any more).
        identity.clear();
        conn.token = null;
        renderJoin();
        if (!state) $("#join").hidden = false;
      }
      toast(frame.message || "That was refused.", "error");
      if (state) render();
    },
  });
  conn.open();
}

main();
