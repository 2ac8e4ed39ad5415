// Cards as the table shows them: a face (faction colour band, value, symbol and name:
// colour is never the only cue), a back for what is hidden, and tips that tell a
// faction's power on hover, focus or tap.
import { h } from "./dom.js";
import { FACTIONS, cardLabel, factionName, shortName, symbolOf } from "./factions.js";

function faceParts(code) {
  const faction = code.slice(0, 2);
  return [h("span", { class: "corner", "aria-hidden": "true" }, h("b", {}, code.slice(2)), symbolOf(faction)),
    h("span", { class: "symbol", "aria-hidden": "true" }, symbolOf(faction)),
    h("span", { class: "fname", "aria-hidden": "true" }, shortName(faction))];
}

// A card face (a list item by default); `attrs` may add classes and data.
export function face(code, { tag = "li", label = cardLabel(code), cls = "", ...attrs } = {}) {
  const named = tag === "li" ? { title: label } : { role: "img", "aria-label": label, title: label };
  return h(tag, { class: `card f-${code.slice(0, 2)} ${cls}`.trim(), ...named, ...attrs },
    tag === "li" ? h("span", { class: "sr" }, label) : null, faceParts(code));
}

// A card to press. Not pressable now (`disabledReason`): greyed when it is your turn and
// the rules forbid it, plain while you wait (`idle`); focusable all the same, to say why.
export function faceButton(code, { label, onclick, disabledReason = null, idle = false, cls = "", ...attrs }) {
  const state = !disabledReason ? "playable" : idle ? "idle" : "unplayable";
  return h("button", { type: "button", class: `card f-${code.slice(0, 2)} ${state} ${cls}`.trim(),
    "aria-label": label, "aria-disabled": disabledReason ? "true" : null, onclick, ...attrs }, faceParts(code));
}

// A face-down pile: a card back, how many cards it holds and what they are ("in hand").
export function back(count, label, caption, cls = "") {
  return h("div", { class: `pile ${cls}`.trim(), role: "img", "aria-label": label },
    h("span", { class: "card back", "aria-hidden": "true" }),
    h("span", { class: "count", "aria-hidden": "true" }, h("b", {}, count), ` ${caption}`));
}

export function faces(codes, label, cls = "") {
  if (!codes || codes.length === 0) return h("p", { class: "muted none" }, "none");
  return h("ul", { class: `cards ${cls}`.trim(), "aria-label": label }, codes.map((code) => face(code)));
}

let tips = 0;
// `target` with a tip: shown on hover and keyboard focus, on tap (focus) on a phone,
// hidden with Escape; read by screen readers as the target's description.
export function withTip(target, text, cls = "") {
  const id = `tip-${++tips}`;
  target.setAttribute("aria-describedby", [target.getAttribute("aria-describedby"), id].filter(Boolean).join(" "));
  const host = h("span", { class: `tip-host ${cls}`.trim() }, target, h("span", { role: "tooltip", id, class: "tip" }, text));
  host.addEventListener("keydown", (event) => { if (event.key === "Escape") host.classList.add("tip-closed"); });
  host.addEventListener("click", () => host.classList.toggle("tip-open"));  // a tap, where nothing hovers
  host.addEventListener("focusout", () => host.classList.remove("tip-open"));
  const keepInWindow = () => requestAnimationFrame(() => {  // near an edge, slide it in
    const tip = host.lastElementChild;
    tip.style.setProperty("--shift", "0px");
    const box = tip.getBoundingClientRect();
    const shift = Math.max(4 - box.left, 0) + Math.min(innerWidth - 4 - box.right, 0);
    tip.style.setProperty("--shift", `${shift}px`);
  });
  host.addEventListener("mouseenter", keepInWindow);
  host.addEventListener("focusin", keepInWindow);
  host.addEventListener("click", keepInWindow);
  host.addEventListener("focusout", () => host.classList.remove("tip-closed"));
  host.addEventListener("mouseleave", () => host.classList.remove("tip-closed", "tip-open"));
  return host;
}

export function powerText(code, players) {
  const faction = FACTIONS[code];
  return `${faction.name} (${faction.edition}; ${faction.cards}). ${faction.power(players)}`;
}

// A faction's name as a focusable chip whose tip tells its power.
export function factionChip(code, players, extra = "") {
  return withTip(h("button", { type: "button", class: `chip f-${code}` },
    h("span", { "aria-hidden": "true" }, `${symbolOf(code)} `), factionName(code), extra), powerText(code, players));
}
