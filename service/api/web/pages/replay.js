// /replay/<game>: any finished game, or a running one as far as the public has seen
// it, step by step (a slider, previous/next, the arrow keys): the account of the step
// and the table then, every hand face up once the game is over. For a finished game,
// its whole log checked in this page: chain, seal, deck and rules (proof.js).
import { api } from "../api.js";
import { failure, h, panel, show } from "../dom.js";
import { replayProof } from "../proof.js";
import { factionsPanel, resultPanel } from "../scoreboard.js";
import { tableElement } from "../table.js";
import { readable } from "../words.js";

export default async function replayPage(gameId) {
  // Every event after the deal is a step (decisions, timeouts, a resignation...).
  const [game, first] = await Promise.all([api("GET", `/games/${gameId}`), api("GET", `/games/${gameId}/replay/0`)]);
  const last = first.last_step;
  const slider = h("input", { type: "range", min: 0, max: last, value: last, id: "step", "aria-label": "step" });
  const label = h("output", { for: "step", id: "step-label" });
  const body = h("div", { id: "replay-step" });
  const [proofLine, proofBox] = [h("div"), h("div")];
  const previous = h("button", { type: "button", onclick: () => go(current - 1), "aria-label": "previous step" }, "◀ Previous");
  const next = h("button", { type: "button", onclick: () => go(current + 1), "aria-label": "next step" }, "Next ▶");
  let current = -1;
  async function go(step) {
    step = Math.max(0, Math.min(last, step));
    if (step === current) return;
    current = step;
    slider.value = step;
    label.textContent = `step ${step} of ${last}`;
    previous.disabled = step === 0;
    next.disabled = step === last;
    try {
      const shown = await api("GET", `/games/${gameId}/replay/${step}`);
      if (+slider.value !== step) return;  // moved on meanwhile
      const view = shown.view;
      body.replaceChildren(...[panel("This step", h("ul", { id: "account" }, shown.account.map((line) => h("li", {}, readable(line, view))))),
        view.table ? tableElement(view, null, view.table.trick.length) : null, resultPanel(view, null),
        view.table ? factionsPanel(view, null) : null].filter(Boolean));
    } catch (error) { body.replaceChildren(failure(error)); }
  }
  slider.addEventListener("input", () => go(+slider.value));
  document.addEventListener("keydown", (event) => {
    if (event.target === slider || event.target.matches?.("input, select, textarea, button")) return;
    if (event.key === "ArrowLeft") { go(current - 1); event.preventDefault(); }
    if (event.key === "ArrowRight") { go(current + 1); event.preventDefault(); }
  });
  const over = game.status === "finished" || game.status === "aborted";
  show(h("h1", {}, `Replay of game ${gameId.slice(0, 8)}`),
    h("p", {}, game.status === "running" ? "The game goes on: this is what the public has seen up to now."
      : `The game is ${game.status}${over ? ": every hand is shown face up" : ""}.`), proofLine,
    h("div", { class: "replay-controls", role: "group", "aria-label": "replay controls" }, previous, slider, next, label),
    h("p", { class: "muted" }, "Arrow keys step back and forth."), body, proofBox);
  await go(last);
  if (!over) return;
  const [line, details] = await replayProof(gameId, game);
  proofLine.replaceChildren(line ?? "");
  proofBox.replaceChildren(details);
}
