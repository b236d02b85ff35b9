// Telling a player that a table needs them while they look elsewhere: when it becomes their
// turn, a table they sit at starts, someone asks the host for a bot's seat, or someone says
// their name in chat. The tab's title and
// icon show it until they look, a short chime plays and, once allowed, a system notification
// links back to the table. One alert per turn, none while they look at the table; each kind can
// be turned off on this device (localStorage). The deciding is pure (TableWatch, LobbyWatch,
// Alerts) so that it runs under Node's tests; the page parts come after it.
import { t } from "./i18n.js";
import { h } from "./dom.js";

export const KINDS = ["turn", "start", "request", "mention"];
export const CHANNELS = ["sound", "system"];
const SETTINGS_KEY = "felt.alerts";
const TABS_KEY = "felt.tableTabs"; // table code -> when a tab showing it last said it is open
export const TAB_FRESH_MS = 90000; // a table tab silent longer than this counts as closed

/** Every kind on every channel: what a device starts with. */
export function defaultSettings() {
  return Object.fromEntries(KINDS.map((kind) => [kind, { sound: true, system: true }]));
}

/** This device's choices, the defaults filling any gap (a stored value of another shape too). */
export function readSettings(storage) {
  const settings = defaultSettings();
  let stored = null;
  try {
    stored = JSON.parse(storage.getItem(SETTINGS_KEY) || "null");
  } catch {
    stored = null;
  }
  for (const kind of KINDS) {
    for (const channel of CHANNELS) {
      const value = stored && stored[kind] && stored[kind][channel];
      if (typeof value === "boolean") settings[kind][channel] = value;
    }
  }
  return settings;
}

