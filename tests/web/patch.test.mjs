// Runs the standard RFC 6902 conformance cases (json-patch-tests, Apache-2.0) against web/js/patch.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { applyPatch } from "../../web/js/patch.js";

const here = new URL("./json-patch-tests/", import.meta.url);

for (const file of ["tests.json", "spec_tests.json"]) {
  const cases = JSON.parse(readFileSync(new URL(file, here), "utf8"));
  cases.forEach((c, i) => {
    const name = `${file} #${i}: ${c.comment || JSON.stringify(c.patch).slice(0, 60)}`;
    test(name, { skip: c.disabled ? "disabled in the suite" : false }, () => {
      const before = JSON.stringify(c.doc);
      if (c.error !== undefined) {
        assert.throws(() => applyPatch(c.doc, c.patch), undefined, c.error);
      } else {
        const out = applyPatch(c.doc, c.patch);
        if ("expected" in c) assert.deepEqual(out, c.expected);
      }
      assert.equal(JSON.stringify(c.doc), before, "the input document must not change");
    });
  });
}

test("append with '-' and escaped pointers", () => {
  const doc = { "a/b": { "m~n": [1] } };
  const out = applyPatch(doc, [{ op: "add", path: "/a~1b/m~0n/-", value: 2 }]);
  assert.deepEqual(out, { "a/b": { "m~n": [1, 2] } });
  assert.deepEqual(doc, { "a/b": { "m~n": [1] } });
});

test("a failed op throws and leaves the input alone", () => {
  const doc = { seats: [{ name: "Ana" }] };
  assert.throws(() => applyPatch(doc, [{ op: "replace", path: "/seats/1/name", value: "Bo" }]));
  assert.deepEqual(doc, { seats: [{ name: "Ana" }] });
});

test("__proto__ is an ordinary member name", () => {
  const out = applyPatch({}, [{ op: "add", path: "/__proto__", value: { x: 1 } }]);
  assert.deepEqual(Object.keys(out), ["__proto__"]);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
});
