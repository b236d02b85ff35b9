// Felt's service worker (web/sw.js) run in a worker's global scope made of plain objects: what a
// push shows, and where a click on its notification goes (a tab already at that table is
// focused, else the table opens; never a page of another site).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import vm from "node:vm";

const SOURCE = await readFile(new URL("../../web/sw.js", import.meta.url), "utf8");
const ORIGIN = "https://felt.example";

/** The worker, loaded into a scope whose tabs are ``tabs``; it records what it did. */
function worker(tabs = []) {
  const listeners = {};
  const did = { shown: [], opened: [], focused: [] };
  const self = {
    location: new URL(`${ORIGIN}/sw.js`),
    addEventListener: (type, fn) => { listeners[type] = fn; },
    skipWaiting() {},
    clients: {
      claim: async () => {},
      matchAll: async (options) => {
        assert.deepEqual({ ...options }, { type: "window", includeUncontrolled: true });
        return tabs.map((tab) => ({ ...tab, focus: async () => { did.focused.push(tab.url); return tab; } }));
      },
      openWindow: async (url) => { did.opened.push(url); return { url }; },
    },
    registration: {
      // The options are an object of the worker's realm: kept as plain data to compare.
      showNotification: async (title, options) => { did.shown.push(JSON.parse(JSON.stringify({ title, ...options }))); },
    },
  };
  vm.runInContext(SOURCE, vm.createContext({ self, URL }));
  /** Fires ``type`` with ``fields`` and waits for what it handed to waitUntil. */
  async function fire(type, fields) {
    let work = null;
    listeners[type]({ ...fields, waitUntil: (promise) => { work = promise; } });
    assert.ok(work, `${type} hands its work to waitUntil`);
    await work;
  }
  return { did, fire };
}

function pushed(data) {
  const text = typeof data === "string" ? data : JSON.stringify(data);
  return { data: { json: () => JSON.parse(text) } };
}

function clicked(data) {
  const note = { data, closed: false, close() { note.closed = true; } };
  return { notification: note };
}

const TURN = { title: "Your turn at Ann's Oh Hell table", body: "The table waits for you.", url: "/r/ABCD", kind: "turn", tag: "felt-turn-ABCD" };

test("a push shows its title and body, tagged one per table, linking to the table", async () => {
  const { did, fire } = worker();
  await fire("push", pushed(TURN));
  assert.deepEqual(did.shown, [{
    title: TURN.title, body: TURN.body, tag: TURN.tag, renotify: true, data: { url: `${ORIGIN}/r/ABCD` },
  }]);
});

test("a push for the table a visible tab already shows is not shown again; a hidden tab's is", async () => {
  const looking = worker([{ url: `${ORIGIN}/r/ABCD`, visibilityState: "visible" }]);
  await looking.fire("push", pushed(TURN));
  assert.deepEqual(looking.did.shown, []);
  const elsewhere = worker([{ url: `${ORIGIN}/r/ABCD`, visibilityState: "hidden" }, { url: `${ORIGIN}/`, visibilityState: "visible" }]);
  await elsewhere.fire("push", pushed(TURN));
  assert.equal(elsewhere.did.shown.length, 1);
});

test("a push that is not JSON, or names another site, still shows Felt's own page", async () => {
  const { did, fire } = worker();
  await fire("push", pushed("not json"));
  await fire("push", pushed({ ...TURN, url: "https://elsewhere.example/r/ABCD" }));
  assert.deepEqual(did.shown.map((n) => [n.title, n.data.url]), [["Felt", `${ORIGIN}/`], [TURN.title, `${ORIGIN}/`]]);
});

test("a click on a notification opens its table and closes the notification", async () => {
  const { did, fire } = worker([{ url: `${ORIGIN}/devices` }]);
  const event = clicked({ url: `${ORIGIN}/r/ABCD` });
  await fire("notificationclick", event);
  assert.equal(event.notification.closed, true);
  assert.deepEqual(did.opened, [`${ORIGIN}/r/ABCD`]);
  assert.deepEqual(did.focused, []);
});

test("a click focuses a tab already at that table instead of opening another", async () => {
  const { did, fire } = worker([{ url: `${ORIGIN}/` }, { url: `${ORIGIN}/r/ABCD` }]);
  await fire("notificationclick", clicked({ url: `${ORIGIN}/r/ABCD` }));
  assert.deepEqual(did.focused, [`${ORIGIN}/r/ABCD`]);
  assert.deepEqual(did.opened, []);
});

test("a click never opens another site: a foreign or missing link opens Felt's lobby", async () => {
  const { did, fire } = worker();
  await fire("notificationclick", clicked({ url: "https://elsewhere.example/r/ABCD" }));
  await fire("notificationclick", clicked(null));
  assert.deepEqual(did.opened, [`${ORIGIN}/`, `${ORIGIN}/`]);
});
