// A finished game's export (GET /games/{id}/export) checked in the browser, as
// `claim verify-export` checks it offline (service/games/export.py), from nothing but
// the export, the server's public keys and the rules:
//
// 1. the chain: each line's hash is sha256 of the hash before it and the line's
//    canonical bytes (chain.js), from the game id on;
// 2. the seal: the last line signs the game id, the last version and its hash with
//    the server's Ed25519 key (WebCrypto), of the id it names;
// 3. the deck: sha256(salt || deck) is the commitment published before the first card;
// 4. the rules: every event folded as the server folds it (seats taken before the
//    game starts, decisions in turn, resignations, timeouts), every decision replayed
//    by this client's own rules engine (rules.js).
//
// A line holds the fields of its kind and no other (the chain would not cover one more).
// The verdict names the first bad line (from 1, blank lines not counted) and why, in
// the CLI's words. `changedHeads` then compares the heads a seat kept while it played.
import { Float, PRIVATE, canonicalEvent, canonicalJson, concat, fromHex, genesis, hex, link, parseJson, sha256, utf8 } from "./chain.js";
import { IllegalDecision, InvalidGame, MalformedDecision, Replay, parseDecision, sideOf, sides } from "./rules.js";

const SEAL = "seal";
const SEAL_CONTEXT = "claim-seal/1\n";
const AI_LEVELS = ["random", "greedy", "expert"];
const MAX_TIMEOUT_LIMIT = 10;
const POLICIES = ["forfeit", ...["ai", "takeover"].flatMap((mode) => AI_LEVELS.map((level) => `${mode}:${level}`))];
const HEX64 = /^[0-9a-f]{64}$/;

// A line that is no event of its version (its reason said as the CLI says it).
class NotAnEvent extends Error {}
// What the fold's seat rules or the rules engine refuse, at an event.
class Refused extends Error {}

class Verdict {
  constructor(line, reason, found = {}) {
    this.line = line;  // the first bad line, null if none
    this.reason = reason;
    Object.assign(this, found);  // what was read: gameId, seal, hashes, events, log, creation, ending...
  }

  get ok() { return this.line === null; }
}

