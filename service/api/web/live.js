// Live changes for a page: which of its games changed, whether the lobby did. Through
// the browser's one shared connection (live-worker.js) where SharedWorker exists, else
// through a stream of this tab's own. `watch({games, lobby}, onChange)` answers a
// handle to `update` what is watched; onChange gets {type: "game", game_id, version},
// {type: "lobby"} or {type: "ready"} (after each (re)connection: look again).
const WORKER = "/web/live-worker.js";

function ownStream(onChange) {
  let source = null;
  let pause = 1000;
  const open = (games, lobby) => {
    source?.close();
    const query = new URLSearchParams({ max_seconds: "3600" });
    if (games.length) query.set("games", games.join(","));
    if (lobby) query.set("lobby", "true");
    if (!games.length && !lobby) { source = null; return; }
    const stream = new EventSource(`/changes?${query}`);
    source = stream;
    stream.addEventListener("game", (event) => onChange({ type: "game", ...JSON.parse(event.data) }));
    stream.addEventListener("lobby", () => onChange({ type: "lobby" }));
    stream.addEventListener("ready", () => { pause = 1000; onChange({ type: "ready" }); });
    stream.onerror = () => {
      if (stream !== source || stream.readyState !== EventSource.CLOSED) return;
      setTimeout(() => { if (stream === source) open(games, lobby); }, pause);
      pause = Math.min(pause * 2, 60_000);
    };
  };
  return { post: ({ games, lobby }) => open(games, lobby), close: () => { source?.close(); source = null; } };
}

function sharedStream(onChange) {
  const worker = new SharedWorker(WORKER, { name: "claim-live-1" });
  worker.port.onmessage = ({ data }) => onChange(data);
  worker.port.start();
  let watched = { type: "watch", games: [], lobby: false };
  const post = (message) => worker.port.postMessage(message);
  addEventListener("pagehide", () => post({ type: "bye" }));
  addEventListener("pageshow", (event) => {  // back from the back-forward cache
    if (event.persisted) { post(watched); onChange({ type: "ready" }); }
  });
  return {
    post: ({ games, lobby }) => { watched = { type: "watch", games, lobby }; post(watched); },
    close: () => post({ type: "bye" }),
  };
}

export function watch({ games = [], lobby = false }, onChange) {
  let channel;
  try { channel = typeof SharedWorker === "function" ? sharedStream(onChange) : ownStream(onChange); } catch { channel = ownStream(onChange); }
  channel.post({ games, lobby });
  return {
    update: (watched) => channel.post({ games: watched.games ?? [], lobby: watched.lobby ?? false }),
    close: () => channel.close(),
  };
}
