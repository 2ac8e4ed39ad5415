// Games as a list a person scans on any screen (no table to scroll sideways): what is
// played, by whom, and the one thing to do with it. For the lobby and the inbox.
import { h, shortId } from "./dom.js";
import { factionName } from "./factions.js";

function seatText(seat) {
  if (seat.kind === "ai") return `AI (${seat.level})`;
  if (seat.bot) return `${seat.name} (bot)`;
  return seat.name ?? "open seat";
}

function playersText(seats) { return seats.map(seatText).join(", "); }

// One game: `what` (the status to show), `go` (links or buttons).
export function gameItem(game, { what = null, go = null, mark = "" } = {}) {
  return h("li", { class: `game-item ${mark}`.trim(), "data-game": game.game_id },
    h("div", { class: "game-what" }, game.players ? h("strong", {}, `${game.players} players`) : null,
      game.factions?.length ? ` · ${game.factions.map(factionName).join(", ")}` : "",
      game.rated ? h("span", { class: "badge" }, "rated") : null, game.public ? h("span", { class: "badge" }, "open to all") : null),
    h("div", { class: "game-who" }, playersText(game.seats ?? []), h("span", { class: "game-id muted", title: game.game_id }, ` · ${shortId(game.game_id)}`)),
    what ? h("div", { class: "game-status" }, what) : null,
    go ? h("div", { class: "game-go" }, go) : null);
}

export function gameList(label, items, empty = "none") {
  return items.length ? h("ul", { class: "games", "aria-label": label }, items) : h("p", { class: "muted" }, empty);
}
