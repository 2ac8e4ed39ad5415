// A registered player in this browser: registering (which also makes the guest seats
// this browser holds the player's, so that they no longer die with its storage), the
// key shown once with a copy button, and a sign-in link (with its QR code) that opens
// the same player on another device. The key travels after `#`, which no request
// carries: it reaches the other device's page, never a server log.
import { api, problemText } from "./api.js";
import { failure, h, plural } from "./dom.js";
import { keepPlayer, seats } from "./store.js";

// Make the guest seats of this browser the player's (`POST /me/seats`); how many.
export async function bindGuestSeats(me) {
  let bound = 0;
  for (const [gameId, { seat, token }] of Object.entries(seats())) {
    try {
      await api("POST", "/me/seats", { body: { game_id: gameId, seat, token }, credential: me.key });
      bound += 1;
    } catch { /* over, or already somebody's: it stays a guest seat of this browser */ }
  }
  return bound;
}

export function copyField(value, label) {
  const field = h("input", { readonly: true, value, "aria-label": label, class: "copyable", onfocus: (event) => event.target.select() });
  const note = h("span", { class: "muted", "aria-live": "polite" });
  const copy = h("button", { type: "button", onclick: async () => {
    try { await navigator.clipboard.writeText(value); note.textContent = " Copied."; } catch { field.select(); note.textContent = " Select it and copy."; }
  } }, "Copy");
  return h("span", { class: "copy-row" }, field, copy, note);
}

// The key, shown once after registering: where it is kept and what it opens.
export function keyNotice(me, bound) {
  return h("section", { class: "notice", "aria-labelledby": "key-title" }, h("h2", { id: "key-title" }, `Welcome, ${me.name}`),
    h("p", {}, "This is your player key. This browser keeps it; copy it somewhere safe too: it opens your games on any device, and it is shown only now."),
    copyField(me.key, "your player key"),
    bound ? h("p", {}, `${plural(bound, "seat")} you had taken here as a guest ${bound === 1 ? "is" : "are"} now yours, in your inbox.`) : null);
}

// Register with a name (and an email for notifications); then `done(me, bound)`.
export function registerForm(done, intro) {
  const name = h("input", { id: "reg-name", required: true, maxlength: 64, autocomplete: "nickname" });
  const email = h("input", { id: "reg-email", type: "email", autocomplete: "email" });
  const note = h("div", { "aria-live": "polite" });
  const form = h("form", { "aria-label": "register" }, h("p", {}, intro),
    h("label", {}, "Name: ", name), h("label", {}, "Email (optional: to be told when it is your turn, and to sign in by email): ", email),
    h("button", { class: "primary", type: "submit" }, "Register"), note);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const made = await api("POST", "/players", { body: { name: name.value, ...(email.value ? { email: email.value } : {}) } });
      const me = { id: made.player_id, key: made.key, name: made.name };
      keepPlayer(me);
      done(me, await bindGuestSeats(me));
    } catch (error) { note.replaceChildren(failure(error)); }
  });
  return form;
}

async function qrCode(text) {
  const { encode } = await import("./vendor/uqr.js");
  const { size, data } = encode(text, { ecc: "M" });
  const path = [];
  data.forEach((row, y) => row.forEach((dark, x) => { if (dark) path.push(`M${x},${y}h1v1h-1z`); }));
  return h("svg:svg", { viewBox: `-2 -2 ${size + 4} ${size + 4}`, class: "qr", role: "img", "aria-label": "QR code of the sign-in link" },
    h("svg:rect", { x: -2, y: -2, width: size + 4, height: size + 4, fill: "#fff" }), h("svg:path", { d: path.join(""), fill: "#000" }));
}

// "Sign in on another device": a key of its own for that device (revocable alone),
// as a link to open there and a QR code to scan.
export function otherDevice(me) {
  const out = h("div", { "aria-live": "polite" });
  const button = h("button", { type: "button", onclick: async () => {
    button.disabled = true;
    try {
      const device = await api("POST", "/me/devices", { body: { name: "signed in with a link" }, credential: me.key });
      const link = `${location.origin}/sign-in#key=${encodeURIComponent(device.key)}`;
      out.replaceChildren(h("p", {}, "Open this link on your other device, or scan the code with its camera. It signs that device in as you; anybody with it can play your games, so send it only to yourself. It is shown only now."),
        copyField(link, "sign-in link"), await qrCode(link));
    } catch (error) { out.replaceChildren(h("p", { class: "notice error", role: "alert" }, problemText(error))); button.disabled = false; }
  } }, "Sign in on another device");
  return h("section", { class: "panel", "aria-labelledby": "p-devices" }, h("h2", { id: "p-devices" }, "Your other devices"),
    h("p", {}, "Play from your phone and your computer alike: every device signed in as you sees the same games and inbox."), button, out);
}
