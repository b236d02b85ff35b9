// A Portuguese page never shows a server sentence (English) for a code it has no words for.
import { test } from "node:test";
import assert from "node:assert/strict";

globalThis.localStorage ??= { getItem: () => "pt", setItem: () => {} };
globalThis.navigator ??= { languages: ["pt-BR"] };
const { errorText, lang, t } = await import("../../web/js/i18n.js");

test("a refusal with an unknown code is said in Portuguese, not in the server's English", () => {
  assert.equal(lang, "pt");
  assert.equal(errorText({ code: "something_new", message: "The server refused that." }), t("error.refused"));
  assert.notEqual(t("error.refused"), "That was refused.");
  assert.equal(errorText({ code: "seat_taken", message: "Seat 2 is taken." }), t("error.seat_taken"));
});
