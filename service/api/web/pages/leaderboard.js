// /leaderboard: the ratings of each player count (`/ratings` is the API's).
import { api } from "../api.js";
import { append, failure, h, show } from "../dom.js";

export default async function ratingsPage() {
  const n = +(new URLSearchParams(location.search).get("players") || 2);
  show(h("h1", {}, `Ratings, ${n} players`), h("nav", { "aria-label": "player counts", class: "row" },
    [2, 3, 4].map((k) => h("a", { href: `/leaderboard?players=${k}`, "aria-current": k === n ? "page" : null }, `${k} players`))));
  try {
    const board = await api("GET", `/ratings?players=${n}&limit=100`);
    append(board.standings.length ? h("table", {}, h("thead", {}, h("tr", {}, ["#", "Who", "Rating", "±", "Games"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, board.standings.map((s) => h("tr", {}, h("td", {}, s.rank ?? "–"), h("td", {}, s.kind === "ai" ? `AI ${s.name}` : s.name, standingNote(s)),
        h("td", {}, s.rating.toFixed(2)), h("td", {}, s.uncertainty.toFixed(2)), h("td", {}, s.games))))) : h("p", {}, "No rated game yet."));
    if (board.standings.length > board.ranked) append(h("p", { class: "muted" }, "A player is ranked once they have met five different opponents in rated games; until then they are listed after the ranked, without a number."));
  } catch (error) { append(failure(error)); }
}

function standingNote(s) {
  if (!s.ranked) return ` (not ranked yet: ${s.opponents} of 5 opponents)`;
  return s.provisional ? " (provisional)" : "";
}