// Split an export into its lines as the CLI does (bytes.splitlines: \n, \r, \r\n) and
// leave out the blank ones; each line decoded as strict UTF-8 later.
function splitLines(bytes) {
  const lines = [];
  let start = 0;
  for (let at = 0; at <= bytes.length; at++) {
    const byte = bytes[at];
    if (at < bytes.length && byte !== 10 && byte !== 13) continue;
    lines.push(bytes.subarray(start, at));
    if (byte === 13 && bytes[at + 1] === 10) at++;
    start = at + 1;
  }
  if (lines.length && !lines.at(-1).length) lines.pop();
  const blank = (line) => line.every((byte) => byte === 32 || (byte >= 9 && byte <= 13));
  return lines.filter((line) => !blank(line));
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function parseLine(bytes) {
  const text = strictUtf8.decode(bytes);  // a TypeError for bytes that are not UTF-8
  if (text.startsWith("\ufeff")) throw new Error("a byte order mark");
  return parseJson(text);
}

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const isInt = (value) => (typeof value === "number" && Number.isInteger(value)) || typeof value === "bigint";
const isSeat = (value) => isInt(value) && value >= 0 && value <= 3;
const isText = (value, longest) => typeof value === "string" && [...value].length >= 1 && [...value].length <= longest;
const isLimit = (value) => value === null || (isInt(value) && value >= 1);
const isDays = (value) => isInt(value) && value >= 0 && value <= 366;
const isAwareTime = (value) => isIsoTime(value) && /[T ].*(?:Z|[+-]\d{2}(?::?\d{2})?)$/.test(value);

// Bytes from hex as Python's bytes.fromhex reads it (whitespace between pairs allowed).
function hexBytes(text) {
  const pairs = typeof text === "string" ? text.match(/^(?:\s*[0-9a-fA-F]{2})*\s*$/) && text.replace(/\s/g, "") : null;
  if (pairs == null) throw new NotAnEvent("salt: not hex");
  return fromHex(pairs);
}

// Base64 as Python's b64decode(validate=True) reads it; null if it is none.
function base64Bytes(text) {
  if (typeof text !== "string" || text.length % 4 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  try { return Uint8Array.from(atob(text), (char) => char.charCodeAt(0)); } catch { return null; }
}

// The data of each event type, checked as the server's schemas read it (codec.py):
// exactly the keys it has, each of its type. Older schema versions are upcast first.
const fits = (data, required, optional = []) => {
  const keys = Object.keys(data);
  return required.every((key) => keys.includes(key)) && keys.every((key) => required.includes(key) || optional.includes(key));
};
const UPCASTS = {
  GameCreated: [null, (data) => ({ ...data, timeout_policy: "ai:greedy", join_time_limit: null }), (data) => ({ ...data, rated: false }),
    (data) => ({ ...data, timeout_limit: 1, final_timeout_policy: "takeover" })],
  SeatJoined: [null, (data) => ({ ...data, player: null })],
  SeatRegistered: [null, (data) => ({ ...data, player_salt: null })],
};
const SCHEMAS = {
  GameCreated: { version: 4, read: readCreation },
  SeatJoined: { version: 2, read: (d) => fits(d, ["seat", "name", "token_hash", "player"]) && isSeat(d.seat) && isText(d.name, 64) },
  SeatRegistered: { version: 2, read: readRegistration },
  DecisionMade: { version: 1, read: readDecision },
  GameResigned: { version: 1, read: (d) => fits(d, ["seat"]) && isSeat(d.seat) },
  TurnTimedOut: { version: 1, read: (d) => fits(d, ["seat", "policy"]) && isSeat(d.seat) && POLICIES.includes(d.policy) },
  SeatReturned: { version: 1, read: (d) => fits(d, ["seat"]) && isSeat(d.seat) },
  BreakTaken: { version: 1, read: (d) => fits(d, ["seat", "until", "days_used", "days_allowed"]) && isSeat(d.seat) && isAwareTime(d.until) && isDays(d.days_used) && isDays(d.days_allowed) },
  BreakEnded: { version: 1, read: (d) => fits(d, ["seat"]) && isSeat(d.seat) },
  GameAborted: { version: 1, read: (d) => fits(d, ["reason"]) && isText(d.reason, 500) },
};

function readRegistration(data) {
  const salt = data.player_salt;
  return fits(data, ["seat", "player", "player_salt"]) && isSeat(data.seat) && isText(data.player, 64)
    && (salt === null || (typeof salt === "string" && HEX64.test(salt)));
}

function readDecision(data) {
  if (!(fits(data, ["seat", "decision"], ["timeout_policy"]) && isSeat(data.seat))) return false;
  const policy = data.timeout_policy ?? null;
  if (!(policy === null || POLICIES.includes(policy))) return false;
  try { parseDecision(data.decision); } catch (error) {
    if (error instanceof MalformedDecision) throw new NotAnEvent(`decision: ${error.message}`);
    throw error;
  }
  return true;
}

function readCreation(data) {
  const required = ["settings", "seats", "deck", "salt", "commitment", "timeout_policy", "join_time_limit", "rated", "timeout_limit", "final_timeout_policy"];
  if (!fits(data, required, ["move_time_limit"])) return false;
  const { settings, seats, deck, commitment } = data;
  if (!(isObject(settings) && fits(settings, ["players", "factions", "first_leader"]) && isInt(settings.players) && isInt(settings.first_leader))) return false;
  if (!(Array.isArray(settings.factions) && settings.factions.every((code) => typeof code === "string"))) return false;
  if (!(Array.isArray(seats) && seats.length === settings.players && seats.every(isSeatSpec))) return false;
  if (!(typeof commitment === "string" && HEX64.test(commitment) && POLICIES.includes(data.timeout_policy))) return false;
  if (!(isLimit(data.move_time_limit ?? null) && isLimit(data.join_time_limit) && typeof data.rated === "boolean")) return false;
  if (!(isInt(data.timeout_limit) && data.timeout_limit >= 1 && data.timeout_limit <= MAX_TIMEOUT_LIMIT && ["takeover", "forfeit"].includes(data.final_timeout_policy))) return false;
  hexBytes(data.salt);
  try {
    new Replay({ players: Number(settings.players), factions: settings.factions, firstLeader: Number(settings.first_leader) }, deck);
  } catch (error) {
    if (error instanceof InvalidGame) throw new NotAnEvent(error.message);
    throw error;
  }
  return true;
}

function isSeatSpec(spec) {
  if (!(isObject(spec) && fits(spec, ["kind"], ["level", "invite_hash"]))) return false;
  const level = spec.level ?? null;
  const invite = spec.invite_hash ?? null;
  if (!["human", "ai"].includes(spec.kind) || (spec.kind === "ai") !== (level !== null)) return false;
  return (level === null || AI_LEVELS.includes(level)) && (invite === null || (typeof invite === "string" && HEX64.test(invite)));
}

// What a JSON value is, in the CLI's words (service/events/shapes.py).
function kindOf(value) {
  if (value === null) return "null";
  if (typeof value === "string") return "a string";
  if (typeof value === "boolean") return "true or false";
  if (isInt(value)) return "an integer";
  if (Array.isArray(value)) return "a list";
  return isObject(value) && !(value instanceof Float) ? "an object" : "a number";
}

// Exactly these fields, each of its kind ("a string"...), in the CLI's words; else
// `refusal(reason)` is thrown. A field more is refused: the chain would not cover it.
function checkFields(value, fields, refusal) {
  if (kindOf(value) !== "an object") throw refusal(`not an object but ${kindOf(value)}`);
  const missing = Object.keys(fields).find((field) => !Object.hasOwn(value, field));
  if (missing !== undefined) throw refusal(`no '${missing}'`);
  const unknown = Object.keys(value).find((field) => !Object.hasOwn(fields, field));
  if (unknown !== undefined) throw refusal(`an unknown field '${unknown}'`);
  const wrong = Object.keys(fields).find((field) => kindOf(value[field]) !== fields[field]);
  if (wrong !== undefined) throw refusal(`'${wrong}' is ${kindOf(value[wrong])}, not ${fields[wrong]}`);
}

const EVENT_FIELDS = { version: "an integer", id: "a string", type: "a string", v: "an integer", at: "a string", data: "an object" };
const SEAL_FIELDS = { game_id: "a string", version: "an integer", hash: "a string", key_id: "a string", signature: "a string" };

// An export line's event: {version, type, data}, its data readable by the fold. The
// private values, digested in an export, stand in as placeholders no rule looks at.
function readEvent(line, version) {
  const fields = isObject(line) ? Object.fromEntries(Object.entries(line).filter(([field]) => field !== "hash")) : line;
  checkFields(fields, EVENT_FIELDS, (reason) => new NotAnEvent(reason));
  if (line.version !== version) throw new NotAnEvent(`it says version ${canonicalJson(line.version)}`);
  const schema = Object.hasOwn(SCHEMAS, line.type) ? SCHEMAS[line.type] : null;
  if (!schema) throw new NotAnEvent(`unknown event type '${line.type}'`);  // as Python quotes it
  if (!(isInt(line.v) && line.v >= 1 && line.v <= schema.version)) throw new NotAnEvent(`unknown version ${canonicalJson(line.v)} of ${line.type}`);
  let data = Object.fromEntries(Object.entries(line.data).filter(([key]) => key !== PRIVATE));
  if (line.type === "SeatJoined") data = { ...data, token_hash: "0".repeat(64), player: null };
  if (line.type === "SeatRegistered") data = { ...data, player: "private", player_salt: null };
  for (let old = Number(line.v); old < schema.version; old++) data = UPCASTS[line.type][old](data);
  if (!schema.read(data)) throw new NotAnEvent(`its data does not fit ${line.type}`);
  if (!isIsoTime(line.at)) throw new NotAnEvent(`Invalid isoformat string: '${line.at}'`);
  if (!isUuid(line.id)) throw new NotAnEvent("badly formed hexadecimal UUID string");
  return { version, type: line.type, data };
}

function isIsoTime(text) {
  const match = typeof text === "string"
    && text.match(/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,]\d{1,6})?)?)?(?:Z|[+-]\d{2}(?::?\d{2}(?::?\d{2}(?:\.\d{1,6})?)?)?)?)?$/);
  if (!match) return false;
  const [, year, month, day, hour = "0", minute = "0", second = "0"] = match;
  const date = new Date(Date.UTC(+year, +month - 1, +day));
  return date.getUTCMonth() === +month - 1 && date.getUTCDate() === +day && +hour < 24 && +minute < 60 && +second < 60 && +year >= 1;
}

