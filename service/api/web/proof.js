// What a page checks of a finished game's log, and how it says so. The replay page
// verifies the export as `claim verify-export` does (verify.js): a line at its top, and
// a panel of what each check established or the first bad line. The table's result
// panel checks the fingerprints (heads) this seat kept while it played (store.js)
// against that log: "Your 26 moves are in the final log, unchanged ✔".
import { ApiError, api, apiBytes, problemText, problemsOnly } from "./api.js";
import { faces } from "./cards.js";
import { h, panel, plural } from "./dom.js";
import { cardLabel } from "./factions.js";
import { keptHeads } from "./store.js";
import { changedHeads, verifyExport } from "./verify.js";
import { sideName } from "./words.js";

const TITLE = "Checked in this browser";
const PANEL = "#p-checked-in-this-browser";

// The game's export and the server's keys, fetched, and the export verified here;
// `took`: the verification's time in ms (not the fetching).
export async function checkGame(gameId) {
  const [exported, keys] = await Promise.all([apiBytes(`/games/${gameId}/export`), api("GET", "/.well-known/claim-keys")]);
  const started = performance.now();
  const verdict = await verifyExport(exported, keys, { gameId });
  verdict.took = performance.now() - started;
  verdict.lineText = verdict.ok ? null : lineOf(exported, verdict.line);
  return verdict;
}

// The text of line `number` (blank lines not counted), cut short, to show what is wrong.
function lineOf(exported, number) {
  const line = new TextDecoder().decode(exported).split(/\r\n|\r|\n/).filter((text) => text.trim())[number - 1] ?? "";
  return line.length > 240 ? `${line.slice(0, 240)}…` : line;
}

const winnersText = (view, winners) => (winners.length ? winners.map((side) => sideName(view, side)).join(" and ") : "nobody");

// Whether the server's view of the game ends as the rules, replayed here, end it.
function sameEnding(view, ending) {
  const same = (a, b) => a.length === b.length && a.every((side) => b.includes(side));
  return view.ending?.reason === ending.reason && same(view.ending.winners, ending.winners);
}

const exportLink = (gameId, text) => h("a", { href: `/games/${gameId}/export`, download: `claim-${gameId}.jsonl` }, text);
const evidence = (gameId) => h("p", {}, exportLink(gameId, "Download the log"), " to keep it as evidence; ",
  h("a", { href: `/replay/${gameId}` }, "the replay page"), " shows what was checked.");

// The moves a seat kept ({seat, moves: {version: [hash, decision]}, seen}, store.js),
// oldest first.
function movesOf(kept) {
  return Object.entries(kept?.moves ?? {}).map(([version, [hash, decision]]) => ({ version: +version, hash, decision }))
    .sort((a, b) => a.version - b.version);
}

// "your move 5 (you played Goblins 3, event 11 of the log)"
function moveName(moves, at) {
  const { version, decision } = moves[at];
  const what = decision === "take deck" ? "took the top card of the draw pile"
    : `${decision.startsWith("play") ? "played" : "took"} ${cardLabel(decision.split(" ")[1])}`;
  return `your move ${at + 1} (you ${what}, event ${version} of the log)`;
}

// What the heads a seat kept while it played say of a log that holds together: "your
// 26 moves are in it, unchanged", or the first of them the log no longer has as the
// server confirmed it. {changed, element}; null when this browser kept no move.
function movesNote(kept, verdict, gameId) {
  const moves = movesOf(kept);
  if (!moves.length) return null;
  const heads = Object.fromEntries([...moves.map((move) => [move.version, move.hash]), ...(kept.seen ? [kept.seen] : [])]);
  const [changed] = changedHeads(heads, verdict);
  if (changed === undefined) {
    const all = verdict.log.filter(({ type, data }) => type === "DecisionMade" && data.seat === kept.seat && data.timeout_policy == null).length;
    const yours = all > moves.length ? `The ${moves.length} of your ${all} moves made in this browser are` : `Your ${plural(moves.length, "move")} ${moves.length === 1 ? "is" : "are"}`;
    return { changed: false, element: h("div", {},
      h("p", { class: "good" }, `${yours} in the final log, unchanged ✔`),
      h("p", { class: "muted small" }, "As you played, this browser kept the server's fingerprint of the game after each of your moves. ",
        "The game's final, sealed log matches every one: nothing up to your last move was changed afterwards.")) };
  }
  const at = moves.findIndex((move) => move.version === changed);
  const event = verdict.log[changed - 1];
  const there = at >= 0 && event?.type === "DecisionMade" && event.data.seat === kept.seat && event.data.decision === moves[at].decision;
  const before = moves.filter((move) => move.version < changed).length;
  return { changed: true, element: h("div", {},
    h("p", { class: "bad" }, "✘ The record of this game was changed after it was played: ", at >= 0
      ? `the log up to ${moveName(moves, at)} is not the one the server confirmed when you made it.${there ? "" : " The final log has no such move there."}`
      : `the log up to event ${changed}, the last this page showed you, is not the one it showed then.`),
    before ? h("p", {}, `Your ${plural(before, "move")} before it ${before === 1 ? "is" : "are"} unchanged.`) : null, evidence(gameId)) };
}

