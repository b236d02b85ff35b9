// Telling a player that a table needs them (web/js/attention.js): which views call for an alert,
// coalesced to one per turn and none while the player looks, and the settings of a device.
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.localStorage = { getItem: () => null, setItem() {} };
globalThis.navigator = { language: "en" };
const { Alerts, LobbyWatch, TableWatch, alertWords, defaultSettings, mentions, readSettings, saveSettings, yourTurnFirst, TAB_FRESH_MS } =
  await import("../../web/js/attention.js");

const view = (over = {}) => ({ status: "playing", seat: 0, name: "Ana", myTurn: false, chat: [], ...over });
const kinds = (events) => events.map((e) => e.kind);
const line = (name, seat, text, at) => ({ name, seat, text, at: at || `2026-12-03T20:00:0${seat}Z` });

test("the first view tells nothing: it is what the page was opened to see", () => {
  const watch = new TableWatch();
  assert.deepEqual(watch.update(view({ myTurn: true, chat: [line("Ben", 1, "Ana?")] })), []);
});

test("a turn is told once, when it begins, and the next one again", () => {
  const watch = new TableWatch();
  watch.update(view());
  assert.deepEqual(watch.update(view({ myTurn: true })), [{ kind: "turn", n: 1 }]);
  assert.deepEqual(watch.update(view({ myTurn: true })), []); // a chat line came, still your turn
  assert.deepEqual(watch.update(view({ myTurn: false })), []);
  assert.deepEqual(watch.update(view({ myTurn: true })), [{ kind: "turn", n: 2 }]);
});

test("a table you sit at starting is one event, standing for the first turn too", () => {
  const watch = new TableWatch();
  watch.update(view({ status: "waiting" }));
  assert.deepEqual(watch.update(view({ myTurn: true })), [{ kind: "start", turn: true }]);
  const later = new TableWatch();
  later.update(view({ status: "waiting" }));
  assert.deepEqual(later.update(view()), [{ kind: "start", turn: false }], "bots play first");
  assert.deepEqual(later.update(view({ myTurn: true })), [{ kind: "turn", n: 1 }]);
  const watcher = new TableWatch();
  watcher.update(view({ status: "waiting", seat: null }));
  assert.deepEqual(watcher.update(view({ seat: null })), [], "a spectator is not told a start");
});

test("your name in a new chat line is told; your own lines, old lines and other words are not", () => {
  const watch = new TableWatch();
  const old = line("Ben", 1, "hi Ana", "2026-12-03T19:00:00Z");
  watch.update(view({ chat: [old] }));
  assert.deepEqual(watch.update(view({ chat: [old, line("Ana", 0, "Ana here")] })), []);
  assert.deepEqual(watch.update(view({ chat: [old, line("Cid", 2, "Banana split")] })), []);
  const events = watch.update(view({ chat: [old, line("Cid", 2, "your lead, @ana!", "2026-12-03T20:01:00Z")] }));
  assert.deepEqual(events.map(({ n, ...e }) => e), [{ kind: "mention", who: "Cid", text: "your lead, @ana!" }]);
});

test("a name is found as a word of its own, in any case and any script", () => {
  assert.ok(mentions("go Ana", "Ana"));
  assert.ok(mentions("ANA, play", "Ana"));
  assert.ok(mentions("vai, João!", "joão"));
  assert.ok(mentions("ok (Mr. X)", "Mr. X"));
  assert.ok(!mentions("Anabel plays", "Ana"));
  assert.ok(!mentions("banana", "Ana"));
  assert.ok(!mentions("João", "Jo"));
  assert.ok(!mentions("anything", ""));
});

