// "Notifications with Felt closed" on /devices: this device's Web Push subscription and the
// kinds it is told of. The service worker (/sw.js) shows what the server pushes; subscribing
// is the browser's (PushManager) with the server's VAPID key; the server keeps the
// subscription and the kinds for this device's token only (docs/protocol.md, Web Push).
import { $, toast } from "./dom.js";
import { api } from "./api.js";
import { t, lang, errorText } from "./i18n.js";

const SUPPORTED = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function show(settings) {
  const on = Boolean(settings && settings.push);
  $("#push-state").textContent = !SUPPORTED ? t("push.unsupported") : t(on ? "push.isOn" : "push.isOff");
  const toggle = $("#push-toggle");
  toggle.hidden = !SUPPORTED;
  toggle.textContent = t(on ? "push.off" : "push.on");
  toggle.dataset.on = on ? "1" : "";
  for (const box of document.querySelectorAll("[data-push-kind]")) {
    box.checked = Boolean(settings && settings.kinds[box.dataset.pushKind]);
  }
}

async function registration() {
  return navigator.serviceWorker.register("/sw.js", { scope: "/" });
}

async function subscribe() {
  if ((await Notification.requestPermission()) !== "granted") {
    toast(t("push.denied"), "error");
    return null;
  }
  const { key } = await api("/api/push/key");
  const reg = await registration();
  await navigator.serviceWorker.ready;
  let sub;
  try {
    sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  } catch {
    toast(t("push.failed"), "error");
    return null;
  }
  return api("/api/devices/me/push", { method: "PUT", auth: true, body: { ...sub.toJSON(), lang } });
}

async function unsubscribe() {
  const reg = await navigator.serviceWorker.getRegistration("/");
  const sub = reg ? await reg.pushManager.getSubscription() : null;
  if (sub) await sub.unsubscribe().catch(() => false);
  await api("/api/devices/me/push", { method: "DELETE", auth: true });
  return api("/api/devices/me/notifications", { auth: true });
}

// The subscription sent again on this page's load (see ``resend``): a turn on or off waits for it,
// so that a subscription sent late never undoes a turn off.
let resending = Promise.resolve();

async function toggle(button, refused) {
  button.disabled = true;
  await resending;
  try {
    const settings = button.dataset.on ? await unsubscribe() : await subscribe();
    if (settings) show(settings);
  } catch (err) {
    if (!refused(err)) toast(errorText(err), "error");
  }
  button.disabled = false;
}

async function setKind(box, refused) {
  box.disabled = true;
  try {
    const body = { kinds: { [box.dataset.pushKind]: box.checked } };
    show(await api("/api/devices/me/notifications", { method: "PUT", auth: true, body }));
    toast(t("push.saved"));
  } catch (err) {
    box.checked = !box.checked;
    if (!refused(err)) toast(errorText(err), "error");
  }
  box.disabled = false;
}

/** A subscribed device's subscription, as the browser has it now, sent again with the page's
 * language: the server writes notifications in the language the device subscribed in, so a
 * device switched to another language since is told in the new one from its next visit here
 * (and a subscription the browser renewed meanwhile is the one kept). */
async function resend(registered, refused) {
  try {
    const sub = await (await registered).pushManager.getSubscription();
    if (sub) await api("/api/devices/me/push", { method: "PUT", auth: true, body: { ...sub.toJSON(), lang } });
  } catch (err) {
    refused(err); // otherwise the subscription the server has stays as it was: nothing to tell
  }
}

/** The panel, for a device whose player is known; ``refused(err)`` handles a revoked token.
 * Its controls stay disabled until the server has said how they stand: a box changed before
 * that would be set back by the answer, unsaved. The worker that will show what is pushed is
 * registered meanwhile, not first: registering can take seconds, and subscribing waits for it. */
export async function loadPush(refused) {
  const registered = SUPPORTED ? registration() : null;
  if (registered) registered.catch(() => null); // a failure here is told by the subscribe that needs it
  try {
    const settings = await api("/api/devices/me/notifications", { auth: true });
    show(settings);
    if (settings.push && registered) resending = resend(registered, refused);
    for (const control of document.querySelectorAll("#push-toggle, [data-push-kind]")) control.disabled = false;
  } catch (err) {
    if (!refused(err)) $("#push-state").textContent = errorText(err);
  }
}

export function wirePush(refused) {
  $("#push-toggle").addEventListener("click", (event) => toggle(event.currentTarget, refused));
  for (const box of document.querySelectorAll("[data-push-kind]")) box.addEventListener("change", () => setKind(box, refused));
}
