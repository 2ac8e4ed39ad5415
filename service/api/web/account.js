// A registered player in this browser, the account's actions: registering, the key
// shown once with a copy button, making this browser's guest seats the player's (so
// that they no longer die with its storage; offered, never done unasked: on a shared
// computer they may be somebody else's), the email address (whether it is confirmed,
// the confirmation sent again, a new one), and a sign-in link (with its QR code) that
// opens the same player on one other device, once, within minutes; the devices' keys
// can be listed and revoked. A link's code travels after `#`, which no request
// carries: it reaches the other device's page, never a server log.
import { ApiError, api, problemText } from "./api.js";
import { copyField, failure, h, plural } from "./dom.js";
import { forgetSeat, keepPlayer, keepSeat, seats } from "./store.js";

// Make the guest seats of this browser the player's (`POST /me/seats`): how many were,
// and how many could not be (their games are over, or they are somebody's already:
// marked, and not offered again). A seat made the player's is opened by the player's
// key from then on: its token goes.
async function bindGuestSeats(me) {
  let bound = 0;
  let refused = 0;
  for (const [gameId, { seat, token }] of offered()) {
    try {
      await api("POST", "/me/seats", { body: { game_id: gameId, seat, token }, credential: me.key });
      forgetSeat(gameId);
      bound += 1;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      keepSeat(gameId, seat, token, { kept: true });  // it stays a guest seat of this browser
      refused += 1;
    }
  }
  return { bound, refused };
}

const offered = () => Object.entries(seats()).filter(([, held]) => !held.kept);

// "This browser holds N seats taken as a guest: make them mine", or nothing; `done()`
// once some were made the player's.
export function guestSeatsOffer(me, done = () => {}) {
  const count = offered().length;
  if (!count) return null;
  const box = h("div", { class: "notice", role: "group", "aria-label": "seats taken here as a guest" });
  const button = h("button", { type: "button", class: "primary", onclick: async () => {
    button.disabled = true;
    const { bound, refused } = await bindGuestSeats(me);
    box.replaceChildren(h("p", {}, bound ? `${plural(bound, "seat")} ${bound === 1 ? "is" : "are"} yours now, on every device.` : "",
      refused ? ` ${plural(refused, "seat")} could not be made yours: ${refused === 1 ? "its game is" : "their games are"} over, or somebody's already.` : ""));
    if (bound) done();
  } }, "Make them mine");
  box.append(h("p", {}, `This browser holds ${plural(count, "seat")} taken as a guest, without a player. If ${count === 1 ? "it is" : "they are"} yours, make ${count === 1 ? "it" : "them"} ${me.name}'s: then ${count === 1 ? "it opens" : "they open"} on every device you sign in on.`), button);
  return box;
}

// The key, shown once after registering: where it is kept and what it opens.
export function keyNotice(me, seatsBound) {
  return h("section", { class: "notice", "aria-labelledby": "key-title" }, h("h2", { id: "key-title" }, `Welcome, ${me.name}`),
    h("p", {}, "This is your player key. This browser keeps it; copy it somewhere safe too (a program playing for you uses it): it opens your games on any device, and it is shown only now."),
    copyField(me.key, "your player key"), guestSeatsOffer(me, seatsBound));
}

// Register with a name (and an email for notifications); then `done(me)`.
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
      done(me);
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

function deviceList(me) {
  const list = h("ul", { class: "devices", "aria-label": "your devices" });
  async function draw() {
    try {
      const { devices } = await api("GET", "/me/devices", { credential: me.key });
      list.replaceChildren(...devices.map((device) => h("li", {}, `${device.name}, since ${new Date(device.created_at).toLocaleDateString()} `,
        device.current ? h("span", { class: "badge" }, "this device") : h("button", { type: "button", "aria-label": `Sign out ${device.name} of ${new Date(device.created_at).toLocaleString()}`,
          onclick: async () => {
            if (!confirm(`Sign out "${device.name}"? Its key stops working at once.`)) return;
            await api("DELETE", `/me/devices/${device.device_id}`, { credential: me.key }).catch((error) => list.append(failure(error)));
            draw();
          } }, "Sign it out"))));
    } catch (error) { list.replaceChildren(h("li", {}, failure(error))); }
  }
  draw();
  return [list, draw];
}