test("each turn is told once, none while looking, and the title stays until the player looks", () => {
  const alerts = new Alerts(defaultSettings());
  const all = ["title", "sound", "system"];
  assert.deepEqual(alerts.decide({ kind: "turn", code: "A", n: 1 }, true), [], "looking: nothing");
  assert.deepEqual(alerts.decide({ kind: "turn", code: "A", n: 1 }, false), [], "a turn seen is not told later");
  assert.deepEqual(alerts.decide({ kind: "turn", code: "A", n: 2 }, false), all);
  assert.deepEqual(alerts.decide({ kind: "turn", code: "A", n: 2 }, false), [], "the same turn again: once");
  assert.deepEqual(alerts.decide({ kind: "turn", code: "B", n: 2 }, false), all, "another table's turn");
  assert.equal(alerts.showing(), "turn");
  assert.equal(alerts.seen(), true);
  assert.equal(alerts.showing(), null);
  assert.equal(alerts.seen(), false, "nothing left to clear");
  assert.deepEqual(alerts.decide({ kind: "turn", code: "A", n: 3 }, false), all, "looked, then a new turn");
  assert.deepEqual(alerts.decide({ kind: "start", code: "C", turn: true }, false), all);
  assert.deepEqual(alerts.decide({ kind: "turn", code: "C", n: 1 }, false), all, "a start that was your turn covers no later turn");
});

test("an unseen start covers the first turn after it; a mention still comes through", () => {
  const alerts = new Alerts(defaultSettings());
  assert.equal(alerts.decide({ kind: "start", code: "A", turn: false }, false).length, 3);
  assert.deepEqual(alerts.decide({ kind: "turn", code: "A", n: 1 }, false), []);
  assert.equal(alerts.decide({ kind: "turn", code: "A", n: 2 }, false).length, 3, "the next turn is a turn");
  assert.equal(alerts.decide({ kind: "mention", code: "A", n: "x" }, false).length, 3);
  assert.equal(alerts.showing(), "turn", "the title shows the most pressing kind: turn, start, mention");
  alerts.seen();
  alerts.decide({ kind: "start", code: "B", turn: false }, false);
  alerts.seen();
  assert.equal(alerts.decide({ kind: "turn", code: "B", n: 1 }, false).length, 3, "a start looked at covers nothing");
});

test("a kind turned off on a channel is not told there; the title still shows it", () => {
  const settings = defaultSettings();
  settings.mention.sound = false;
  settings.turn.system = false;
  const alerts = new Alerts(settings);
  assert.deepEqual(alerts.decide({ kind: "mention", code: "A", n: "x" }, false), ["title", "system"]);
  assert.deepEqual(alerts.decide({ kind: "turn", code: "A", n: 1 }, false), ["title", "sound"]);
});

test("settings are kept per device; a damaged or partial store falls back to the defaults", () => {
  const store = new Map();
  const storage = { getItem: (k) => (store.has(k) ? store.get(k) : null), setItem: (k, v) => store.set(k, v) };
  assert.deepEqual(readSettings(storage), defaultSettings());
  const settings = defaultSettings();
  settings.start.sound = false;
  saveSettings(storage, settings);
  assert.equal(readSettings(storage).start.sound, false);
  assert.equal(readSettings(storage).turn.sound, true);
  store.set("felt.alerts", "{not json");
  assert.deepEqual(readSettings(storage), defaultSettings());
  store.set("felt.alerts", JSON.stringify({ turn: { sound: "no", system: false } }));
  assert.deepEqual(readSettings(storage).turn, { sound: true, system: false });
});

test("the lobby tells a turn once while it lasts, and leaves a table with its own open tab to it", () => {
  const watch = new LobbyWatch();
  const now = 1_000_000;
  const tables = (a, b) => [{ code: "A", game: "ribs", url: "/r/A", your_turn: a }, { code: "B", game: "oh_hell", url: "/r/B", your_turn: b }];
  assert.deepEqual(watch.update(tables(false, false), {}, now), []);
  assert.deepEqual(watch.update(tables(true, false), {}, now), [{ kind: "turn", code: "A", n: 1, game: "ribs", url: "/r/A" }]);
  assert.deepEqual(watch.update(tables(true, false), {}, now), [], "the same turn, polled again");
  assert.deepEqual(watch.update(tables(false, true), { B: now - 1000 }, now), [], "B's own tab tells it");
  assert.deepEqual(watch.update(tables(false, false), {}, now), []);
  assert.deepEqual(kinds(watch.update(tables(false, true), { B: now - TAB_FRESH_MS - 1 }, now)), ["turn"], "a tab long silent is closed");
  assert.deepEqual(watch.update(tables(true, true), {}, now).map((e) => [e.code, e.n]), [["A", 2]], "A's next turn");
});

