// /confirm-email: the link of a confirmation email (`#code=...`) confirms the address it
// was sent to for its player, and the page says what happened. The code is after `#`
// (no request carries it) and leaves the address bar at once.
import { api } from "../api.js";
import { failure, h, show } from "../dom.js";
import { player } from "../store.js";

export default async function confirmEmailPage() {
  const code = new URLSearchParams(location.hash.slice(1)).get("code");
  history.replaceState(null, "", "/confirm-email");
  addEventListener("hashchange", confirmEmailPage, { once: true });  // a link opened on this very page
  const onward = h("p", {}, h("a", { href: "/inbox", class: "button primary" }, player() ? "Open your inbox" : "Go to the inbox"));
  if (!code) {
    return show(h("h1", {}, "Confirm your email address"),
      h("p", {}, "Open the link of the confirmation email here. Signed in, your inbox can send it again."), onward);
  }
  try {
    const confirmed = await api("POST", "/email-confirmation", { body: { code } });
    show(h("h1", {}, "Address confirmed"),
      h("p", { class: "notice", role: "status" }, `${confirmed.email} is confirmed for ${confirmed.name}: sign-in links and game notifications for ${confirmed.name} go there from now on.`),
      onward);
  } catch (error) {
    const why = error.problem?.type === "/problems/too-many-accounts"
      ? "Remove this address from one of the other players first (in their inbox), then open the link again: it still works."
      : "The link may be old or used already. Signed in, your inbox can send a new one.";
    show(h("h1", {}, "The address is not confirmed"), failure(error), h("p", {}, why), onward);
  }
}
