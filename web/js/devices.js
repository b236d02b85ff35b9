// /devices (and /link?code=...): one player on every device. A known device shows the name
// (changeable), "Add a device" (a one-time code and its QR code, counting down its 10
// minutes), "Your devices" (revoke any) and passkeys; any device can enter a code, or sign in
// with a passkey, to become that player.
import { $, h, fill, toast, timeAgo } from "./dom.js";
import { api, identity, formatLinkCode } from "./api.js";
import { t, translatePage, errorText } from "./i18n.js";
import { loadPush, wirePush } from "./push.js";

translatePage();

let countdown = null;

// Passkeys need the browser's WebAuthn JSON helpers (parseCreationOptionsFromJSON, toJSON).
const PASSKEYS = typeof window.PublicKeyCredential?.parseCreationOptionsFromJSON === "function";

function showKnown() {
  const me = identity.get();
  for (const id of ["#known", "#add-panel", "#list-panel", "#push-panel"]) $(id).hidden = !me;
  $("#passkey-panel").hidden = !me || !PASSKEYS;
  $(".passkey-only").hidden = !PASSKEYS;
  if (me) $("#rename").value = me.name;
  $("#enter-help").textContent = t(me ? "devices.enterHelpKnown" : "devices.enterHelp", { name: me?.name || "" });
}

/** Forget this device's player when the server no longer knows its token (it was revoked). */
function refused(err) {
  if (err.status !== 401) return false;
  identity.clear();
  showKnown();
  toast(t("devices.signedOut"), "error");
  return true;
}

/** A device: the name its player gave it (else its browser and system), where and when it was
 * last used (its browser and system: never an address), "Name it", and revoke. */
function deviceRow(d) {
  const label = d.name || d.label || t("devices.unknown");
  const where = d.name && d.label ? `${d.label}, ` : "";
  return h("li", { class: "room-row", "data-device": d.id },
    h("div", { class: "room-row-main" },
      h("strong", {}, label),
      d.current ? h("span", { class: "pill pill-won" }, t("devices.current")) : null,
      h("span", { class: "hint" }, ` · ${where}${t("devices.seen", { when: timeAgo(d.last_seen_at, t) })}`)),
    nameForm(d),
    h("button", { class: "btn btn-small", type: "button", "data-revoke": d.id, "data-current": d.current ? "1" : null,
      "aria-label": t(d.current ? "devices.signOutLabel" : "devices.revokeLabel", { label }) }, d.current ? t("devices.signOut") : t("devices.revoke")));
}

/** "Name it": a name of the player's own for one device ("Kitchen tablet"); empty forgets it. */
function nameForm(d) {
  const input = h("input", { id: `device-name-${d.id}`, maxlength: "24", value: d.name || "", placeholder: d.label || "" });
  const error = h("p", { class: "error", role: "alert" });
  const form = h("form", { class: "row", "data-name-device": d.id },
    h("label", { for: input.id, class: "sr-only" }, t("devices.nameLabel", { label: d.label || t("devices.unknown") })),
    input, h("button", { class: "btn btn-small", type: "submit" }, t("devices.nameSave")), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await api(`/api/players/me/devices/${encodeURIComponent(d.id)}`, { method: "PATCH", auth: true, body: { name: input.value.trim() || null } });
      loadDevices();
    } catch (err) {
      if (!refused(err)) error.textContent = errorText(err);
    }
  });
  return h("details", { class: "device-name" }, h("summary", {}, t("devices.nameIt")), form);
}

async function loadDevices() {
  if (!identity.get()) return;
  try {
    const data = await api("/api/players/me/devices", { auth: true });
    fill($("#devices"), h("ul", { class: "room-list" }, (data.devices || []).map(deviceRow)));
  } catch (err) {
    if (!refused(err)) fill($("#devices"), h("p", { class: "error" }, errorText(err)));
  }
}

function tick(expires) {
  const left = Math.max(0, Math.round((expires - Date.now()) / 1000));
  if (left === 0) {
    clearInterval(countdown);
    $("#link-left").textContent = t("devices.expired");
    $("#link-box").classList.add("link-expired");
    $("#add").hidden = false;
    $("#add").textContent = t("devices.addAgain");
    return;
  }
  const clock = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  $("#link-left").textContent = t("devices.left", { clock });
}

