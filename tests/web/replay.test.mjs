// The replay viewer's model: any step, in any order, is the state the patches lead to.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Replay } from "../../web/js/replay.js";

// 250 steps of a counter and a growing list: state k is {n: k, log: [1..k]}.
function body(count) {
  const steps = [];
  for (let k = 1; k <= count; k += 1) {
    steps.push({ seat: k % 4, action: { type: "bid", value: k }, ops: [
      { op: "replace", path: "/n", value: k },
      { op: "add", path: "/log/-", value: k },
    ] });
  }
  return { first: { n: 0, log: [] }, steps };
}

const expected = (k) => ({ n: k, log: Array.from({ length: k }, (_, i) => i + 1) });

test("every step's view is rebuilt exactly, forwards, backwards and by jumps", () => {
  const replay = new Replay(body(250));
  assert.equal(replay.length, 251);
  assert.deepEqual(replay.lastView, expected(250));
  for (const k of [0, 1, 2, 99, 100, 101, 250, 249, 7, 200, 199, 0, 250, 150]) {
    assert.deepEqual(replay.view(k), expected(k), `step ${k}`);
  }
  assert.deepEqual(replay.entry(0), { seat: null, action: null });
  assert.deepEqual(replay.entry(3).action, { type: "bid", value: 3 });
});

test("views handed out are never changed by later steps", () => {
  const replay = new Replay(body(120));
  const at5 = replay.view(5);
  replay.view(6);
  replay.view(110);
  assert.deepEqual(at5, expected(5));
  assert.deepEqual(replay.view(0), { n: 0, log: [] });
});
