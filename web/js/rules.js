// "How to play" at the table: a modal dialog with the game's rules, opened at the section the
// current phase needs. The rules come from the server (GET /api/rules/<game>), rendered from the
// project's rules reference with raw HTML switched off; they are in English in every language
// (the panel says so in the others); the table's house options above them are named in the
// page's language as the lobby names them, never by their keys. The dialog sits in the top layer, so opening and closing it
// never scrolls or moves the table; Esc closes it and focus goes back to the button.
import { $, h, fill } from "./dom.js";
import { t, has, lang, errorText } from "./i18n.js";
import { api } from "./api.js";
import { gameTitle } from "./games.js";
import { optionLabel, valueWords } from "./summary.js";

const cache = new Map(); // "game?options" -> the API's answer
let dialog = null;

const optionsQuery = (options) =>
  options && Object.keys(options).length ? `?options=${encodeURIComponent(JSON.stringify(options))}` : "";

function build() {
  const body = h("div", { class: "rules-dialog-body", lang: "en", tabindex: "-1" });
  const close = h("button", { type: "button", class: "btn btn-small", "data-rules-close": true }, t("rules.close"));
  dialog = h("dialog", { class: "rules-dialog", "aria-labelledby": "rules-dialog-title" },
    h("div", { class: "rules-dialog-head" },
      h("h2", { id: "rules-dialog-title" }),
      h("a", { class: "btn btn-small btn-ghost", id: "rules-full", target: "_blank", rel: "noopener" }, t("rules.full")),
      close),
    lang === "en" ? null : h("p", { class: "hint rules-lang-note" }, t("rules.inEnglish")),
    body);
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("click", (e) => { if (e.target === dialog) dialog.close(); }); // the backdrop
  document.body.appendChild(dialog);
}

/** An option's name in the page's language: the lobby's label, else the server's English one. */
function label(game, option) {
  return has(`option.${game}.${option.key}`) || has(`summary.label.${game}.${option.key}`)
    ? optionLabel(game, option.key) : option.label;
}

/** A value in the page's language; a choice the catalogue has no words for keeps the server's. */
function words(game, key, value, english) {
  const named = has(`option.${game}.${key}.${value}`) || has(`summary.value.${game}.${key}.${value}`);
  return named || typeof value !== "string" ? valueWords(game, key, value) : english;
}

function appliedBox(answer) {
  if (answer.note) return h("p", { class: "panel panel-warn rules-options" }, answer.note);
  if (!answer.options.length) return null;
  const game = answer.game;
  return h("section", { class: "panel rules-options" }, h("h3", {}, t("rules.options")),
    h("ul", {}, answer.options.map((o) => h("li", {},
      h("a", { href: `#${o.anchor}` }, label(game, o)), `: ${words(game, o.key, o.value, o.words)} `,
      h("span", { class: "hint" }, t("rules.usually", { value: words(game, o.key, o.default, o.default_words) }))))));
}

function show(answer, phase, query) {
  const body = $(".rules-dialog-body", dialog);
  // The fragment is the server's rendering of our own rules files, HTML-escaped: parsed inertly.
  const article = new DOMParser().parseFromString(`<article class="rules">${answer.html}</article>`, "text/html").body.firstChild;
  fill(body, appliedBox(answer), article);
  fill($("#rules-dialog-title", dialog), t("rules.title", { title: gameTitle(answer.game, answer.title) }));
  const section = answer.phases[phase];
  $("#rules-full", dialog).href = `${answer.url}${query}${section ? `#${section}` : ""}`;
  const target = section ? body.querySelector(`#${CSS.escape(section)}`) : null;
  body.scrollTop = target ? target.offsetTop - 8 : 0; // the body is the offset parent (CSS)
  if (target) {
    target.setAttribute("tabindex", "-1");
    target.classList.add("rules-here");
  }
  (target || body).focus({ preventScroll: true });
}

/** Open the rules of ``game`` (the table's ``options`` applied) at the section for ``phase``. */
export async function openRules(game, phase, options) {
  if (!dialog) build();
  const key = `${game}${optionsQuery(options)}`;
  const y = window.scrollY;
  fill($("#rules-dialog-title", dialog), t("rules.title", { title: gameTitle(game) })); // named while it loads
  if (!dialog.open) dialog.showModal();
  try {
    if (!cache.has(key)) {
      fill($(".rules-dialog-body", dialog), h("p", { class: "hint" }, t("rules.loading")));
      cache.set(key, await api(`/api/rules/${encodeURIComponent(game)}${optionsQuery(options)}`));
    }
    show(cache.get(key), phase, optionsQuery(options));
  } catch (err) {
    fill($(".rules-dialog-body", dialog), h("p", { class: "error", role: "alert" }, t("rules.failed", { why: errorText(err) })));
  }
  if (window.scrollY !== y) window.scrollTo(window.scrollX, y); // the table never moves
}

/** Wire the page's "How to play" buttons; ``current()`` gives {game, phase, options} or null. */
export function setupRules(current) {
  for (const button of document.querySelectorAll("[data-rules-open]")) {
    button.addEventListener("click", () => {
      const now = current();
      if (now) openRules(now.game, now.phase, now.options);
    });
  }
}
