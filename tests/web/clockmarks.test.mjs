// The moves of a hand's log that the turn clock played, as the room page marks them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClockMarks } from "../../web/js/clockmarks.js";

const bid = (seat, value) => ({ seat, action: { type: "bid", value } });

test("the move the room names is marked and stays marked after the next move", () => {
  const marks = new ClockMarks();
  marks.see([bid(1, 2)], null);
  marks.see([bid(1, 2), bid(2, 0)], { seat: 2, action: { type: "bid", value: 0 } });
  marks.see([bid(1, 2), bid(2, 0), bid(3, 1)], null);
  assert.deepEqual([0, 1, 2].map((i) => marks.has(i)), [false, true, false]);
});

test("a move the clock did not play is not marked, nor one of another seat", () => {
  const marks = new ClockMarks();
  marks.see([bid(1, 2)], { seat: 2, action: { type: "bid", value: 2 } });
  marks.see([bid(1, 2)], { seat: 1, action: { type: "bid", value: 3 } });
  assert.equal(marks.has(0), false);
});

test("a new hand's log forgets the last hand's marks", () => {
  const marks = new ClockMarks();
  marks.see([bid(1, 2), bid(2, 0)], { seat: 2, action: { type: "bid", value: 0 } });
  marks.see([bid(3, 1)], null);
  assert.equal(marks.has(1), false);
});
