// The Claim web client: plain modules, no build, no framework, nothing from another host.
// Every page is drawn from the JSON API with what this browser holds (store.js); the
// page only ever receives what the API gives its seat or the public. This module reads
// the path and loads that page's module only.
import { failure, h, show } from "./dom.js";

const ROUTES = [
  [/^\/$/, "lobby"], [/^\/new$/, "new"], [/^\/play\/([^/]+)$/, "play"], [/^\/replay\/([^/]+)$/, "replay"],
  [/^\/inbox$/, "inbox"], [/^\/leaderboard$/, "leaderboard"], [/^\/rules$/, "rules"], [/^\/sign-in$/, "sign-in"],
];

for (const [pattern, name] of ROUTES) {
  const match = location.pathname.match(pattern);
  if (!match) continue;
  for (const link of document.querySelectorAll("header nav a")) {
    if (link.getAttribute("href") === location.pathname) link.setAttribute("aria-current", "page");
  }
  import(`./pages/${name}.js`)
    .then((page) => page.default(...match.slice(1).map(decodeURIComponent)))
    .catch((error) => show(h("h1", {}, "Something went wrong"), failure(error)));
  break;
}
