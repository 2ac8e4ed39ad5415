// The service worker (served at /sw.js, scope /): what reaches a player with every page
// of the site closed. A push from the server (service/games/push.py: your turn, a
// reminder, a game over, a rematch) is shown as a notification; a newer one of a game
// replaces the older (`tag`). A click opens that game's page: an open tab of the site
// goes there, else a new one. Only this site's pages are opened, whatever a push says.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let message;
  try { message = event.data?.json() ?? {}; } catch { message = { body: event.data?.text() ?? "" }; }
  event.waitUntil(self.registration.showNotification(message.title ?? "Claim", {
    body: message.body ?? "",
    tag: message.tag,
    renotify: Boolean(message.tag),
    icon: "/web/icon-192.png",
    data: { path: pathOf(message.url) },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openPage(event.notification));
});

// The path of this site that a push names (its server may call itself by another name).
function pathOf(url) {
  try { return new URL(url ?? "/", self.location.origin).pathname; } catch { return "/"; }
}

// Open the page of `notification`: in a tab of the site (the one at that page first), else
// in a new one.
async function openPage(notification) {
  const target = new URL(notification.data?.path ?? "/", self.location.origin).href;
  const tabs = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const tab = tabs.find((client) => client.url === target) ?? tabs[0];
  try {
    const there = tab && (tab.url === target ? tab : await tab.navigate(target));
    if (there) return there.focus().catch(() => there);  // focusing needs the click's activation
  } catch { /* a tab this worker does not control cannot be sent: a new one instead */ }
  return self.clients.openWindow(target);
}