// "Sign in on another device": a one-time code that gives that device a key of its own
// (revocable alone), as a link to open there and a QR code to scan; the devices signed
// in, each of which can be signed out from here (a lost phone).
export function otherDevice(me) {
  const [devices, redraw] = deviceList(me);
  const out = h("div", { "aria-live": "polite" });
  const button = h("button", { type: "button", onclick: async () => {
    button.disabled = true;
    try {
      const made = await api("POST", "/me/sign-in-code", { credential: me.key });
      const link = `${location.origin}/sign-in#code=${encodeURIComponent(made.code)}`;
      const until = new Date(made.expires_at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
      out.replaceChildren(h("p", {}, `Open this link on your other device, or scan the code with its camera, by ${until}. It signs one device in as you, once; until then anybody with it could, so send it only to yourself.`),
        copyField(link, "sign-in link"), await qrCode(link));
      redraw();
    } catch (error) { out.replaceChildren(h("p", { class: "notice error", role: "alert" }, problemText(error))); }
    button.disabled = false;
  } }, "Sign in on another device");
  return h("section", { class: "panel", "aria-labelledby": "p-devices" }, h("h2", { id: "p-devices" }, "Your other devices"),
    h("p", {}, "Play from your phone and your computer alike: every device signed in as you sees the same games and inbox."), button, out,
    h("h3", {}, "Signed in now"), devices);
}

// "Your email": the address, whether its owner confirmed it (no sign-in link or
// notification goes to it until then), the confirmation sent again, and another
// address (or none) saved.
export function emailPanel(me) {
  const body = h("div", {});
  const note = h("div", { "aria-live": "polite" });
  async function draw() {
    try {
      const [profile, options] = await Promise.all([api("GET", "/me", { credential: me.key }),
        api("GET", "/sign-in/options").catch(() => ({ by_email: false }))]);
      body.replaceChildren(state(profile, options.by_email), change(profile));
    } catch (error) { body.replaceChildren(failure(error)); }
  }
  function state(profile, byEmail) {
    if (!profile.email) return h("p", {}, "No address: give one to be told by email when it is your turn, and to sign in by email.");
    if (!byEmail) return h("p", {}, `${profile.email}. This server sends no email.`);
    if (profile.email_confirmed) return h("p", {}, `${profile.email} `, h("span", { class: "badge" }, "confirmed"));
    const again = h("button", { type: "button", onclick: async () => {
      again.disabled = true;
      try {
        await api("POST", "/me/email-confirmation", { credential: me.key });
        note.replaceChildren(h("p", { class: "notice" }, "A link to confirm it is on its way, unless one went there in the last 5 minutes: then look for that one, or ask again later."));
      } catch (error) { note.replaceChildren(failure(error)); again.disabled = false; }
    } }, "Send the confirmation again");
    return h("div", {}, h("p", {}, `${profile.email} `, h("span", { class: "badge unconfirmed" }, "unconfirmed")),
      h("p", {}, "No sign-in link or notification goes to it until you open the link of the confirmation email sent to it."), again);
  }
  function change(profile) {
    const field = h("input", { id: "email-address", type: "email", autocomplete: "email", value: profile.email ?? "" });
    const form = h("form", { "aria-label": "change your email address" },
      h("label", {}, "Address (empty: none): ", field), h("button", { type: "submit" }, "Save"));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const saved = await api("PATCH", "/me", { body: { email: field.value.trim() || null }, credential: me.key });
        note.replaceChildren(h("p", { class: "notice" }, saved.email && !saved.email_confirmed ? `Saved. A link to confirm ${saved.email} is on its way to it.` : "Saved."));
        draw();
      } catch (error) { note.replaceChildren(failure(error)); }
    });
    return form;
  }
  draw();
  return h("section", { class: "panel", "aria-labelledby": "p-email" }, h("h2", { id: "p-email" }, "Your email"), body, note);
}
