// One stream of `GET /changes`: which of some games changed (and the lobby), for the
// shared worker (live-worker.js) and for a tab without one (live.js). EventSource
// reconnects by itself after a dropped connection, but gives up after an error answer
// (429: too many watches from this address): then this opens it again, slower each
// time, until it is connected again.
const MAX_GAMES = 50;  // the server's limit per stream

// The stream's address for `games` (at most MAX_GAMES) and the lobby; "" for nothing.
export function changesAddress(games, lobby) {
  const query = new URLSearchParams({ max_seconds: "3600" });
  if (games.length) query.set("games", games.slice(0, MAX_GAMES).join(","));
  if (lobby) query.set("lobby", "true");
  return games.length || lobby ? `/changes?${query}` : "";
}

// Open `address`; `on.game(change)`, `on.lobby()`, `on.ready()` as the server tells,
// `on.down()` when the connection broke. Answers `close()`.
export function openChanges(address, on) {
  let source = null;
  let pause = 1000;
  let retry = null;
  const open = () => {
    const stream = new EventSource(address);
    source = stream;
    stream.addEventListener("game", (event) => on.game(JSON.parse(event.data)));
    stream.addEventListener("lobby", () => on.lobby());
    stream.addEventListener("ready", () => { pause = 1000; on.ready(); });
    stream.onerror = () => {
      on.down();
      if (stream.readyState !== EventSource.CLOSED) return;  // it reconnects by itself
      retry = setTimeout(open, pause);
      pause = Math.min(pause * 2, 60_000);
    };
  };
  open();
  return { close: () => { clearTimeout(retry); source.close(); } };
}