function isUuid(text) {
  if (typeof text !== "string") return false;
  const bare = text.replace("urn:", "").replace("uuid:", "").replace(/^[{}]+|[{}]+$/g, "").replaceAll("-", "");
  return /^[0-9a-fA-F]{32}$/.test(bare);
}

// The game the events tell, folded as the server folds them (service/events/fold.py):
// who sits where, whether it runs, the rules engine's replay and how it ended.
class Fold {
  constructor(gameId) {
    this.gameId = gameId;
    this.replay = null;
    this.seats = null;
    this.decisions = 0;
    this.ending = null;
  }

  apply({ version, type, data }) {
    if (this.replay === null || type === "GameCreated") {
      if (this.replay !== null || type !== "GameCreated" || version !== 1) throw new Refused("a game is created once, by its first event");
      return this.#created(data);
    }
    if (type === "SeatJoined") return this.#joined(data);
    if (type === "SeatRegistered") return this.#registered(data);
    if (type === "GameAborted") {
      this.#checkNotOver();
      this.ending = { reason: "aborted", seat: null, winners: [] };
      return;
    }
    this.#checkRunning();
    const seat = Number(data.seat);
    if (type === "DecisionMade") return this.#decided(seat, data);
    if (type === "GameResigned") {
      if (seat >= this.players) throw new Refused(`there is no seat ${seat}`);
      return this.#lostBy("resigned", seat);
    }
    if (type === "TurnTimedOut") {
      if (seat !== this.replay.toAct) throw new Refused(`seat ${seat} is not the seat to act`);
      const [mode, level] = data.policy.split(":");
      if (mode === "forfeit") return this.#lostBy("forfeited", seat);
      if (mode === "takeover") this.seats[seat].takeover = level;
      return;  // "ai": the policy's AI makes the one decision, as a DecisionMade
    }
    if (type === "BreakTaken" || type === "BreakEnded") {
      // A break stops the person's clock: the server checked its times; the rules'
      // replay has nothing to check but whose seat it was.
      if (this.seats[seat]?.kind !== "human") throw new Refused(`seat ${seat} is not a person's seat`);
      return;
    }
    // SeatReturned
    if (!this.seats[seat]?.takeover) throw new Refused(`no AI is playing seat ${seat}`);
    this.seats[seat].takeover = null;
  }

