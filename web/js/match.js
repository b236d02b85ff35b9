// /matches/{id}: result, score sheet, seed check, and a replay of every action with all hands shown.
import { $, h, fill } from "./dom.js";
import { api } from "./api.js";
import { renderTable } from "./table.js";
import { cardView } from "./cards.js";
import { actionText, infoItems, seatLabel } from "./games.js";
import { scoreSheet } from "./sheet.js";
import { sha256Hex } from "./sha256.js";
import { Replay } from "./replay.js";

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
let record = null;
let replay = null;
let step = 0;
let names = [];

function renderSummary(title) {
  const winners = new Set(record.winners || []);
  const players = [...record.players].sort((a, b) => a.seat - b.seat);
  const when = record.finished_at ? new Date(record.finished_at).toLocaleString() : "";
  fill($("#summary"),
    h("p", {}, `${title}, ${players.length} players${when ? `, finished ${when}` : ""}.`),
    h("table", { class: "scores" }, h("tbody", {}, players.map((p) => h("tr", { class: winners.has(p.seat) ? "leader" : null },
      h("th", { scope: "row" }, `${p.name}${p.bot ? " (bot)" : ""}`),
      h("td", {}, String(record.scores[p.seat])),
      h("td", {}, winners.has(p.seat) ? "Winner" : ""))))));
}

async function renderFair() {
  const box = $("#fair");
  const seed = record.seed == null ? null : String(record.seed);
  const parts = [
    h("p", { class: "hint" }, "The server committed to the shuffle seed before the first card by publishing its SHA-256 hash. Anyone can check the seed against it."),
    h("div", { class: "hash-label" }, "Commitment"), h("code", { class: "hash" }, record.commitment || "—"),
    h("div", { class: "hash-label" }, "Seed"), h("code", { class: "hash" }, seed ?? "—"),
  ];
  fill(box, parts);
  if (seed && record.commitment) {
    const digest = await sha256Hex(seed);
    box.appendChild(digest === record.commitment
      ? h("p", { class: "verify ok" }, "✓ Verified: SHA-256 of the seed equals the commitment.")
      : h("p", { class: "verify bad" }, `✗ SHA-256 of the seed is ${digest}, which does not match.`));
  }
}

function renderSheet() {
  const last = replay?.lastView;
  if (last && Array.isArray(last.history) && last.history.length) {
    fill($("#sheet"), scoreSheet(record.game, last.history, last.teams, names, record.scores));
    return;
  }
  const hands = (record.hands || []).filter((x) => Array.isArray(x.scores));
  fill($("#sheet"), hands.length ? scoreSheet(record.game, hands.map((x, i) => ({ ...x, hand_number: i + 1 })), null, names, record.scores)
    : h("p", { class: "hint" }, "No hand scores were recorded."));
}

function renderStep() {
  const count = replay.length;
  step = Math.max(0, Math.min(step, count - 1));
  const s = replay.entry(step);
  const v = replay.view(step);
  $("#step-label").textContent = step === 0 ? `Deal · 0 of ${count - 1}` : `Action ${step} of ${count - 1}`;
  $("#step-action").textContent = step === 0 ? "The cards are dealt." : `${seatLabel(names, s.seat)} ${actionText(record.game, s.action)}.`;
  $("#step-range").max = String(count - 1);
  $("#step-range").value = String(step);
  for (const b of document.querySelectorAll("[data-step]")) {
    const back = b.dataset.step === "first" || b.dataset.step === "prev";
    b.disabled = back ? step === 0 : step === count - 1;
  }
  fill($("#info"), infoItems(record.game, v, names).map(([label, value]) => h("span", { class: "info-item" }, h("span", { class: "info-label" }, `${label} `), value)));
  const seats = [...record.players].sort((a, b) => a.seat - b.seat).map((p) => ({ seat: p.seat, name: p.name, bot: p.bot, connected: true, player_id: p.player_id }));
  renderTable($("#table"), { game: record.game, view: v, seats, you: null, names });
  const hands = Array.isArray(v.hands) ? v.hands : [];
  const small = (list) => list.map((c) => cardView(c, { small: true }));
  const rows = hands.map((cards, seat) => {
    const kitty = Array.isArray(v.kitties) && v.kitties[seat]?.length
      ? h("span", { class: "lt-cards kitty" }, h("span", { class: "hint" }, "kitty "), small(v.kitties[seat]))
      : null;
    return h("li", { class: (v.to_act || []).includes(seat) ? "acting" : null },
      h("span", { class: "lt-name" }, seatLabel(names, seat)),
      h("span", { class: "lt-cards" }, cards.length ? small(cards) : h("span", { class: "hint" }, "no cards")),
      kitty);
  });
  fill($("#hands"),
    h("h3", {}, "Every hand"),
    h("ul", { class: "hand-list" }, rows),
    Array.isArray(v.kitty) && v.kitty.length ? h("p", { class: "lt-cards" }, h("span", { class: "hint" }, "Kitty: "), small(v.kitty)) : null,
    Array.isArray(v.discards) && v.discards.length ? h("p", { class: "lt-cards" }, h("span", { class: "hint" }, "Discards: "), small(v.discards)) : null);
}

function go(where) {
  if (!replay) return;
  const last = replay.length - 1;
  step = { first: 0, prev: step - 1, next: step + 1, last }[where] ?? step;
  renderStep();
}

document.addEventListener("click", (event) => {
  const b = event.target.closest("[data-step]");
  if (b && !b.disabled) go(b.dataset.step);
});

document.addEventListener("keydown", (event) => {
  if (event.target.closest && event.target.closest("input, textarea, select")) return;
  const where = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[event.key];
  if (where && replay) {
    event.preventDefault();
    go(where);
  }
});

$("#step-range").addEventListener("input", (event) => {
  step = Number(event.target.value);
  renderStep();
});

async function main() {
  let title = "";
  try {
    record = await api(`/api/matches/${encodeURIComponent(matchId)}`, { auth: true });
  } catch (err) {
    const box = $("#missing");
    box.hidden = false;
    fill(box, h("p", {}, err.status === 404 ? "There is no such match." : err.message), h("a", { class: "btn", href: "/history" }, "Match history"));
    fill($("#summary"), h("p", { class: "hint" }, "—"));
    return;
  }
  try {
    title = (await api("/api/games")).find((g) => g.name === record.game)?.title || record.game;
  } catch {
    title = record.game;
  }
  names = [...record.players].sort((a, b) => a.seat - b.seat).map((p) => p.name);
  $("#match-title").textContent = `${title} · match record`;
  document.title = `${title} match · Felt`;
  renderSummary(title);
  renderFair();
  try {
    replay = new Replay(await api(`/api/matches/${encodeURIComponent(matchId)}/replay`, { auth: true }));
    step = 0;
    renderStep();
  } catch (err) {
    fill($("#step-action"), `The replay is not available: ${err.message}`);
  }
  renderSheet();
}

main();
