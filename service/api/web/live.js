// Live changes for a page: which of its games changed, whether the lobby did. Through
// the browser's one shared connection (live-worker.js) where SharedWorker exists, else
// through a stream of this tab's own. `watch({games, lobby}, onChange)` answers a
// handle to `update` what is watched and to `close`; onChange gets {type: "game",
// game_id, version}, {type: "lobby"} or {type: "ready"} (the first: live from now on;
// a later one: connected again, look again).
import { randomId } from "./api.js";
import { changesAddress, openChanges } from "./changes.js";

const WORKER = "/web/live-worker.js";

function ownStream(onChange) {
  let stream = null;
  let asked = "";
  return {
    post: ({ games, lobby }) => {
      const address = changesAddress(games, lobby);
      if (address === asked) return;
      stream?.close();
      asked = address;
      stream = address ? openChanges(address, {
        game: (change) => onChange({ type: "game", ...change }),
        lobby: () => onChange({ type: "lobby" }),
        ready: () => onChange({ type: "ready" }),
        down: () => {},
      }) : null;
    },
    close: () => { stream?.close(); stream = null; asked = ""; },
  };
}

function sharedStream(onChange) {
  let watched = { type: "watch", games: [], lobby: false };
  let port = null;
  const connect = () => {
    port = new SharedWorker(WORKER, { name: "claim-live-2", type: "module" }).port;
    port.onmessage = ({ data }) => onChange(data);
    port.start();
  };
  const bye = () => port?.postMessage({ type: "bye" });
  const back = (event) => {  // back from the back-forward cache: the worker may be gone
    if (!event.persisted) return;
    connect();
    port.postMessage(watched);
    onChange({ type: "ready" });
  };
  addEventListener("pagehide", bye);
  addEventListener("pageshow", back);
  connect();
  // A lock this tab holds while it lives, named to the worker once it is held: the
  // worker lets go of a tab that died without saying bye (a crash, a phone discarding
  // it) when it gets the lock.
  const lock = `claim-tab-${randomId()}`;
  navigator.locks?.request(lock, () => {
    port.postMessage({ type: "lock", lock });
    return new Promise(() => {});
  });
  return {
    post: ({ games, lobby }) => { watched = { ...watched, games, lobby }; port.postMessage(watched); },
    close: () => {
      bye();
      port.close();
      removeEventListener("pagehide", bye);
      removeEventListener("pageshow", back);
    },
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

// The player's own stream (`/me/stream`, JSON lines): `onEvent` gets each event but
// the keep-alives (the first, `state`, on each connection). It connects again after a
// pause when the stream ends or fails (after a minute when refused: the player holds
// as many as they may in other tabs and programs). Answers a handle to `close`.
export function watchPlayer(key, onEvent) {
  let stopped = false;
  let controller = null;
  let timer = null;
  async function connect() {
    controller = new AbortController();
    let pause = 5000;
    try {
      const response = await fetch("/me/stream", { headers: { Authorization: `Bearer ${key}`, Accept: "application/x-ndjson" }, signal: controller.signal });
      if (response.status === 429) pause = 60000;
      if (response.ok) {
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffered = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffered += value;
          const lines = buffered.split("\n");
          buffered = lines.pop();
          for (const line of lines.filter(Boolean)) {
            const event = JSON.parse(line);
            if (event.type !== "keepalive") onEvent(event);
          }
        }
        pause = 1000;
      }
    } catch { /* gone: connect again */ }
    if (!stopped) timer = setTimeout(connect, pause);
  }
  connect();
  return { close: () => { stopped = true; clearTimeout(timer); controller?.abort(); } };
}
