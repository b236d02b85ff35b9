// Words that count: "1 trick", not "1 tricks", in both languages (web/js/locales/).
import { test } from "node:test";
import assert from "node:assert/strict";
import en from "../../web/js/locales/en.js";
import pt from "../../web/js/locales/pt.js";

test("the bids line says trick for one and tricks for more, in English and Portuguese", () => {
  assert.equal(en["info.bidsFor"]({ total: 0, n: 1 }), "0 for 1 trick");
  assert.equal(en["info.bidsFor"]({ total: 3, n: 5 }), "3 for 5 tricks");
  assert.equal(pt["info.bidsFor"]({ total: 0, n: 1 }), "0 para 1 vaza");
  assert.equal(pt["info.bidsFor"]({ total: 2, n: 7 }), "2 para 7 vazas");
});

test("both languages have the same keys", () => {
  assert.deepEqual(Object.keys(pt).sort(), Object.keys(en).sort());
});
