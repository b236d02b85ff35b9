// The client's language: English or Portuguese, from the browser's languages or the header's
// switch (kept in localStorage). Every word people see comes from locales/en.js or
// locales/pt.js, merged with each registered game's own (games/<name>/strings.js); this module
// only looks them up and fills the pages' data-i18n attributes.
import en from "./locales/en.js";
import pt from "./locales/pt.js";
import { h } from "./dom.js";
import * as GAMES from "./games/index.js";

const CATALOGUES = { en, pt };
const KEY = "felt.lang";

function pick() {
  const stored = localStorage.getItem(KEY);
  if (stored && CATALOGUES[stored]) return stored;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (CATALOGUES[base]) return base;
  }
  return "en";
}

export const lang = pick();

let merged = null; // {code: words}: the shared words and every game's, merged on first use

/** The catalogue of ``code``: its shared words, then each registered game's. (Merged when
 * first asked for, not as this module loads: a game's module imports this one.) */
function catalogue(code) {
  merged ??= Object.fromEntries(Object.entries(CATALOGUES).map(([c, words]) =>
    [c, Object.assign({}, words, ...Object.values(GAMES).map((game) => game.strings?.[c] || {}))]));
  return merged[code];
}

/**
 * The message ``key`` in the page's language, with ``{name}`` filled from ``params``; a message
 * may be a function of the params (plurals). Unknown keys fall back to English, then to the key.
 */
export function t(key, params = {}) {
  const msg = catalogue(lang)[key] ?? catalogue("en")[key];
  if (msg === undefined) return key;
  if (typeof msg === "function") return msg(params);
  return msg.replace(/\{(\w+)\}/g, (all, name) => (params[name] === undefined ? all : String(params[name])));
}

/** Whether the catalogue has ``key`` (for optional, per-game words). */
export const has = (key) => key in catalogue(lang) || key in catalogue("en");

/** Fill the static page: data-i18n (text), data-i18n-label (aria-label), -placeholder, -title. */
export function translatePage(root = document) {
  document.documentElement.lang = lang === "pt" ? "pt-BR" : "en";
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.setAttribute("placeholder", t(el.dataset.i18nPlaceholder));
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.setAttribute("title", t(el.dataset.i18nTitle));
  if (document.body.dataset.title) document.title = t(document.body.dataset.title);
  const slot = root.querySelector("#lang-slot");
  if (slot) slot.replaceWith(languageSwitch());
}

/** The header's language switch: choosing reloads the page in that language. */
export function languageSwitch() {
  const select = h("select", { id: "lang", class: "lang-switch", "aria-label": t("lang.label") },
    Object.keys(CATALOGUES).map((code) => h("option", { value: code, selected: code === lang }, t(`lang.${code}`))));
  select.addEventListener("change", () => {
    localStorage.setItem(KEY, select.value);
    location.reload();
  });
  return select;
}

/** A number in the page's language. */
export const num = (n) => (typeof n === "number" ? n.toLocaleString(lang === "pt" ? "pt-BR" : "en") : String(n));

/** A refusal in words: the catalogue's sentence for its code, else (a code this client does not
 * know) the server's own sentence, which is English: in another language, a plain "refused". */
export function errorText(err) {
  if (err && err.code && has(`error.${err.code}`)) return t(`error.${err.code}`);
  const own = err && err.code === "error"; // the client's own sentence (an answer without a body)
  return ((lang === "en" || own) && err && err.message) || t("error.refused");
}