  get players() { return this.replay.players; }

  #created(data) {
    const { settings } = data;
    this.creation = data;
    this.replay = new Replay({ players: Number(settings.players), factions: settings.factions, firstLeader: Number(settings.first_leader) }, data.deck);
    this.seats = data.seats.map((spec) => ({ kind: spec.kind, taken: spec.kind === "ai", player: null, takeover: null }));
  }

  #joined({ seat, player }) {
    this.#checkNotOver();
    if (seat >= this.seats.length) throw new Refused(`there is no seat ${seat}`);
    if (this.seats[seat].taken) throw new Refused(`seat ${seat} is taken`);
    Object.assign(this.seats[seat], { taken: true, player });
  }

  #registered({ seat, player }) {
    this.#checkNotOver();
    const taken = this.seats[seat];
    if (!taken || taken.kind !== "human" || !taken.taken) throw new Refused(`seat ${seat} is not a person's seat taken`);
    if (taken.player !== null) throw new Refused(`seat ${seat} is a registered player's already`);
    taken.player = player;
  }

  #decided(seat, data) {
    if (data.timeout_policy == null && this.seats[seat]?.takeover) {
      throw new Refused(`an AI plays seat ${seat} since its move time ran out: take the seat back first`);
    }
    try {
      this.replay.apply(data.decision, seat);
    } catch (error) {
      if (error instanceof IllegalDecision) throw new Refused(error.reason);
      throw error;
    }
    this.decisions += 1;
    if (this.replay.isOver) {
      const winner = this.replay.result().winner;
      this.ending = { reason: "completed", seat: null, winners: winner === null ? [] : [winner] };
    }
  }

  #lostBy(reason, seat) {
    const loser = sideOf(this.players, seat);
    this.ending = { reason, seat, winners: sides(this.players).map((_, side) => side).filter((side) => side !== loser) };
  }

  #checkNotOver() { if (this.ending) throw new Refused("the game is over"); }

  #checkRunning() {
    this.#checkNotOver();
    const open = this.seats.map((seat, at) => (seat.taken ? null : at)).filter((at) => at !== null);
    if (this.decisions === 0 && open.length) throw new Refused(`the game has not started: seats ${open.join(", ")} are not taken`);
  }
}

// The public keys of /.well-known/claim-keys, by id: each an Ed25519 key whose id is
// the first 16 hex digits of the sha256 of its 32 raw bytes (others are left out).
async function publicKeys(listed) {
  const keys = new Map();
  for (const entry of listed?.keys ?? []) {
    const raw = entry?.algorithm === "Ed25519" ? base64Bytes(entry.public_key) : null;
    if (raw?.length !== 32 || hex(await sha256(raw)).slice(0, 16) !== entry.key_id) continue;
    keys.set(entry.key_id, raw);
  }
  return keys;
}

// Whether the key of `raw` signed `message`; null where this browser cannot tell
// (no WebCrypto on a plain-http page, or no Ed25519 in it).
async function signedBy(raw, signature, message) {
  if (!globalThis.crypto?.subtle) return null;
  let key;
  try {
    key = await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
  } catch (error) {
    if (error.name === "NotSupportedError") return null;
    throw error;
  }
  return crypto.subtle.verify({ name: "Ed25519" }, key, signature, message);
}

