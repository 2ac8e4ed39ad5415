// The Claim web client: plain modules, no build, no framework, nothing from another host.
// Every page is drawn from the JSON API with what this browser holds (store.js); the
// page only ever receives what the API gives its seat or the public. This module reads
// the path and loads that page's module only.
import { failure, h, show } from "./dom.js";

const ROUTES = [
  [/^\/$/, "lobby"], [/^\/new$/, "new"], [/^\/play\/([^/]+)$/, "play"], [/^\/replay\/([^/]+)$/, "replay"],
  [/^\/inbox$/, "inbox"], [/^\/leaderboard$/, "leaderboard"], [/^\/rules$/, "rules"], [/^\/sign-in$/, "sign-in"],
  [/^\/confirm-email$/, "confirm-email"],
];

// The service worker shows pushes with the page closed (sw.js); where there is none (an
// old browser, a private window), the page works as before.
navigator.serviceWorker?.register("/sw.js").catch(() => {});

const route = ROUTES.find(([pattern]) => pattern.test(location.pathname));
if (route) {
  const [pattern, name] = route;
  for (const link of document.querySelectorAll("header nav a")) {
    if (link.getAttribute("href") === location.pathname) link.setAttribute("aria-current", "page");
  }
  import(`./pages/${name}.js`)
    .then((page) => page.default(...location.pathname.match(pattern).slice(1).map(decodeURIComponent)))
    .catch((error) => show(h("h1", {}, error.status === 404 ? "Not found" : "Something went wrong"), failure(error),
      h("p", {}, h("a", { href: "/" }, "Go to the lobby"), ".")));
} else {
  show(h("h1", {}, "No such page"), h("p", {}, `There is nothing at ${location.pathname}. `, h("a", { href: "/" }, "Go to the lobby"), "."));
}
