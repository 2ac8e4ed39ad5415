// The one live connection of this browser, shared by all its tabs of this site: a
// SharedWorker holding one stream of `/changes` for the games every tab watches (and
// the lobby if one shows it). Browsers open at most six connections to a site over
// HTTP/1.1, so a stream per tab would leave a seventh tab's move waiting for ever.
//
// A tab says what it watches: {type: "watch", games: [...], lobby: bool}, and "bye"
// when it goes. The worker answers {type: "game", game_id, version} (a new version, or
// a finished game's view changed beside it: a rematch, ratings), {type: "lobby"}, and
// {type: "ready"} once the stream is connected: a tab's first ready says it is live
// from then on, a later one that the stream connected again (what changed meanwhile
// beside the versions, such as the lobby, is worth a look). On connecting, the server
// first states every watched game's version; a tab that comes while the stream runs
// is told the newest versions the worker heard, then ready.
const MAX_GAMES = 50;  // the server's limit per stream
const watching = new Map();  // port -> {games: string[], lobby: boolean}
const latest = new Map();  // game id -> the newest version heard
let source = null;
let ready = false;  // whether `source` is connected and has stated the versions
let asked = "";
let pause = 1000;
let timer = null;

self.onconnect = (event) => {
  const port = event.ports[0];
  watching.set(port, { games: [], lobby: false });
  port.onmessage = ({ data }) => {
    if (data.type === "bye") watching.delete(port);
    else if (data.type === "watch") {
      watching.set(port, { games: data.games, lobby: data.lobby });
      if (wantedNow() === asked && source && ready) catchUp(port, data.games);
    }
    clearTimeout(timer);
    timer = setTimeout(connect, 20);  // the tabs of a page load settle first
  };
};

// A tab that joins a running stream: what it would have been told on connecting.
function catchUp(port, games) {
  for (const game of games) if (latest.has(game)) port.postMessage({ type: "game", game_id: game, version: latest.get(game) });
  port.postMessage({ type: "ready" });
}

function tell(message, wants) {
  for (const [port, watched] of watching) if (wants(watched)) port.postMessage(message);
}

function wantedNow() {
  const games = [...new Set([...watching.values()].flatMap((watched) => watched.games))].slice(0, MAX_GAMES).sort();
  const lobby = [...watching.values()].some((watched) => watched.lobby);
  const query = new URLSearchParams({ max_seconds: "3600" });
  if (games.length) query.set("games", games.join(","));
  if (lobby) query.set("lobby", "true");
  return games.length || lobby ? `/changes?${query}` : "";
}

function connect() {
  const wanted = wantedNow();
  if (wanted === asked && source) return;
  source?.close();
  source = null;
  ready = false;
  asked = wanted;
  if (!wanted) return;
  const stream = new EventSource(wanted);
  source = stream;
  stream.addEventListener("game", (event) => {
    const change = JSON.parse(event.data);
    latest.set(change.game_id, Math.max(latest.get(change.game_id) ?? 0, change.version));
    tell({ type: "game", ...change }, (watched) => watched.games.includes(change.game_id));
  });
  stream.addEventListener("lobby", () => tell({ type: "lobby" }, (watched) => watched.lobby));
  stream.addEventListener("ready", () => { pause = 1000; ready = true; tell({ type: "ready" }, () => true); });
  stream.onerror = () => {
    if (stream !== source) return;
    ready = false;
    // EventSource reconnects by itself after a dropped connection; after an error
    // answer (429: too many watches) it gives up, and this tries again, slower each time.
    if (stream.readyState !== EventSource.CLOSED) return;
    source = null;
    asked = "";
    setTimeout(connect, pause);
    pause = Math.min(pause * 2, 60_000);
  };
}
