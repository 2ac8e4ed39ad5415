// /leaderboard: the ratings of each player count (`/ratings` is the API's).
import { api } from "../api.js";
import { append, failure, h, show } from "../dom.js";

// Who is listed: everybody, people and AI levels only, or the bots' accounts only.
const FILTERS = [["", "Everybody"], ["exclude", "No bots"], ["only", "Bots only"]];

export default async function ratingsPage() {
  const query = new URLSearchParams(location.search);
  const n = +(query.get("players") || 2);
  const bots = FILTERS.some(([value]) => value === query.get("bots")) ? query.get("bots") : "";
  const at = (k, b) => `/leaderboard?players=${k}${b ? `&bots=${b}` : ""}`;
  show(h("h1", {}, `Ratings, ${n} players`), h("nav", { "aria-label": "player counts", class: "row" },
    [2, 3, 4].map((k) => h("a", { href: at(k, bots), "aria-current": k === n ? "page" : null }, `${k} players`))),
  h("nav", { "aria-label": "bots", class: "row" },
    FILTERS.map(([value, text]) => h("a", { href: at(n, value), "aria-current": value === bots ? "page" : null }, text))));
  try {
    const board = await api("GET", `/ratings?players=${n}&limit=100${bots ? `&bots=${bots}` : ""}`);
    append(board.standings.length ? h("table", {}, h("thead", {}, h("tr", {}, ["#", "Who", "Rating", "±", "Games"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, board.standings.map((s) => h("tr", {}, h("td", {}, s.rank ?? "–"), h("td", {}, s.kind === "ai" ? `AI ${s.name}` : s.name, s.bot ? h("span", { class: "badge bot" }, "bot") : null, standingNote(s)),
        h("td", {}, s.rating.toFixed(2)), h("td", {}, s.uncertainty.toFixed(2)), h("td", {}, s.games))))) : h("p", {}, "No rated game yet."));
    if (board.standings.length > board.ranked) append(h("p", { class: "muted" }, "A player is ranked once they have met five different opponents in rated games; until then they are listed after the ranked, without a number."));
  } catch (error) { append(failure(error)); }
}

function standingNote(s) {
  if (!s.ranked) return ` (not ranked yet: ${s.opponents} of 5 opponents)`;
  return s.provisional ? " (provisional)" : "";
}
