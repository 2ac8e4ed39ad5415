// The move list: every round of the game in words, grouped by phase, oldest first,
// the round being played last; the rounds played since the reader's last visit marked.
import { h } from "./dom.js";
import { cardLabel } from "./factions.js";
import { Who, roundSentences } from "./words.js";

// `since`: the rounds played since the reader's last visit, {from, to} (null: none).
export function historyElement(view, me, since = null) {
  const table = view.table;
  const items = [];
  let phase = 0;
  table.rounds.forEach((round, index) => {
    if (round.phase !== phase) {
      phase = round.phase;
      items.push(h("li", { class: "phase-head" }, h("h3", {}, `Phase ${phase}`)));
    }
    const fresh = since != null && index >= since.from && index < since.to;
    if (fresh && index === since.from) items.push(h("li", { class: "since", id: "since-last-visit" }, "Since your last visit"));
    items.push(h("li", { class: `round${fresh ? " new" : ""}`, "data-round": index },
      h("strong", {}, `Round ${round.number + 1}`), fresh ? h("span", { class: "badge new" }, "new") : null, " ",
      roundSentences(view, round, me).join(" ")));
  });
  if (view.status === "running" && table.trick.length) {
    if (table.phase !== phase) items.push(h("li", { class: "phase-head" }, h("h3", {}, `Phase ${table.phase}`)));
    const plays = table.trick.map((play, n) => `${Who(view, play.seat, me)} ${n === 0 ? "led" : "played"} ${cardLabel(play.card)}`);
    items.push(h("li", { class: "round current" }, h("strong", {}, `Round ${table.round + 1}, now`), " ", `${plays.join(", ")}.`));
  }
  const list = items.length ? h("ol", { class: "moves", "aria-label": "moves", tabindex: "0" }, items) : h("p", { class: "muted" }, "No card played yet.");
  return h("section", { class: "panel history", "aria-labelledby": "p-moves" }, h("h2", { id: "p-moves" }, "Moves"), list);
}
