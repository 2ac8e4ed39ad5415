// /: your games (the seats this browser holds and, signed in, your player's), then the
// games waiting for players, being played and finished, filtered by player count,
// rated or not, open to all or not; updated live.
import { api, problemsOnly } from "../api.js";
import { showTurns } from "../attention.js";
import { failure, h, redraw, shortId, show } from "../dom.js";
import { gameItem, gameList } from "../games-list.js";
import { watch } from "../live.js";
import { forgetSeat, player, seats } from "../store.js";
import { seatNumber } from "../words.js";

const STATUSES = [["open", "Waiting for players"], ["running", "Being played"], ["finished", "Finished"]];
const FILTERS = [
  ["players", "Players", [["", "any"], ["2", "2"], ["3", "3"], ["4", "4 (teams)"]]],
  ["rated", "Rated", [["", "any"], ["true", "rated"], ["false", "not rated"]]],
  ["public", "Seats", [["", "any"], ["true", "open to all"], ["false", "by invite"]]],
];

function go(status, game) {
  if (status === "finished") return h("a", { href: `/replay/${game.game_id}` }, "Replay");
  if (status === "open" && game.public) return game.open_seats.map((seat) => h("a", { href: `/play/${game.game_id}?seat=${seat}` }, `Join seat ${seatNumber(seat)}`));
  return h("a", { href: `/play/${game.game_id}` }, status === "open" ? "Look" : "Watch");
}

// The games of this browser's guest seats and of the signed-in player, each as the
// lobby lists a game (`game_id`, `players`, `factions`, `seats`...) with the seat,
// whether it is its turn, and `guest` (a seat whose token this browser holds).
async function yourGames() {
  const held = Object.entries(seats()).slice(-20);
  const views = await Promise.all(held.map(([id, { token }]) => api("GET", `/games/${id}`, { credential: token }).catch(problemsOnly(() => null))));
  const games = new Map();
  held.forEach(([id, { seat }], n) => games.set(id, { game_id: id, players: 0, status: "gone", ...views[n], seat,
    yourTurn: views[n]?.you?.legal.length > 0, guest: true }));
  const me = player();
  if (me) {
    const inbox = await api("GET", "/me/games?limit=20", { credential: me.key }).catch(problemsOnly(() => null));
    for (const entry of inbox?.games ?? []) {
      if (!games.has(entry.game_id)) games.set(entry.game_id, { ...entry, yourTurn: entry.your_turn, guest: false });
    }
  }
  const order = (game) => (game.yourTurn && game.status === "running" ? 0 : { running: 1, open: 2 }[game.status] ?? 3);
  return [...games.values()].sort((a, b) => order(a) - order(b));
}

function yourItem(game, forget) {
  const status = game.status === "gone" ? "no longer on this server" : game.yourTurn && game.status === "running" ? h("strong", {}, "Your turn")
    : `${game.status}, seat ${seatNumber(game.seat)}`;
  return gameItem(game, { what: status, mark: game.yourTurn ? "your-turn" : "", go: [
    game.status === "gone" ? null : h("a", { href: game.status === "finished" || game.status === "aborted" ? `/replay/${game.game_id}` : `/play/${game.game_id}` },
      game.yourTurn ? "Play" : game.status === "finished" ? "Replay" : "Open"),
    game.guest ? h("button", { type: "button", onclick: forget, "aria-label": `Forget seat of game ${shortId(game.game_id)}` }, "Forget this seat") : null] });
}

export default async function lobbyPage() {
  const query = new URLSearchParams(location.search);
  const filters = h("form", { class: "filters row", "aria-label": "filter the games" }, FILTERS.map(([name, label, options]) =>
    h("label", { class: "inline" }, `${label} `, h("select", { name, id: `filter-${name}` }, options.map(([value, text]) =>
      h("option", { value, selected: query.get(name) === value || (!query.get(name) && value === "") }, text))))));
  const yours = h("section", { "aria-labelledby": "lobby-yours" }, h("h2", { id: "lobby-yours" }, "Your games"));
  const lists = STATUSES.map(([status, title]) => h("section", { "aria-labelledby": `lobby-${status}` }, h("h2", { id: `lobby-${status}` }, title), h("p", { class: "muted" }, "Loading…")));
  show(h("h1", {}, "Lobby"), h("p", {}, h("a", { href: "/new", class: "button primary" }, "Start a new game"),
    " against the AI or with friends, who join by the invite links you send them. New here? ", h("a", { href: "/rules" }, "How to play")),
  yours, filters, lists);
  let live = null;
  let versions = new Map();  // your running and open games: the version shown
  let watched = [];

  let yoursAsked = 0;  // answers that come late (overtaken by a later look) are dropped
  async function drawYours() {
    const asked = ++yoursAsked;
    const games = await yourGames();
    if (asked !== yoursAsked) return;
    showTurns(games.filter((game) => game.yourTurn && game.status === "running").length, "Lobby");
    const items = games.map((game) => yourItem(game, () => { forgetSeat(game.game_id); drawYours(); }));
    redraw(yours, h("h2", { id: "lobby-yours" }, "Your games"), gameList("your games", items, "None in this browser yet."));
    versions = new Map(games.filter((game) => game.status === "running" || game.status === "open").map((game) => [game.game_id, game.version]));
    if (live && [...versions.keys()].join() !== watched.join()) live.update({ lobby: true, games: watched = [...versions.keys()] });
  }
  function chosenFilters() {
    const chosen = new URLSearchParams(new FormData(filters));
    for (const [key, value] of [...chosen]) if (!value) chosen.delete(key);
    return chosen;
  }
  let listsAsked = 0;
  async function drawLists() {
    const asked = ++listsAsked;
    const chosen = chosenFilters();
    await Promise.all(STATUSES.map(async ([status, title], n) => {
      const heading = h("h2", { id: `lobby-${status}` }, title);
      try {
        const page = await api("GET", `/games?status=${status}&limit=20${chosen.size ? `&${chosen}` : ""}`);
        if (asked !== listsAsked) return;
        const more = page.total > page.games.length ? h("p", { class: "muted" }, `The newest ${page.games.length} of ${page.total}.`) : "";
        redraw(lists[n], heading, gameList(`${title.toLowerCase()}`, page.games.map((game) => gameItem(game, { go: go(status, game) }))), more);
      } catch (error) { lists[n].replaceChildren(heading, failure(error)); }
    }));
  }
  filters.addEventListener("change", () => {
    const chosen = chosenFilters();
    history.replaceState(null, "", chosen.size ? `/?${chosen}` : "/");
    drawLists();
  });
  await Promise.all([drawYours().catch((error) => yours.append(failure(error))), drawLists()]);
  // Live: a game of yours moved on, the lobby changed, or the connection was made
  // (again): the lobby may have changed before it was, and only versions are stated.
  let pending = null;  // lobby news in a burst: one look
  watched = [...versions.keys()];
  live = watch({ lobby: true, games: watched }, (change) => {
    if (change.type === "game") {
      if (change.version > (versions.get(change.game_id) ?? 0)) drawYours().catch(problemsOnly(() => {}));
      return;
    }
    clearTimeout(pending);
    pending = setTimeout(drawLists, 100);
  });
}
