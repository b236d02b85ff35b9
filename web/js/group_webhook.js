// The group owner's webhook form on /g/{code}: where the group's chat hears of new tables, turns
// at slow tables and each result. The URL is a secret: the page shows it masked, and puts the
// whole of it in the field only when the owner asks (Show), never on its own.
import { h, timeAgo } from "./dom.js";
import { api } from "./api.js";
import { t, errorText } from "./i18n.js";

/** A line saying how the last delivery went (empty before any). */
function lastDelivery(hook) {
  const ok = hook.last_ok_at ? Date.parse(hook.last_ok_at) : 0;
  const failed = hook.last_failed_at ? Date.parse(hook.last_failed_at) : 0;
  if (failed > ok) return t("webhook.lastFailed", { why: failureText(hook.last_failure), when: timeAgo(hook.last_failed_at, t) });
  if (ok) return t("webhook.lastOk", { when: timeAgo(hook.last_ok_at, t) });
  return "";
}

function failureText(failure) {
  return /^\d+$/.test(failure || "") ? failure : t(`webhook.failure.${failure}`);
}

/** Whether the server may take ``text`` as a webhook URL, as far as the page can tell (the
 * server also refuses an inside address written as a number). */
function usable(text) {
  try {
    const parsed = new URL(text);
    return (parsed.protocol === "https:" || parsed.protocol === "http:") && !parsed.username && !parsed.password;
  } catch {
    return false;
  }
}

/** The owner's panel; its form is folded until opened (the page does not refresh while it is open). */
export async function webhookPanel(gid) {
  let hook = await api(gid("/webhook"), { auth: true });
  const current = h("p", { id: "webhook-current" });
  const last = h("p", { id: "webhook-last", class: "hint" });
  const status = h("p", { id: "webhook-status", class: "hint", role: "status" });
  const url = h("input", {
    id: "webhook-url", type: "url", autocomplete: "off", spellcheck: "false", maxlength: "2048",
    placeholder: "https://discord.com/api/webhooks/…", "aria-describedby": "webhook-url-hint",
  });
  const format = h("select", { id: "webhook-format" },
    h("option", { value: "discord" }, t("webhook.format.discord")), h("option", { value: "json" }, t("webhook.format.json")));
  const reveal = h("button", { type: "button", class: "btn btn-small btn-ghost", id: "webhook-reveal" }, t("webhook.reveal"));
  const test = h("button", { type: "button", class: "btn btn-small btn-ghost", id: "webhook-test" }, t("webhook.test"));
  const remove = h("button", { type: "button", class: "btn btn-small btn-ghost", id: "webhook-remove" }, t("webhook.remove"));
  const show = () => {
    current.textContent = hook.url ? t("webhook.current", { url: hook.url }) : t("webhook.none");
    last.textContent = hook.url ? lastDelivery(hook) : "";
    if (hook.format) format.value = hook.format;
    for (const b of [reveal, test, remove]) b.hidden = !hook.url;
  };
  const act = async (work) => {
    status.textContent = "";
    try {
      await work();
    } catch (err) {
      status.textContent = errorText(err);
    }
    show();
  };
  const form = h("form", { class: "stack", id: "webhook-form", novalidate: true },
    h("div", { class: "field" }, h("label", { for: "webhook-url" }, t("webhook.url")), url,
      h("span", { class: "hint", id: "webhook-url-hint" }, t("webhook.urlHint"))),
    h("div", { class: "field" }, h("label", { for: "webhook-format" }, t("webhook.formatLabel")), format),
    h("div", { class: "row" }, h("button", { class: "btn btn-small", type: "submit" }, t("webhook.save")), test, reveal, remove),
    status);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!usable(url.value.trim())) {
      status.textContent = t("error.bad_url");
      url.focus();
      return;
    }
    act(async () => {
      hook = await api(gid("/webhook"), { method: "PUT", body: { url: url.value.trim(), format: format.value }, auth: true });
      url.value = "";
      status.textContent = t("webhook.saved");
    });
  });
  reveal.addEventListener("click", () => act(async () => {
    url.value = (await api(gid("/webhook?reveal=true"), { auth: true })).url || "";
  }));
  test.addEventListener("click", () => act(async () => {
    status.textContent = t("webhook.testing");
    let sent;
    try {
      sent = await api(gid("/webhook/test"), { method: "POST", auth: true });
    } catch (err) {
      if (err.code !== "rate_limited") throw err;
      status.textContent = t("webhook.testTooSoon"); // a group has a few tests a minute
      return;
    }
    hook = await api(gid("/webhook"), { auth: true });
    status.textContent = sent.delivered ? t("webhook.testOk") : t("webhook.testFailed", { why: failureText(sent.failure) });
  }));
  remove.addEventListener("click", () => act(async () => {
    if (!confirm(t("webhook.removeConfirm"))) return;
    await api(gid("/webhook"), { method: "DELETE", auth: true });
    hook = { url: null, format: null };
    url.value = "";
    status.textContent = t("webhook.removed");
  }));
  show();
  return h("section", { class: "panel", "aria-labelledby": "webhook-h", id: "webhook-panel" },
    h("h2", { id: "webhook-h" }, t("webhook.title")), h("p", { class: "hint" }, t("webhook.hint")), current, last,
    h("details", { id: "webhook" }, h("summary", {}, t("webhook.edit")), form));
}
