// Who leads each faction, and the result of a game that has ended: for the table and
// the replay.
import { factionChip } from "./cards.js";
import { h, panel } from "./dom.js";
import { factionName } from "./factions.js";
import { Who, sideName, sideShort } from "./words.js";

// Who leads each faction now, by the rules' count (RULES.md 7): most cards, then the
// higher values from the top, Gnomes in front counted as they will be at the end.
// Shown only: the server scores the game.
function leaders(view) {
  const table = view.table;
  const sides = view.players === 4 ? [[0, 2], [1, 3]] : view.seats.map((_, seat) => [seat]);
  const won = (seat) => [...table.score_piles[seat], ...table.gnomes_in_front[seat]];
  const piles = sides.map((side) => side.flatMap(won));
  return view.factions.map((faction) => {
    const keys = piles.map((pile) => pile.filter((c) => c.startsWith(faction)).map((c) => +c.slice(2)).sort((a, b) => b - a));
    const compare = (a, b) => a.length - b.length || a.reduce((d, v, i) => d || v - b[i], 0);
    const best = keys.reduce((top, key, side) => (top == null || compare(key, keys[top]) > 0 ? side : top), null);
    const tied = keys.filter((key) => compare(key, keys[best]) === 0).length > 1;
    return { faction, side: keys[best].length === 0 || tied ? null : best, counts: keys.map((k) => k.length) };
  });
}

export function factionsPanel(view, me) {
  const rows = leaders(view).map(({ faction, side, counts }) => h("tr", {},
    h("th", { scope: "row" }, factionChip(faction, view.players)),
    h("td", {}, side == null ? "nobody" : sideShort(view, side, me)),
    h("td", {}, counts.join(" / "))));
  const sides = (view.players === 4 ? [0, 1] : view.seats.map((_, seat) => seat)).map((side) => sideShort(view, side, me));
  const over = view.result != null;  // scored: played to the end
  return panel("Factions", h("p", { class: "muted small" }, "The game goes to whoever wins the most factions. Press a faction for its power."),
    h("table", { class: "factions" }, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Faction"), h("th", { scope: "col" }, over ? "Won by" : view.ending ? "Led at the end" : "Leads now"),
      h("th", { scope: "col" }, `Cards: ${sides.join(" / ")}`))), h("tbody", {}, rows)));
}

// `proof`: what the table says of its seat's moves in the final log (proof.js).
export function resultPanel(view, me, proof = null) {
  if (!view.ending) return null;
  const ending = view.ending;
  const won = ending.winners.length ? ending.winners.map((side) => sideName(view, side, me)).join(" and ") : "nobody (a draw)";
  const mine = me != null && ending.winning_seats.includes(me);
  const headline = ending.reason === "aborted" ? "The game was called off."
    : me != null && ending.winners.length ? (mine ? `You won${won === "You" ? "" : `: ${won}`}!` : `You lost. Winner: ${won}.`) : `Winner: ${won}.`;
  const lines = [h("p", { class: "turn" }, headline),
    ending.seat != null ? h("p", {}, `${Who(view, ending.seat, me)} ${ending.reason}.`) : null, proof];
  if (view.result) {
    lines.push(h("table", { "aria-label": "factions won" }, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Faction"), h("th", { scope: "col" }, "Won by"))),
      h("tbody", {}, Object.entries(view.result.faction_winners).map(([f, side]) => h("tr", {},
        h("td", {}, factionName(f)), h("td", {}, side == null ? "nobody" : sideName(view, side, me)))))));
    lines.push(h("table", { "aria-label": "scoring by side" }, h("thead", {}, h("tr", {}, ["Side", "Factions won", "Cards in them", "Sum of their values"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, view.result.side_keys.map((key, side) => h("tr", {}, h("td", {}, sideName(view, side, me)), key.map((n) => h("td", {}, n)))))));
  }
  if (view.ratings) {
    lines.push(h("ul", { "aria-label": "rating changes" }, view.ratings.map((r) => h("li", {},
      `${Who(view, r.seat, me)}: ${r.rating_before.toFixed(2)} → ${r.rating_after.toFixed(2)} (${r.change >= 0 ? "+" : ""}${r.change.toFixed(2)})`))));
  }
  return h("section", { class: `panel result${mine ? " won" : ""}`, "aria-labelledby": "p-result" }, h("h2", { id: "p-result" }, "Result"), lines);
}