export function saveSettings(storage, settings) {
  storage.setItem(SETTINGS_KEY, JSON.stringify(settings));
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whether a chat line says ``name`` as a word of its own (any case, an @ before it or not). */
export function mentions(text, name) {
  const clean = String(name || "").trim();
  if (!clean || typeof text !== "string") return false;
  return new RegExp(`(^|[^\\p{L}\\p{N}_])@?${escape(clean)}(?![\\p{L}\\p{N}_])`, "iu").test(text);
}

const requestKey = (ask) => JSON.stringify([ask.player_id, ask.seat]);
const lineKey = (line) => JSON.stringify([line.at ?? null, line.seat ?? null, line.name ?? null, line.text]);

/**
 * What one table's views call for. ``update(snap)`` takes the table as the page sees it now:
 * ``{status, seat, name, myTurn, chat, requests}`` (``seat`` null when watching; ``requests``:
 * the asks for a bot's seat the host answers, ``{player_id, name, seat}``) and answers the events
 * since the previous view: a table you sit at starting (it stands for your first turn too), your
 * turn beginning, a new ask for a bot's seat (each once), your name in a new chat line. The first
 * view tells nothing: it is what you opened the page to see.
 */
export class TableWatch {
  constructor() {
    this.status = null;
    this.myTurn = false;
    this.lines = null;
    this.turns = 0; // turns begun: each is told once
    this.requests = new Set(); // the asks pending at the previous view
    this.asks = 0; // asks seen: each is told once
  }

  update(snap) {
    const first = this.status === null;
    const lines = Array.isArray(snap.chat) ? snap.chat : [];
    const fresh = first ? [] : lines.filter((line) => !this.lines.has(lineKey(line)));
    const events = [];
    if (!first) {
      const seated = snap.seat !== null && snap.seat !== undefined;
      if (seated && this.status === "waiting" && snap.status === "playing") events.push({ kind: "start", turn: Boolean(snap.myTurn) });
      else if (snap.myTurn && !this.myTurn) events.push({ kind: "turn", n: ++this.turns });
      const said = fresh.find((line) => line.seat !== snap.seat && line.name !== snap.name && mentions(line.text, snap.name));
      if (said) events.push({ kind: "mention", who: said.name || "", text: said.text, n: lineKey(said) });
    }
    const requests = Array.isArray(snap.requests) ? snap.requests : [];
    for (const ask of requests) {
      if (!first && !this.requests.has(requestKey(ask))) events.push({ kind: "request", who: ask.name || "", seat: ask.seat, n: ++this.asks });
    }
    this.requests = new Set(requests.map(requestKey));
    this.status = snap.status;
    this.myTurn = Boolean(snap.myTurn);
    this.lines = new Set(lines.map(lineKey));
    return events;
  }
}

/**
 * What "Your tables" (GET /api/tables, polled from any Felt page) calls for: a table whose
 * ``your_turn`` has just become true, unless a tab showing that table is open (that tab tells
 * its own player). A turn seen once is not told again while it lasts.
 */
export class LobbyWatch {
  constructor() {
    this.waiting = new Set(); // codes whose turn was already told (or seen) and still lasts
    this.turns = {}; // code -> turns begun there
  }

  update(tables, openTabs = {}, now = Date.now()) {
    const events = [];
    const mine = new Set();
    for (const table of tables) {
      if (!table.your_turn) continue;
      mine.add(table.code);
      const shown = typeof openTabs[table.code] === "number" && now - openTabs[table.code] < TAB_FRESH_MS;
      if (this.waiting.has(table.code) || shown) continue;
      this.turns[table.code] = (this.turns[table.code] || 0) + 1;
      events.push({ kind: "turn", code: table.code, n: this.turns[table.code], game: table.game, url: table.url });
    }
    this.waiting = mine;
    return events;
  }
}

/**
 * Coalescing: each event (a turn, a start, a chat line: ``kind``, ``code``, ``n``) is told once,
 * and nothing while the player looks. A start not yet looked at stands for the first turn
 * (``turn: true`` when it is that turn already: it is then shown as your turn). ``decide`` answers the channels an event is told on ("title" always, until seen).
 */
export class Alerts {
  constructor(settings) {
    this.settings = settings;
    this.told = new Set(); // every event told or seen: never told again
    this.unseen = new Set(); // kinds told and not looked at yet
    this.started = new Set(); // tables whose start was told and not looked at yet
  }

  decide(event, looking) {
    const code = event.code || "";
    const key = JSON.stringify([event.kind, code, event.n ?? null]);
    if (this.told.has(key)) return [];
    this.told.add(key);
    if (looking) return [];
    if (event.kind === "turn" && this.started.delete(code)) return [];
    if (event.kind === "start" && !event.turn) this.started.add(code); // else it told the turn too
    // A start that is already your turn is told as your turn: the title says so, and either
    // kind's channels tell it.
    const kinds = event.kind === "start" && event.turn ? ["start", "turn"] : [event.kind];
    this.unseen.add(kinds[kinds.length - 1]);
    const wanted = (channel) => kinds.some((kind) => (this.settings[kind] || {})[channel]);
    return ["title", ...CHANNELS.filter(wanted)];
  }

  /** The player looked: everything told is seen. */
  seen() {
    const had = this.unseen.size > 0;
    this.unseen.clear();
    this.started.clear();
    return had;
  }

  /** The kind the title shows: the most pressing unseen one, or null. */
  showing() {
    return KINDS.find((kind) => this.unseen.has(kind)) || null;
  }
}

// ---- the page: title, icon, chime, system notification, settings -----------------------------

const ICON_DOT = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%23166534'/%3E%3Ctext x='7' y='12.5' font-size='11' text-anchor='middle' fill='white'%3E%E2%99%A0%3C/text%3E%3Ccircle cx='12' cy='4' r='4' fill='%23f59e0b' stroke='white' stroke-width='1'/%3E%3C/svg%3E";

/** Whether the player looks at this page now. */
export const looking = () => document.visibilityState === "visible" && document.hasFocus();

let audio = null;

/** Ready the chime on a first touch of the page: browsers let a page play only after one. */
function unlockSound() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context || audio) return;
  audio = new Context();
}

/** A short two-note chime, made by the Web Audio API (no sound file). */
function chime() {
  if (!audio) unlockSound();
  if (!audio) return;
  if (audio.state === "suspended") audio.resume().catch(() => {});
  const start = audio.currentTime + 0.02;
  [660, 880].forEach((frequency, i) => {
    const at = start + i * 0.13;
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start(at);
    tone.stop(at + 0.3);
  });
}

function notify(event, words, url) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  try {
    const note = new Notification(words.title, { body: words.body, tag: `felt-${event.kind}-${event.code || ""}`, lang: document.documentElement.lang });
    note.onclick = () => {
      window.focus();
      if (url && location.pathname !== url) location.href = url;
      note.close();
    };
  } catch {
    // a browser that allows notifications only from a service worker: the title still shows it
  }
}

/**
 * The page's alerts. ``words(event)`` gives ``{title, body}`` for an event, ``url(event)`` the
 * table's link. ``setTitle(text)`` replaces ``document.title`` for a page that sets its own.
 */