async function addDevice() {
  const button = $("#add");
  button.disabled = true;
  try {
    const made = await api("/api/players/me/links", { method: "POST", auth: true });
    $("#link-code").textContent = formatLinkCode(made.code);
    $("#link-qr").src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(made.qr_svg)}`;
    $("#link-qr").alt = t("devices.qrAlt");
    $("#link-url").textContent = t("devices.orOpen", { url: new URL(made.url, location.href).href });
    $("#link-box").hidden = false;
    $("#link-box").classList.remove("link-expired");
    button.hidden = true;
    // At most the 10 minutes the server gives, whatever this device's clock says.
    const expires = Math.min(Date.parse(made.expires_at), Date.now() + 10 * 60 * 1000);
    clearInterval(countdown);
    tick(expires);
    countdown = setInterval(() => tick(expires), 1000);
  } catch (err) {
    if (!refused(err)) toast(errorText(err), "error");
  }
  button.disabled = false;
}

async function revoke(button) {
  const current = button.dataset.current === "1";
  if (current && !confirm(t("devices.signOutConfirm"))) return;
  button.disabled = true;
  try {
    await api(`/api/players/me/devices/${encodeURIComponent(button.dataset.revoke)}`, { method: "DELETE", auth: true });
    if (current) {
      identity.clear();
      showKnown();
      toast(t("devices.signedOutHere"));
      return;
    }
    toast(t("devices.revoked"));
  } catch (err) {
    if (refused(err)) return;
    toast(errorText(err), "error");
  }
  loadDevices();
}

async function rename(event) {
  event.preventDefault();
  const name = $("#rename").value.trim();
  $("#rename-error").textContent = "";
  if (!name) return;
  try {
    const me = await api("/api/players/me", { method: "PATCH", auth: true, body: { name } });
    identity.set({ ...identity.get(), name: me.name });
    $("#rename").value = me.name;
    toast(t("devices.renamed", { name: me.name }));
  } catch (err) {
    if (!refused(err)) $("#rename-error").textContent = errorText(err);
  }
}

async function enterCode(event) {
  event.preventDefault();
  const code = $("#enter-code").value.trim();
  $("#enter-error").textContent = "";
  if (!code) return;
  const me = identity.get();
  if (me && !confirm(t("devices.replaceConfirm", { name: me.name }))) return;
  try {
    const player = await api("/api/players/link", { method: "POST", body: { code } });
    identity.set(player);
    toast(t("devices.linked", { name: player.name }));
    history.replaceState(null, "", "/devices");
    $("#enter-code").value = "";
    showKnown();
    loadDevices();
    loadPasskeys();
    loadPush(refused);
  } catch (err) {
    $("#enter-error").textContent = errorText(err);
  }
}

// ---- passkeys: added on a known device, used to sign in on any other ----

function passkeyRow(k) {
  return h("li", { class: "room-row", "data-passkey": k.id },
    h("div", { class: "room-row-main" }, h("strong", {}, k.label || t("devices.unknown")),
      h("span", { class: "hint" }, ` · ${k.last_used_at ? t("devices.seen", { when: timeAgo(k.last_used_at, t) }) : t("passkeys.unused")}`)));
}

async function loadPasskeys() {
  if (!identity.get() || !PASSKEYS) return;
  try {
    const data = await api("/api/players/me/passkeys", { auth: true });
    fill($("#passkeys"), data.passkeys.length
      ? h("ul", { class: "room-list" }, data.passkeys.map(passkeyRow))
      : h("p", { class: "hint" }, t("passkeys.none")));
  } catch (err) {
    refused(err);
  }
}

async function addPasskey() {
  try {
    const ceremony = await api("/api/players/me/passkeys/options", { method: "POST", auth: true });
    const created = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(ceremony.options) });
    await api("/api/players/me/passkeys", { method: "POST", auth: true, body: { challenge_id: ceremony.challenge_id, credential: created.toJSON() } });
    toast(t("passkeys.added"));
    loadPasskeys();
  } catch (err) {
    if (err.name === "NotAllowedError" || err.name === "AbortError") return; // the person said no
    if (!refused(err)) toast(err instanceof Error && err.status !== undefined ? errorText(err) : t("passkeys.failed"), "error");
  }
}

async function signInWithPasskey() {
  const me = identity.get();
  if (me && !confirm(t("devices.replaceConfirm", { name: me.name }))) return;
  $("#enter-error").textContent = "";
  try {
    const ceremony = await api("/api/passkeys/sign-in/options", { method: "POST" });
    const got = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(ceremony.options) });
    const player = await api("/api/passkeys/sign-in", { method: "POST", body: { challenge_id: ceremony.challenge_id, credential: got.toJSON() } });
    identity.set(player);
    toast(t("devices.linked", { name: player.name }));
    showKnown();
    loadDevices();
    loadPasskeys();
    loadPush(refused);
  } catch (err) {
    if (err.name === "NotAllowedError" || err.name === "AbortError") return;
    $("#enter-error").textContent = err.status !== undefined ? errorText(err) : t("passkeys.failed");
  }
}

$("#passkey-add").addEventListener("click", addPasskey);
wirePush(refused);
$("#passkey-sign-in").addEventListener("click", signInWithPasskey);
$("#add").addEventListener("click", addDevice);
$("#devices").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-revoke]");
  if (button) revoke(button);
});
$("#rename-form").addEventListener("submit", rename);
$("#enter-form").addEventListener("submit", enterCode);

const given = new URLSearchParams(location.search).get("code");
if (given) {
  $("#enter-code").value = formatLinkCode(given);
  $("#enter-code").focus();
}
showKnown();
loadDevices();
loadPasskeys();
if (identity.get()) loadPush(refused);
