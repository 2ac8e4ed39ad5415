// /sign-in: this device becomes a registered player's, by a sign-in link (`#code=...`:
// shown on another device of theirs, or emailed), by pasting the key, or by asking for
// such an email; a link of an older server's with the key itself (`#key=...`) still
// works. The secret is after `#` (no request carries it) and leaves the address bar at
// once.
import { api } from "../api.js";
import { failure, h, show } from "../dom.js";
import { keepPlayer, player } from "../store.js";

async function signedIn(key, how) {
  const me = await api("GET", "/me", { credential: key });
  const kept = { id: me.player_id, key, name: me.name };
  keepPlayer(kept);
  show(h("h1", {}, `Signed in as ${me.name}`),
    h("p", { class: "notice" }, `${how} Your games and inbox are on this device now.`),
    h("p", {}, h("a", { href: "/inbox", class: "button primary" }, "Open your inbox")));
}

export default async function signInPage() {
  const secrets = new URLSearchParams(location.hash.slice(1));
  history.replaceState(null, "", "/sign-in");
  addEventListener("hashchange", signInPage, { once: true });  // a link opened on this very page
  let trouble = null;
  try {
    if (secrets.get("key")) return await signedIn(secrets.get("key"), "This device is signed in with the link of your other device.");
    if (secrets.get("code")) {
      const made = await api("POST", "/sign-in/code", { body: { code: secrets.get("code") } });
      return await signedIn(made.key, "This device is signed in with your sign-in link.");
    }
  } catch (error) {
    trouble = [failure(error), h("p", {}, "The link may be old or used already: ask for a new one below.")];
  }
  const current = player();
  const key = h("input", { id: "key", autocomplete: "off", required: true, spellcheck: "false" });
  const note = h("div", { "aria-live": "polite" });
  const byKey = h("form", { "aria-label": "sign in with your key" }, h("h2", {}, "With your player key"),
    h("label", {}, "Player key: ", key), h("button", { class: "primary", type: "submit" }, "Sign in"), note);
  byKey.addEventListener("submit", async (event) => {
    event.preventDefault();
    try { await signedIn(key.value.trim(), "Signed in with your key."); } catch (error) { note.replaceChildren(failure(error)); }
  });
  const sections = [h("h1", {}, "Sign in"), trouble,
    current ? h("p", { class: "notice" }, `This browser is signed in as ${current.name} already. Signing in replaces it.`) : null,
    h("p", {}, "On a device where you are signed in, open the inbox and press “Sign in on another device”: it gives a link and a QR code for this one. Or:"),
    byKey];
  const email = await api("GET", "/sign-in/options").catch(() => ({ by_email: false }));
  if (email.by_email) {
    const address = h("input", { id: "sign-in-email", type: "email", required: true, autocomplete: "email" });
    const sent = h("div", { "aria-live": "polite" });
    const byEmail = h("form", { "aria-label": "sign in by email" }, h("h2", {}, "By email"),
      h("label", {}, "Your confirmed email address: ", address), h("button", { type: "submit" }, "Email me a sign-in link"), sent);
    byEmail.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await api("POST", "/sign-in", { body: { email: address.value } });
        sent.replaceChildren(h("p", { class: "notice" }, "If that address is confirmed for a player, a sign-in link is on its way, unless one went there in the last 5 minutes. It works once, for 15 minutes."));
      } catch (error) { sent.replaceChildren(failure(error)); }
    });
    sections.push(byEmail);
  }
  show(sections, h("p", {}, "Not registered? ", h("a", { href: "/inbox" }, "Register in the inbox"), "."));
}
