// Felt's service worker: it shows the notifications Web Push brings while no Felt tab is open
// (your turn at a table, your clock ran out) and, on a click, focuses a tab already showing
// that table or opens it. The payload is {title, body, url, kind, tag}: never a card. It
// caches nothing: every page is still asked of the server.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

function sameSiteUrl(given) {
  try {
    const url = new URL(typeof given === "string" ? given : "/", self.location.origin);
    return url.origin === self.location.origin ? url.href : self.location.origin + "/";
  } catch {
    return self.location.origin + "/";
  }
}

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  const title = typeof data.title === "string" && data.title ? data.title : "Felt";
  const url = sameSiteUrl(data.url);
  event.waitUntil((async () => {
    // A tab looking at that table already shows the turn: nothing more to say.
    const tabs = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    if (tabs.some((tab) => tab.url === url && tab.visibilityState === "visible")) return;
    await self.registration.showNotification(title, {
      body: typeof data.body === "string" ? data.body : "",
      tag: typeof data.tag === "string" ? data.tag : url, // one per table: a newer one replaces it
      renotify: true,
      data: { url },
    });
  })());
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = sameSiteUrl(event.notification.data && event.notification.data.url);
  event.waitUntil((async () => {
    const tabs = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const open = tabs.find((tab) => tab.url === url);
    if (open) return open.focus();
    return self.clients.openWindow(url);
  })());
});