// The replay page's check of a finished game: a line for the top of the page and the
// panel of what each check established (and, in the browser that played a seat,
// whether its moves are in the log unchanged).
export async function replayProof(gameId, view) {
  let verdict;
  try {
    verdict = await checkGame(gameId);
  } catch (error) {
    return problemsOnly((failed) => [null, panel(TITLE, h("p", { class: "notice error", role: "alert" },
      "The game's log could not be fetched to check it: ", problemText(failed)))])(error);
  }
  const details = h("a", { href: PANEL }, "What was checked");
  if (!verdict.ok) {
    return [h("p", { id: "proof-summary", class: "bad" }, `✘ This game's log does not hold together (line ${verdict.line}). `, details),
      panel(TITLE,
        h("p", { id: "proof-verdict", class: "bad", role: "alert" }, `✘ Not verified: line ${verdict.line} of the game's log is wrong: ${verdict.reason}.`),
        verdict.lineText ? h("p", {}, `Line ${verdict.line}: `, h("code", { class: "proof-line" }, verdict.lineText)) : null,
        h("p", {}, "The log the server gave for this game does not hold together, so what it says from that line on cannot be trusted. ",
          exportLink(gameId, "Download the log"), " to keep it as evidence."))];
  }
  const { creation, ending, seal } = verdict;
  const mine = movesNote(keptHeads(gameId), verdict, gameId);
  const agrees = sameEnding(view, ending);
  const outcome = ending.reason === "completed" ? `Winner: ${winnersText(view, ending.winners)}`
    : ending.reason === "aborted" ? "the game was called off" : `${sideName(view, ending.seat)} ${ending.reason}; winner: ${winnersText(view, ending.winners)}`;
  const holds = `chain, ${verdict.sealChecked ? "seal, " : ""}deck and rules hold for all ${verdict.events} events`;
  const sealWords = verdict.sealChecked
    ? `the server signed that last hash (event ${seal.version}) with its key ${seal.key_id} (Ed25519): this is the log it stands by.`
    : "not checked here: this browser has no Ed25519 for this page (WebCrypto's needs a current browser and a secure page: https, or the server on this machine). Check the log with claim verify-export.";
  const good = agrees && !mine?.changed;
  const verdictLine = mine?.changed ? `✘ This log holds together (${holds}), but it is not the one the server confirmed to your moves while you played:`
    : agrees ? `✔ Verified: ${holds}.` : `✘ The log holds, but the result this page shows is not the one its moves give: the rules give ${outcome}.`;
  const top = good ? `✔ This game's log checks out in this browser${mine ? ", your moves in it unchanged" : ""}. `
    : "✘ This game's log is not the game this page shows. ";
  return [h("p", { id: "proof-summary", class: good ? "good" : "bad" }, top, details),
    panel(TITLE, h("p", { id: "proof-verdict", class: good ? "good" : "bad", role: good ? null : "alert" }, verdictLine), mine?.element,
      h("p", { class: "muted small" }, `This page checked the game's whole log itself, without taking the server's word for it, in ${Math.round(verdict.took)} ms.`),
      h("ul", { class: "proof-checks" },
        h("li", {}, h("strong", {}, "Chain: "), `each of the ${verdict.events} events is linked to the one before it by SHA-256, from the game's id; `,
          "an event changed, moved or left out would break every link after it. The last hash: ", h("code", {}, seal.hash)),
        h("li", {}, h("strong", {}, "Seal: "), sealWords),
        h("li", {}, h("strong", {}, "Deck: "), "SHA-256 of the salt and the deck equals the commitment the game published before the first card was dealt: the deck was fixed from the start.",
          h("br"), "Commitment: ", h("code", { id: "proof-commitment" }, creation.commitment), h("br"), "Salt: ", h("code", {}, creation.salt)),
        h("li", {}, h("strong", {}, "Rules: "), `this page's own rules engine dealt that deck and replayed all ${plural(verdict.decisions, "decision")}: every one was legal, and they end the game so: ${outcome}.`)),
      h("p", {}, "The deck, from the top:"), faces(creation.deck, "the deck, from the top", "mini"),
      h("p", {}, exportLink(gameId, "Download the log"), " to check it anywhere, in a copy of this server's code (",
        h("code", {}, "claim"), " once installed): ",
        h("code", {}, `bin/claim verify-export claim-${gameId}.jsonl --key ${location.origin}/.well-known/claim-keys`)))];
}

// The table's result panel: the heads this seat kept while it played against the
// final log (`proof`: null while it is fetched and checked, an ApiError if it could
// not be, else the verdict).
export function headsNote(proof, kept, gameId) {
  const moves = movesOf(kept);
  if (proof === null) {
    return h("p", { id: "heads-check", class: "muted" }, `Checking that your ${plural(moves.length, "move")} ${moves.length === 1 ? "is" : "are"} in the final log…`);
  }
  if (proof instanceof ApiError) {
    return h("p", { id: "heads-check", class: "notice error" }, "Your moves could not be checked in the final log: ", problemText(proof));
  }
  if (!proof.ok) {
    const at = moves.findIndex((move) => move.version === proof.line);
    return h("div", { id: "heads-check", class: "notice error", role: "alert" },
      h("p", { class: "bad" }, `✘ The final log of this game does not hold together at line ${proof.line}${at >= 0 ? `, ${moveName(moves, at)}` : ""}: ${proof.reason}.`),
      evidence(gameId));
  }
  const { changed, element } = movesNote(kept, proof, gameId);
  return h("div", { id: "heads-check", class: changed ? "notice error" : null, role: changed ? "alert" : null }, element);
}
