// The room socket's reconnect wait and what it puts in the URL (web/js/connection.js).
import { test } from "node:test";
import assert from "node:assert/strict";

// connection.js looks up its words through i18n.js, which reads the browser's language.
globalThis.localStorage ??= { getItem: () => null, setItem: () => {} };
globalThis.navigator ??= { languages: ["en"] };
globalThis.location ??= { protocol: "http:", host: "felt.test" };
const { RoomConnection, retryDelay } = await import("../../web/js/connection.js");

test("the reconnect wait doubles from half a second and never passes three seconds", () => {
  const low = () => 0;
  const high = () => 0.999999;
  assert.equal(retryDelay(1, high) <= 500, true);
  assert.equal(retryDelay(1, low), 250);
  assert.equal(retryDelay(2, low), 500);
  for (let attempt = 1; attempt <= 60; attempt++) {
    assert.ok(retryDelay(attempt, high) <= 3000, `attempt ${attempt}: ${retryDelay(attempt, high)} ms`);
    assert.ok(retryDelay(attempt, low) >= 250);
  }
  assert.ok(retryDelay(12, low) >= 1500, "a long outage is still looked at every few seconds, not hammered");
});

test("the token is offered as a subprotocol and never appears in the socket's URL", () => {
  const handlers = { onState() {}, onStatus() {}, onError() {} };
  const conn = new RoomConnection("K7QH2MPX", { token: "s3cret-Token_x", ...handlers });
  assert.equal(conn.url(), "ws://felt.test/ws/rooms/K7QH2MPX");
  assert.ok(!conn.url().includes("s3cret"));
  assert.deepEqual(conn.protocols(), ["felt", "felt-token.s3cret-Token_x"]);
  const watcher = new RoomConnection("K7QH2MPX", { ...handlers });
  assert.deepEqual(watcher.protocols(), ["felt"]);
});
