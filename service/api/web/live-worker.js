// The one live connection of this browser, shared by all its tabs of this site: a
// SharedWorker holding one stream of `/changes` for the games every tab watches (and
// the lobby if one shows it). Browsers open at most six connections to a site over
// HTTP/1.1, so a stream per tab would leave a seventh tab's move waiting for ever.
//
// A tab says what it watches: {type: "watch", games: [...], lobby: bool}, and "bye"
// when it goes; {type: "lock", lock} names a Web Lock it holds while it lives, so that
// a tab that died without a word is let go of too. The worker answers {type: "game",
// game_id, version} (a new version, or a finished game's view changed beside it: a
// rematch, ratings), {type: "lobby"}, and {type: "ready"} once the stream is
// connected: a tab's first ready says it is live from then on, a later one that the
// stream connected again (what changed meanwhile beside the versions, such as the
// lobby, is worth a look). On connecting, the server first states every watched
// game's version; a tab that comes while the stream runs is told the newest versions
// the worker heard, then ready. Past the server's limit of games per stream, the
// games of the tabs that spoke last are watched: the page a person just opened.
import { changesAddress, openChanges } from "./changes.js";

const watching = new Map();  // port -> {games, lobby}, the tab that spoke last last
const latest = new Map();  // game id -> the newest version heard
let stream = null;
let asked = "";
let ready = false;  // whether the stream is connected and has stated the versions
let timer = null;

self.onconnect = (event) => {
  const port = event.ports[0];
  port.onmessage = ({ data }) => {
    if (data.type === "lock") {
      navigator.locks?.request(data.lock, () => { watching.delete(port); settle(); });
      return;
    }
    watching.delete(port);
    if (data.type === "watch") {
      watching.set(port, { games: data.games, lobby: data.lobby });
      if (wanted() === asked && ready) catchUp(port, data.games);
    }
    settle();
  };
};

function settle() {
  clearTimeout(timer);
  timer = setTimeout(connect, 20);  // the tabs of a page load settle first
}

// A tab that joins a running stream: what it would have been told on connecting.
function catchUp(port, games) {
  for (const game of games) if (latest.has(game)) port.postMessage({ type: "game", game_id: game, version: latest.get(game) });
  port.postMessage({ type: "ready" });
}

function tell(message, wants) {
  for (const [port, watched] of watching) if (wants(watched)) port.postMessage(message);
}

function wanted() {
  const newestFirst = [...watching.values()].reverse();
  const games = [...new Set(newestFirst.flatMap((watched) => watched.games))];
  return changesAddress(games, newestFirst.some((watched) => watched.lobby));
}

function connect() {
  const address = wanted();
  if (address === asked) return;
  stream?.close();
  stream = null;
  ready = false;
  asked = address;
  if (!address) return;
  stream = openChanges(address, {
    game: (change) => {
      latest.set(change.game_id, Math.max(latest.get(change.game_id) ?? 0, change.version));
      tell({ type: "game", ...change }, (watched) => watched.games.includes(change.game_id));
    },
    lobby: () => tell({ type: "lobby" }, (watched) => watched.lobby),
    ready: () => { ready = true; tell({ type: "ready" }, () => true); },
    down: () => { ready = false; },
  });
}
