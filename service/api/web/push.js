// Reaching a registered player with every page closed: pushes to this device (through
// the service worker, sw.js, and the browser's push service), asked for only when the
// person presses the button; and which news goes by which channel (push, email,
// webhook), the player's choice kept by the server (PATCH /me).
import { api } from "./api.js";
import { dateTime, failure, h, panel } from "./dom.js";

const KINDS = [["your-turn", "your turn"], ["reminder", "a move due soon"], ["game-over", "a game over"], ["rematch", "a rematch offered"], ["challenge", "a challenge to you"]];
const CHANNELS = [["push", "push to your devices"], ["email", "email"], ["webhook", "webhook"]];

export const pushSupported = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

// What went wrong, in a person's words (a browser's own texts name its internals).
function pushTrouble(error) {
  if (error?.name === "NotAllowedError") return "The browser does not let this site push to it (a private window, or its settings): your turns reach you while a page of the site is open.";
  if (error?.name === "AbortError" || error?.name === "NotSupportedError" || error?.name === "InvalidStateError") {
    return "This browser cannot receive pushes here (a private window, or its push service out of reach): your turns reach you while a page of the site is open.";
  }
  if (error?.name === "TimeoutError") return "The browser's push service did not answer: try again later.";
  return null;
}

// `promise`, or a TimeoutError after `seconds`.
function within(promise, seconds) {
  return Promise.race([promise, new Promise((_, fail) => {
    setTimeout(() => fail(Object.assign(new Error("timed out"), { name: "TimeoutError" })), seconds * 1000);
  })]);
}

function keyBytes(text) {
  const raw = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

// The service worker's registration (app.js registers it on every page) and its push
// subscription; a worker that is not up within seconds is taken as none.
async function subscription() {
  const registration = await within(navigator.serviceWorker.ready, 5);
  return [registration, await registration.pushManager.getSubscription()];
}

async function pushOn(me) {
  if (Notification.permission !== "granted" && await Notification.requestPermission() !== "granted") return;
  const [registration, old] = await subscription();
  const { public_key: key } = await api("GET", "/push/key");
  const made = old ?? await within(registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) }), 20);
  await api("POST", "/me/push-subscriptions", { credential: me.key, body: made.toJSON() });
}

async function pushOff(me) {
  const [, made] = await subscription();
  if (!made) return;
  const { subscriptions } = await api("GET", "/me/push-subscriptions", { credential: me.key });
  const mine = subscriptions.find((s) => s.endpoint === made.endpoint);
  if (mine) await api("DELETE", `/me/push-subscriptions/${mine.subscription_id}`, { credential: me.key });
  await made.unsubscribe();
}

// The button that turns pushes to this device on (or off), with what it does; while it
// works, it says so.
export function pushControl(me) {
  const box = h("div", { class: "row push", "aria-live": "polite" });
  if (!pushSupported()) return h("p", { class: "muted" }, "This browser takes no pushes: your turns reach you here while a page of the site is open.");
  async function draw(trouble = null) {
    const [, made] = await subscription().catch(() => [null, null]);
    const what = Notification.permission === "denied" ? h("span", { class: "muted" }, "Notifications are blocked for this site in the browser's settings.")
      : made ? [h("span", {}, "Your turns reach this device, even with the page closed. "), h("button", { type: "button", onclick: () => act(pushOff) }, "Stop")]
        : h("button", { type: "button", onclick: () => act(pushOn) }, "Tell me on this device, even with the page closed");
    box.replaceChildren(...[what].flat(), trouble ?? "");
  }
  async function act(step) {
    box.replaceChildren(h("span", { class: "muted" }, "Asking the browser…"));
    try { await step(me); draw(); } catch (error) {
      const words = pushTrouble(error);
      draw(words ? h("p", { class: "notice error", role: "alert" }, words) : failure(error));
    }
  }
  draw();
  return box;
}

// The player's channels for each kind of news, saved as they are ticked.
export function notificationsPanel(me) {
  const table = h("div", {});
  const note = h("div", { "aria-live": "polite" });
  async function draw() {
    try {
      const { notifications } = await api("GET", "/me", { credential: me.key });
      table.replaceChildren(h("table", { class: "channels" },
        h("caption", {}, "Tell me of"),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "News"), CHANNELS.map(([, label]) => h("th", { scope: "col" }, label)))),
        h("tbody", {}, KINDS.map(([kind, label]) => h("tr", {}, h("th", { scope: "row" }, label), CHANNELS.map(([channel, name]) => {
          const box = h("input", { type: "checkbox", checked: notifications[kind].includes(channel), "aria-label": `${label} by ${name}` });
          box.addEventListener("change", () => save(kind));
          box.dataset.kind = kind;
          box.dataset.channel = channel;
          return h("td", {}, box);
        }))))));
    } catch (error) { table.replaceChildren(failure(error)); }
  }
  async function save(kind) {
    const chosen = [...table.querySelectorAll(`input[data-kind="${kind}"]:checked`)].map((box) => box.dataset.channel);
    try {
      await api("PATCH", "/me", { credential: me.key, body: { notifications: { [kind]: chosen } } });
      note.replaceChildren(h("p", { class: "muted" }, "Saved."));
    } catch (error) { note.replaceChildren(failure(error)); draw(); }
  }
  draw();
  return panel("Notifications", pushControl(me), table, note);
}

// A break: the player's correspondence clocks (a day or more a move) stand still for
// the days they take, up to the server's days a year; the opponents see it.
export function breakPanel(me) {
  const body = h("div", { "aria-live": "polite" });
  async function draw(trouble = null) {
    try {
      const taken = await api("GET", "/me/break", { credential: me.key });
      const used = `You have taken ${taken.days_used} of your ${taken.days_allowed} days of breaks this year.`;
      if (taken.running) {
        body.replaceChildren(h("p", {}, `You are on a break until ${dateTime(taken.until)}: your clocks in games of a day or more a move stand still. ${used}`),
          h("button", { type: "button", onclick: () => act("DELETE") }, "End my break now"), trouble ?? "");
        return;
      }
      const left = taken.days_allowed - taken.days_used;
      if (left < 1) { body.replaceChildren(h("p", {}, used), trouble ?? ""); return; }
      const days = h("input", { id: "break-days", type: "number", min: 1, max: left, value: Math.min(3, left), required: true });
      const form = h("form", { class: "row", "aria-label": "take a break" }, h("label", { for: "break-days" }, "Days: "), days,
        h("button", { type: "submit" }, "Take a break"));
      form.addEventListener("submit", (event) => { event.preventDefault(); act("POST", { days: +days.value }); });
      body.replaceChildren(h("p", {}, `${used} A break stops your clock in your games of a day or more a move; your opponents see until when.`), form, trouble ?? "");
    } catch (error) { body.replaceChildren(failure(error)); }
  }
  async function act(method, request = undefined) {
    try { await api(method, "/me/break", { credential: me.key, body: request }); draw(); } catch (error) { draw(failure(error)); }
  }
  draw();
  return panel("Breaks", body);
}
