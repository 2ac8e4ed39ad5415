// What this browser keeps, in localStorage of the server's origin (no other site reads
// it; the secrets in it are only ever sent in an Authorization header):
//   claim.seats   game id -> {seat, token}: the seats taken here as a guest
//   claim.player  {id, key, name}: the registered player signed in here
//   claim.visits  game id -> {version, rounds}: what the table showed last, for
//                 "since your last visit"
//   claim.sound   whether a sound says it is your turn
//   claim.invites game id -> [{seat, url}]: the invite links of a game made here, until
//                 its seats are taken (they are shown once by the server)
//   claim.name    the name last taken a seat with, offered again
//   claim.heads   game id -> {seat, moves: {version: [hash, decision]}, seen: [version,
//                 hash]}: the head (version, hash of the log) the server answered to
//                 each move of the seat played here, and the newest its table showed,
//                 checked against the final log when the game ends (proof.js)
function load(key, fallback) {
  try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch { return fallback; }
}
function save(key, value) {
  if (value == null) localStorage.removeItem(key); else localStorage.setItem(key, JSON.stringify(value));
}

export const seats = () => load("claim.seats", {});
// `kept`: a guest seat that could not be made the player's, not offered again.
export function keepSeat(gameId, seat, token, { kept = false } = {}) {
  save("claim.seats", { ...seats(), [gameId]: kept ? { seat, token, kept } : { seat, token } });
}
export function forgetSeat(gameId) { const all = seats(); delete all[gameId]; save("claim.seats", all); }

export const player = () => load("claim.player", null);
export function keepPlayer(me) { save("claim.player", me); }
export function forgetPlayer() { save("claim.player", null); }

// The credential that opens `gameId` here: its guest seat's token, else the player key.
export function credentialFor(gameId) { return seats()[gameId]?.token ?? player()?.key ?? null; }

// `value` kept as game `gameId`'s in the map of `key`, newest last, the oldest dropped
// past `most` games.
function keepNewest(key, gameId, value, most) {
  const all = load(key, {});
  delete all[gameId];
  all[gameId] = value;
  const ids = Object.keys(all);
  for (const old of ids.slice(0, Math.max(0, ids.length - most))) delete all[old];
  save(key, all);
}

const VISITS_KEPT = 200;  // games remembered
export function lastVisit(gameId) { return load("claim.visits", {})[gameId] ?? null; }
export function keepVisit(gameId, visit) { keepNewest("claim.visits", gameId, visit, VISITS_KEPT); }

export const invitesOf = (gameId) => load("claim.invites", {})[gameId] ?? [];
export function keepInvites(gameId, links) {
  const all = load("claim.invites", {});
  if (links.length) all[gameId] = links; else delete all[gameId];
  save("claim.invites", all);
}

export const lastName = () => load("claim.name", "");
export function keepName(name) { save("claim.name", name); }

export const soundOn = () => load("claim.sound", false);
export function keepSound(on) { save("claim.sound", on); }

const HEADS_KEPT = 100;  // games remembered
export const keptHeads = (gameId) => load("claim.heads", {})[gameId] ?? null;
// Keep the head the server answered to `seat`'s `decision`, or (none) the newest head
// the table of `seat` showed.
export function keepHead(gameId, seat, { version, hash }, decision = null) {
  const kept = keptHeads(gameId) ?? { seat, moves: {}, seen: null };
  if (decision) kept.moves[version] = [hash, decision];
  else if (!kept.seen || kept.seen[0] < version) kept.seen = [version, hash];
  else return;
  keepNewest("claim.heads", gameId, kept, HEADS_KEPT);
}
