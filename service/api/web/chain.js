// The hash chain of a game's events, as the server defines it (service/events/chain.py):
//
//   h[0] = sha256("claim-chain/" + game id)
//   h[n] = sha256(h[n-1] || canonical bytes of event n)       (digests as 32 raw bytes)
//
// The canonical bytes are JSON as the server's orjson writes it: keys sorted (by code
// point) at every level, no spaces, UTF-8 with non-ASCII characters as themselves, the
// same escapes, and numbers written as orjson writes the values it read. So a line is
// parsed keeping each number's text (JSON.parse's source text), never through a double
// that would turn 1.0 into 1 or round a large integer.
import { hmacSha256Hex, sha256Hex } from "./sha256.js";

const encoder = new TextEncoder();
export const utf8 = (text) => encoder.encode(text);

// A number the server reads as a float (a fraction or an exponent, or an integer too
// large for 64 bits): kept apart from integers, as Python keeps them.
export class Float {
  constructor(value) { this.value = value; }
}

export class NotJson extends Error {}

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

// A JSON text as the server's orjson reads it: integers as numbers (BigInt past 2^53),
// floats as Float, and what orjson refuses (a lone surrogate, an infinite number)
// refused (NotJson).
export function parseJson(text) {
  const wellFormed = (value) => {
    if (!value.isWellFormed()) throw new NotJson("a lone surrogate in a string");
  };
  let value;
  try {
    value = JSON.parse(text, (key, value, context) => {
      wellFormed(key);
      if (typeof value === "string") wellFormed(value);
      if (typeof value !== "number") return value;
      const source = context?.source ?? String(value);  // the number's own text where the browser tells it
      if (/^-?\d+$/.test(source)) {
        const integer = BigInt(source);
        if (integer >= INT64_MIN && integer <= UINT64_MAX) return Number.isSafeInteger(value) ? value : integer;
      }
      const float = Number(source);
      if (!Number.isFinite(float)) throw new NotJson("number is infinity when parsed as double");
      return new Float(float);
    });
  } catch (error) {
    if (error instanceof NotJson) throw error;
    throw new NotJson(error.message);
  }
  return value;
}

// A float as orjson writes it: the shortest digits that read back the same, fixed
// between 1e-5 and 1e16 (with ".0" when whole), else d.ddde±x.
function floatText(value) {
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const [mantissa, exponentText] = Math.abs(value).toExponential().split("e");
  const exponent = Number(exponentText);
  const sign = value < 0 ? "-" : "";
  if (exponent < -5 || exponent >= 16) return `${sign}${mantissa}e${exponentText.startsWith("-") ? "" : "+"}${exponent}`;
  const digits = mantissa.replace(".", "");
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  return `${sign}${whole}.${digits.slice(exponent + 1) || "0"}`;
}

const byCodePoint = (a, b) => {
  if (a === b) return 0;
  const [x, y] = [[...a], [...b]];
  for (let at = 0; at < Math.min(x.length, y.length); at++) {
    if (x[at] !== y[at]) return x[at].codePointAt(0) - y[at].codePointAt(0);
  }
  return x.length - y.length;
};

// The canonical JSON text of a value read by `parseJson` (or made of plain values).
export function canonicalJson(value) {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError("not a JSON number");
    return Number.isInteger(value) ? String(value) : floatText(value);
  }
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Float) return floatText(value.value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort(byCodePoint);
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
}

export const PRIVATE = "private";  // the key of the private values' digest

// An event's data as the chain holds it: its private values (a seat's token hash and
// player with the salt beside it, the seats' invite hashes) replaced by their digest. An
// export's data has them replaced already, and is then its own canonical form.
export function canonicalData(data) {
  const publicPart = { ...data };
  const privatePart = {};
  for (const key of ["token_hash", "player", "player_salt"]) {
    if (Object.hasOwn(publicPart, key)) {
      privatePart[key] = publicPart[key];
      delete publicPart[key];
    }
  }
  const seats = publicPart.seats;
  if (Array.isArray(seats) && seats.every((seat) => seat !== null && typeof seat === "object" && !Array.isArray(seat))) {
    const invites = [];
    publicPart.seats = seats.map(({ invite_hash: invite = null, ...seat }) => { invites.push(invite); return seat; });
    if (invites.some((invite) => invite !== null)) privatePart.invite_hashes = invites;
  }
  if (Object.keys(privatePart).length) publicPart[PRIVATE] = digest(privatePart);
  return canonicalJson(publicPart);
}

// The digest of private values: a registered seat's player (SeatRegistered, schema 2)
// HMAC-SHA256'd with the salt beside it as the key, anything else sha256'd as JSON.
function digest(values) {
  const { player, player_salt: salt } = values;
  if (Object.keys(values).length === 2 && typeof player === "string" && typeof salt === "string") {
    return hmacSha256Hex(utf8(salt), utf8(player));
  }
  return sha256Hex(utf8(canonicalJson(values)));
}

// The canonical bytes of an export's line: its fields but the hash.
export function canonicalEvent(line) {
  const { version, id, type, v, at, data } = line;
  return utf8(`{"at":${canonicalJson(at)},"data":${canonicalData(data)},"id":${canonicalJson(id)},`
    + `"type":${canonicalJson(type)},"v":${canonicalJson(v)},"version":${canonicalJson(version)}}`);
}

// SHA-256 of bytes, as 32 bytes: WebCrypto's, or sha256.js where a page served over
// plain http to another machine has no crypto.subtle.
export async function sha256(bytes) {
  if (globalThis.crypto?.subtle) return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return fromHex(sha256Hex(bytes));
}

export function concat(...parts) {
  const all = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) { all.set(part, at); at += part.length; }
  return all;
}

export const hex = (bytes) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
export function fromHex(text) { return new Uint8Array(text.match(/../g)?.map((pair) => parseInt(pair, 16)) ?? []); }

export const genesis = (gameId) => sha256(utf8(`claim-chain/${gameId}`));
export const link = (previous, canonical) => sha256(concat(previous, canonical));
