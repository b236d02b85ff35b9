// The client's pure modules: version tracking (ViewSync) and the SHA-256 fallback.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { ViewSync } from "../../web/js/sync.js";
import { sha256Bytes } from "../../web/js/sha256.js";

const snapshot = (v, state) => ({ type: "snapshot", v, state });
const patch = (v, ops) => ({ type: "patch", v, ops });

test("patches apply in version order after a snapshot", () => {
  const s = new ViewSync();
  assert.equal(s.receive(snapshot(3, { n: 0 })), "changed");
  assert.equal(s.receive(patch(4, [{ op: "replace", path: "/n", value: 1 }])), "changed");
  assert.equal(s.receive(patch(5, [])), "changed");
  assert.deepEqual(s.state, { n: 1 });
  assert.equal(s.v, 5);
});

test("a gap in versions asks for a resync and applies nothing more until a snapshot", () => {
  const s = new ViewSync();
  s.receive(snapshot(1, { n: 0 }));
  assert.equal(s.receive(patch(3, [{ op: "replace", path: "/n", value: 9 }])), "resync");
  assert.equal(s.receive(patch(4, [{ op: "replace", path: "/n", value: 8 }])), "ignored");
  assert.deepEqual(s.state, { n: 0 });
  assert.equal(s.receive(snapshot(4, { n: 8 })), "changed");
  assert.equal(s.receive(patch(5, [{ op: "replace", path: "/n", value: 7 }])), "changed");
  assert.deepEqual(s.state, { n: 7 });
});

test("a patch that does not apply asks for a resync and keeps the old view", () => {
  const s = new ViewSync();
  s.receive(snapshot(1, { seats: [] }));
  assert.equal(s.receive(patch(2, [{ op: "remove", path: "/seats/0" }])), "resync");
  assert.deepEqual(s.state, { seats: [] });
  assert.equal(s.v, 1);
});

test("an old or repeated patch is ignored", () => {
  const s = new ViewSync();
  s.receive(snapshot(5, { n: 1 }));
  assert.equal(s.receive(patch(5, [{ op: "replace", path: "/n", value: 2 }])), "ignored");
  assert.deepEqual(s.state, { n: 1 });
});

test("a patch before any snapshot asks for one", () => {
  assert.equal(new ViewSync().receive(patch(1, [])), "resync");
});

test("after a new socket nothing applies until its snapshot", () => {
  const s = new ViewSync();
  s.receive(snapshot(1, { n: 1 }));
  s.reset();
  assert.equal(s.receive(patch(2, [{ op: "replace", path: "/n", value: 2 }])), "ignored");
  assert.equal(s.receive(snapshot(7, { n: 3 })), "changed");
  assert.equal(s.v, 7);
});

test("the SHA-256 fallback matches node:crypto", () => {
  for (const text of ["", "abc", "123456789012345678901234567890", "x".repeat(1000), "ünïcødé ♠♥"]) {
    const want = createHash("sha256").update(text, "utf8").digest("hex");
    const got = Buffer.from(sha256Bytes(new TextEncoder().encode(text))).toString("hex");
    assert.equal(got, want, text.slice(0, 20));
  }
});
