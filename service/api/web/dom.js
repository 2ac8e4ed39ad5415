// Drawing: elements from plain data, the page's main area, the status line.
import { problemText } from "./api.js";

const main = () => document.getElementById("main");
const statusLine = () => document.getElementById("status");

// h("p", {class: "x", onclick: f}, "text", child...): an element. Attributes set to
// null or false are left out, `on<event>` ones are listeners; children may be nested
// arrays, strings or nodes (strings always as text: nothing is ever parsed as HTML).
export function h(tag, attrs = {}, ...children) {
  const element = tag.includes(":") ? document.createElementNS("http://www.w3.org/2000/svg", tag.slice(4)) : document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "class") element.setAttribute("class", value);
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child != null && child !== false) element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

// Draw `section` anew with `children`, unless it shows just that already: a live page
// looks again often, and an unchanged list keeps its focus and the reader's place.
export function redraw(section, ...children) {
  const drawn = h("div", {}, children);
  if (drawn.innerHTML !== section.innerHTML) section.replaceChildren(...drawn.childNodes);
}

// What names the element that has the focus, to find its like after a redraw: its
// label, its id, or the kind and text of a control (a redraw makes new elements).
export function focusKey() {
  const element = document.activeElement;
  if (!element || element === document.body || !main().contains(element)) return null;
  return element.getAttribute("aria-label") || (element.id && `#${element.id}`) || `${element.tagName}:${element.textContent.trim()}`;
}

// Focus the element of the page named by `key` as `focusKey` named it; whether found.
export function refocus(key) {
  if (!key) return false;
  const found = [...main().querySelectorAll("button, a, input, select, summary, [tabindex]")].find((element) =>
    element.getAttribute("aria-label") === key || `#${element.id}` === key || `${element.tagName}:${element.textContent.trim()}` === key);
  found?.focus({ preventScroll: true });
  return Boolean(found);
}

export function show(...nodes) { main().replaceChildren(...nodes.flat(Infinity).filter((node) => node != null)); }
export function append(...nodes) { main().append(...nodes.flat(Infinity).filter((node) => node != null)); }

let sayTimer;
// A short message in the status line (read out by screen readers), gone after 5 s.
export function say(text) {
  const line = statusLine();
  line.textContent = text;
  clearTimeout(sayTimer);
  sayTimer = setTimeout(() => { line.textContent = ""; }, 5000);
}

// A value to copy (a link, a key): a read-only field and a Copy button.
export function copyField(value, label) {
  const field = h("input", { readonly: true, value, "aria-label": label, class: "copyable", onfocus: (event) => event.target.select() });
  const note = h("span", { class: "muted", "aria-live": "polite" });
  const copy = h("button", { type: "button", onclick: async () => {
    try { await navigator.clipboard.writeText(value); note.textContent = " Copied."; } catch { field.select(); note.textContent = " Select it and copy."; }
  } }, "Copy");
  return h("span", { class: "copy-row" }, field, copy, note);
}

export function failure(error) { return h("p", { class: "notice error", role: "alert" }, problemText(error)); }

export function panel(title, ...content) {
  const id = `p-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return h("section", { class: "panel", "aria-labelledby": id }, h("h2", { id }, title), content);
}

export function plural(count, word, many = `${word}s`) { return `${count} ${count === 1 ? word : many}`; }

// A clock's face: "04:59" under an hour, "2:04:59" under a day, else "3 days 4 h".
export function clockFace(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const two = (n) => String(n).padStart(2, "0");
  if (s < 3600) return `${two(Math.floor(s / 60))}:${two(s % 60)}`;
  if (s < 24 * 3600) return `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
  return `${plural(Math.floor(s / 86400), "day")} ${Math.floor(s / 3600) % 24} h`;
}

// A moment in the reader's words and time zone: "Dec 24, 2026, 9:30 AM".
export function dateTime(iso) { return new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" }); }

// A move time in words: "5 minutes", "1 hour", "3 days".
export function duration(seconds) {
  for (const [unit, word] of [[86400, "day"], [3600, "hour"], [60, "minute"]]) {
    if (seconds % unit === 0) return plural(seconds / unit, word);
  }
  return plural(seconds, "second");
}

// What a game's time per move is and what a timeout does, from its settings (a game's
// view, a challenge's settings or the new-game form's): the rule, stated before anyone
// plays under it.
export function timeoutRule({ move_time_limit: limit, timeout_policy: policy, timeout_limit: inARow = 1, final_timeout_policy: final = "takeover", rated = false }) {
  if (limit == null) return "No time per move: nobody's time runs out.";
  const time = `${duration(limit)} a move.`;
  const [mode, level] = policy.split(":");
  if (mode === "forfeit") return `${time} A player whose time runs out loses the game${rated ? " (a rated game: no AI plays a rated seat)" : ""}.`;
  if (mode === "ai") return `${time} When a player's time runs out, an AI (${level}) makes that move for them and their time starts again.`;
  const last = final === "forfeit" ? "their side loses the game" : `an AI (${level}) plays their seat until they take it back`;
  if (inARow === 1) return `${time} When a player's time runs out, ${last}.`;
  return `${time} When a player's time runs out, an AI (${level}) makes that move and their time starts again; at ${inARow} timeouts in a row, ${last}.`;
}

export function shortId(gameId) { return gameId.slice(0, 8); }