// The verdict on an export (its bytes, or its text) checked against the server's
// listed public keys (`/.well-known/claim-keys`'s answer). With `gameId`, the export
// must be that game's.
export async function verifyExport(exported, listedKeys, { gameId = null } = {}) {
  const lines = splitLines(typeof exported === "string" ? utf8(exported) : new Uint8Array(exported));
  if (!lines.length) return new Verdict(1, "the export is empty");
  const parsed = [];
  for (const [at, line] of lines.entries()) {
    try { parsed.push(parseLine(line)); } catch (error) { return new Verdict(at + 1, `not JSON: ${error.message}`); }
  }
  const last = parsed.length;
  if (!isObject(parsed.at(-1)) || !Object.hasOwn(parsed.at(-1), SEAL)) return new Verdict(last, "the last line is not the seal");
  const beside = Object.keys(parsed.at(-1)).find((field) => field !== SEAL);
  if (beside !== undefined) return new Verdict(last, `not a seal: an unknown field '${beside}' beside it`);
  const seal = parsed.at(-1)[SEAL];
  try {
    checkFields(seal, SEAL_FIELDS, (reason) => new NotAnEvent(`not a seal: ${reason}`));
  } catch (error) {
    if (!(error instanceof NotAnEvent)) throw error;
    return new Verdict(last, error.message);
  }
  const signature = base64Bytes(seal.signature);
  if (!signature) return new Verdict(last, "not a seal: its signature is not base64");
  if (gameId !== null && seal.game_id !== gameId) return new Verdict(last, `the seal is of game ${seal.game_id}, not of game ${gameId}`);

  const found = { gameId: seal.game_id, seal, hashes: [] };
  const events = [];
  let chain = await genesis(seal.game_id);
  for (const [at, line] of parsed.slice(0, -1).entries()) {
    const version = at + 1;
    let event, canonical;
    try {
      event = readEvent(line, version);
      canonical = canonicalEvent(line);
    } catch (error) {
      if (!(error instanceof NotAnEvent)) throw error;
      return new Verdict(version, `not an event of version ${version}: ${error.message}`, found);
    }
    chain = await link(chain, canonical);
    if (line.hash !== hex(chain)) return new Verdict(version, "its hash is not the chain's: changed, moved or missing", found);
    found.hashes.push(line.hash);
    events.push(event);
  }
  Object.assign(found, { events: events.length, log: events });
  if (!events.length) return new Verdict(last, "the seal seals no event", found);
  if (Number(seal.version) !== events.length || seal.hash !== hex(chain)) {
    return new Verdict(last, `the seal is of version ${seal.version}, not of the last line`, found);
  }
  const keys = await publicKeys(listedKeys);
  const message = utf8(SEAL_CONTEXT + canonicalJson({ game_id: seal.game_id, hash: seal.hash, version: seal.version }));
  const signed = keys.has(seal.key_id) ? await signedBy(keys.get(seal.key_id), signature, message) : false;
  if (signed === false) return new Verdict(last, `the seal's signature is not key '${seal.key_id}''s`, found);
  found.sealChecked = signed;  // null: this browser could not check it

  const fold = new Fold(seal.game_id);
  for (const event of events) {
    try { fold.apply(event); } catch (error) {
      if (!(error instanceof Refused)) throw error;
      return new Verdict(event.version, `the rules reject it: game ${seal.game_id}, event ${event.version}: ${error.message}`, found);
    }
  }
  Object.assign(found, { creation: fold.creation, ending: fold.ending, decisions: fold.decisions });
  if (fold.ending === null) return new Verdict(last, "the seal seals a game that has not ended", found);
  const { salt, deck, commitment } = fold.creation;
  if (hex(await sha256(concat(hexBytes(salt), utf8(deck.join(" "))))) !== commitment) {
    return new Verdict(1, "the deck and salt do not give the commitment", found);
  }
  return new Verdict(null, `game ${seal.game_id}: ${events.length} events, chain, seal, deck and rules hold; sealed by key ${seal.key_id}`, found);
}

// The heads a seat kept while it played ({version: hash}) against a verdict's chain:
// the versions whose hash differs from the export's (or that it does not have).
export function changedHeads(kept, verdict) {
  return Object.entries(kept).map(([version, hash]) => [Number(version), hash])
    .filter(([version, hash]) => verdict.hashes[version - 1] !== hash).map(([version]) => version).sort((a, b) => a - b);
}