export function pageAlerts({ code = "", words, url }) {
  const alerts = new Alerts(readSettings(localStorage));
  const icon = document.querySelector("link[rel~='icon']");
  const plainIcon = icon ? icon.getAttribute("href") : null;
  let baseTitle = document.title;

  function show() {
    const kind = alerts.showing();
    const title = kind ? `${t(`alerts.flag.${kind}`)} · Felt` : baseTitle;
    if (document.title !== title) document.title = title;
    if (!icon || (icon.dataset.alert || null) === kind) return; // the icon is fetched on each change
    icon.setAttribute("href", kind ? ICON_DOT : plainIcon);
    if (kind) icon.dataset.alert = kind;
    else delete icon.dataset.alert;
  }

  const back = () => {
    if (looking() && alerts.seen()) show();
  };
  document.addEventListener("visibilitychange", back);
  window.addEventListener("focus", back);
  window.addEventListener("pointerdown", unlockSound, { once: true });
  window.addEventListener("keydown", unlockSound, { once: true });

  return {
    setTitle(text) {
      baseTitle = text;
      show();
    },
    tell(events) {
      alerts.settings = readSettings(localStorage);
      for (const event of events) {
        const full = { code, ...event };
        const channels = alerts.decide(full, looking());
        if (!channels.length) continue;
        if (channels.includes("sound")) chime();
        if (channels.includes("system")) notify(full, words(full), url(full));
      }
      show();
    },
  };
}

/** Open table tabs as this device's table pages last reported them (code -> ms). */
export function openTableTabs() {
  try {
    const tabs = JSON.parse(localStorage.getItem(TABS_KEY) || "{}");
    return tabs && typeof tabs === "object" ? tabs : {};
  } catch {
    return {};
  }
}

function markTab(code, open) {
  const tabs = openTableTabs();
  const now = Date.now();
  for (const [c, at] of Object.entries(tabs)) if (typeof at !== "number" || now - at > TAB_FRESH_MS) delete tabs[c];
  if (open) tabs[code] = now;
  else delete tabs[code];
  localStorage.setItem(TABS_KEY, JSON.stringify(tabs));
}

/** A table page says it is open (so other Felt pages leave its alerts to it) until it closes. */
export function announceTableTab(code) {
  markTab(code, true);
  setInterval(() => markTab(code, true), TAB_FRESH_MS / 3);
  window.addEventListener("pagehide", () => markTab(code, false));
  window.addEventListener("pageshow", () => markTab(code, true));
}

// ---- the settings: per kind, a chime and a system notification, on this device -------------

function permissionPart() {
  if (!("Notification" in window)) return h("p", { class: "hint" }, t("alerts.unsupported"));
  if (Notification.permission === "granted") return h("p", { class: "hint", "data-alerts-permission": "granted" }, t("alerts.allowed"));
  if (Notification.permission === "denied") return h("p", { class: "hint", "data-alerts-permission": "denied" }, t("alerts.denied"));
  const ask = h("button", { type: "button", class: "btn btn-small", "data-alerts-allow": "" }, t("alerts.allow"));
  ask.addEventListener("click", async () => {
    ask.disabled = true;
    try {
      await Notification.requestPermission();
    } finally {
      ask.replaceWith(permissionPart());
    }
  });
  return ask;
}

function settingsTable() {
  const settings = readSettings(localStorage);
  const head = h("tr", {}, h("th", { scope: "col" }, t("alerts.when")), CHANNELS.map((c) => h("th", { scope: "col" }, t(`alerts.channel.${c}`))));
  const rows = KINDS.map((kind) => h("tr", {}, h("th", { scope: "row" }, t(`alerts.kind.${kind}`)),
    CHANNELS.map((channel) => {
      const box = h("input", { type: "checkbox", "data-alert-kind": kind, "data-alert-channel": channel, checked: settings[kind][channel],
        "aria-label": t("alerts.boxLabel", { kind: t(`alerts.kind.${kind}`), channel: t(`alerts.channel.${channel}`) }) });
      box.addEventListener("change", () => {
        const now = readSettings(localStorage);
        now[kind][channel] = box.checked;
        saveSettings(localStorage, now);
      });
      return h("td", {}, box);
    })));
  return h("table", { class: "alerts-table" }, h("thead", {}, head), h("tbody", {}, rows));
}

const SVG = "http://www.w3.org/2000/svg";

/** A small bell (the menu's mark: on a phone it stands alone). */
function bell() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("class", "alerts-bell");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", "M8 1.5a4 4 0 0 0-4 4v3l-1.5 2.5h11L12 8.5v-3a4 4 0 0 0-4-4zM6.5 12.5a1.5 1.5 0 0 0 3 0z");
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  return svg;
}