test("Your tables lists first the tables where it is your turn, newest first within each", () => {
  const rows = [{ code: "1" }, { code: "2", your_turn: true }, { code: "3" }, { code: "4", your_turn: true }];
  assert.deepEqual(yourTurnFirst(rows).map((r) => r.code), ["2", "4", "1", "3"]);
});

test("a hidden page asks for its tables every 20 s, twice as long after each failure, up to 5 minutes", async () => {
  const { pollWhileHidden, POLL_HIDDEN_MS } = await import("../../web/js/attention.js");
  const waits = [];
  let next = null;
  const realTimeout = globalThis.setTimeout;
  globalThis.setTimeout = (fn, ms) => { waits.push(ms); next = fn; };
  globalThis.document = { hidden: true };
  const answers = [false, false, false, false, false, false, true];
  let asked = 0;
  try {
    pollWhileHidden(async () => answers[asked++]);
    for (let i = 0; i < answers.length; i++) await next();
    globalThis.document.hidden = false; // a visible page polls on its own: not asked here
    await next();
  } finally {
    globalThis.setTimeout = realTimeout;
  }
  assert.equal(POLL_HIDDEN_MS, 20000);
  assert.equal(asked, answers.length);
  assert.deepEqual(waits, [20000, 40000, 80000, 160000, 300000, 300000, 300000, 20000, 20000]);
});

test("each ask for a bot's seat is told to the host once; an ask made again is a new one", () => {
  const watch = new TableWatch();
  const bea = { player_id: "b", name: "Bea", seat: 2 };
  assert.deepEqual(watch.update(view()), []);
  const asked = watch.update(view({ requests: [bea] }));
  assert.deepEqual(asked.map((e) => [e.kind, e.who, e.seat]), [["request", "Bea", 2]]);
  assert.deepEqual(watch.update(view({ requests: [bea] })), [], "a pending ask is told once");
  assert.deepEqual(watch.update(view({ requests: [] })), []);
  const again = watch.update(view({ requests: [bea] }));
  assert.deepEqual(kinds(again), ["request"]);
  assert.notEqual(again[0].n, asked[0].n, "asked again after an answer: told again");
  const alerts = new Alerts(defaultSettings());
  assert.equal(alerts.decide({ code: "A", ...asked[0] }, false).length, 3);
  assert.deepEqual(alerts.decide({ code: "A", ...asked[0] }, false), [], "once per ask");
  assert.equal(alerts.showing(), "request");
});

test("the seat request's setting is kept per device like the others", () => {
  const settings = defaultSettings();
  settings.request.sound = false;
  const alerts = new Alerts(settings);
  assert.deepEqual(alerts.decide({ kind: "request", code: "A", n: 1 }, false), ["title", "system"]);
});

test("a table that starts on your turn says it is your turn, not only that it started", () => {
  const alerts = new Alerts(defaultSettings());
  alerts.decide({ kind: "start", code: "A", turn: true }, false);
  assert.equal(alerts.showing(), "turn");
  assert.deepEqual(alertWords({ kind: "start", code: "A", turn: true }, "Oh Hell"),
    { title: "Your turn at Oh Hell", body: "The cards are dealt and the table waits for you." });
  const other = new Alerts(defaultSettings());
  other.decide({ kind: "start", code: "B", turn: false }, false);
  assert.equal(other.showing(), "start", "bots play first: the table started");
  assert.deepEqual(alertWords({ kind: "start", code: "B", turn: false }, "Oh Hell"),
    { title: "Your Oh Hell table started", body: "The cards are dealt." });
});

test("a start on your turn is told on the channels of starts or of turns", () => {
  const settings = defaultSettings();
  settings.start = { sound: false, system: false };
  assert.deepEqual(new Alerts(settings).decide({ kind: "start", code: "A", turn: true }, false), ["title", "sound", "system"]);
  settings.turn = { sound: false, system: true };
  assert.deepEqual(new Alerts(settings).decide({ kind: "start", code: "A", turn: true }, false), ["title", "system"]);
  assert.deepEqual(new Alerts(settings).decide({ kind: "start", code: "A", turn: false }, false), ["title"]);
});