/** The header's "Alerts" menu: what to be told and how, and the ask for system notifications
 * (only from its button, never on load). */
export function mountAlertsMenu() {
  const nav = document.querySelector(".topbar .top-actions");
  if (!nav) return;
  const menu = h("details", { class: "alerts-menu", id: "alerts-menu" },
    h("summary", { class: "btn btn-small btn-ghost", title: t("alerts.menu") }, bell(), h("span", { class: "alerts-word" }, t("alerts.menu"))),
    h("div", { class: "alerts-pop panel" }, h("p", { class: "hint" }, t("alerts.explain")), settingsTable(), permissionPart()));
  // At a table it sits beside the connection's status, where the header has room to spare
  // (the buttons' row is full on a phone); elsewhere first among the header's buttons.
  const status = document.querySelector(".topbar #conn");
  if (status) {
    menu.classList.add("alerts-menu-compact"); // the bell alone: the header's row is full
    status.after(menu);
  } else nav.prepend(menu);
}

// ---- wiring: a table page, and any page with "Your tables" -----------------------------------

/** The words of a system notification (a start that is your turn says it is your turn). */
export function alertWords(event, title) {
  if (event.kind === "start" && event.turn) return { title: t("alerts.title.turn", { title }), body: t("alerts.body.startTurn") };
  return {
    title: t(`alerts.title.${event.kind}`, { title, who: event.who || "" }),
    body: event.kind === "mention" ? event.text : t(`alerts.body.${event.kind}`, { who: event.who || "", n: (event.seat ?? 0) + 1 }),
  };
}

/** A table page's alerts: ``view(state, title)`` after each view drawn (it answers the view's
 * events, told or not); ``setTitle`` for its title. */
export function tableAlerts(code) {
  mountAlertsMenu();
  announceTableTab(code);
  const watch = new TableWatch();
  let title = "";
  const page = pageAlerts({ code, words: (event) => alertWords(event, title), url: () => `/r/${encodeURIComponent(code)}` });
  return {
    setTitle: page.setTitle,
    view(state, gameTitle) {
      title = gameTitle;
      const legal = state.game && Array.isArray(state.game.legal) ? state.game.legal : [];
      const status = state.room.status;
      const myTurn = state.you !== null && legal.length > 0 && status === "playing";
      const requests = state.is_host && status === "playing" ? state.room.seat_requests || [] : [];
      const events = watch.update({ status, seat: state.you, name: state.me ? state.me.name : null, myTurn, chat: state.chat, requests });
      page.tell(events);
      return events;
    },
  };
}

/** "Your tables" with the tables where it is your turn first (newest first within each). */
export const yourTurnFirst = (tables) => [...tables].sort((a, b) => Number(Boolean(b.your_turn)) - Number(Boolean(a.your_turn)));

/** A page with "Your tables": ``tables(list)`` after each GET /api/tables tells the turns it
 * brings and answers the list in the order to show. */
export function lobbyAlerts(titleOf) {
  mountAlertsMenu();
  const watch = new LobbyWatch();
  const page = pageAlerts({ words: (event) => alertWords(event, titleOf(event.game)), url: (event) => event.url });
  return {
    tables(list) {
      page.tell(watch.update(list, openTableTabs()));
      return yourTurnFirst(list);
    },
  };
}

export const POLL_HIDDEN_MS = 20000;

/** Ask ``load`` (true when it got an answer) every 20 s while the page is hidden (a visible
 * page polls on its own), waiting twice as long after each failure, up to 5 minutes. */
export function pollWhileHidden(load, everyMs = POLL_HIDDEN_MS) {
  let delay = everyMs;
  const step = async () => {
    const ok = document.hidden ? await load() : true;
    delay = ok ? everyMs : Math.min(delay * 2, 300000);
    setTimeout(step, delay);
  };
  setTimeout(step, everyMs);
}

/** Any other Felt page (history, a match): "Your tables" asked every 20 s whether it is the
 * player's turn somewhere, visible or hidden, backing off after failures. */
export function followYourTables(fetchTables, titleOf, everyMs = POLL_HIDDEN_MS) {
  const alerts = lobbyAlerts(titleOf);
  let delay = everyMs;
  const step = async () => {
    try {
      alerts.tables(await fetchTables());
      delay = everyMs;
    } catch {
      delay = Math.min(delay * 2, 300000);
    }
    setTimeout(step, delay);
  };
  step();
}
