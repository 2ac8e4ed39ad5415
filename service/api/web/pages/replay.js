// /replay/<game>: any finished game, or a running one as far as the public has seen
// it, step by step (a slider, previous/next, the arrow keys): the account of the step
// and the table then, every hand face up once the game is over. For a finished game,
// its whole log checked in this page: chain, seal, deck and rules (proof.js); and the
// expert's analysis, asked for with a button and polled while the workers compute it
// (analysis.js draws it).
import { analysisPanel, markedNote, showStep } from "../analysis.js";
import { ApiError, api } from "../api.js";
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
  const over = game.status === "finished" || game.status === "aborted";
  const analysisBox = h("div");
  let analysis = null;  // the API's answer, once asked for
  const drawAnalysis = () => {
    if (over) analysisBox.replaceChildren(analysisPanel(game, analysis, last, Math.max(0, current), { onAsk: ask, onStep: (step) => go(step) }));
  };
  async function follow(answer) {  // the analysis until it is done or failed
    analysis = answer;
    drawAnalysis();
    while (analysis.status === "queued" || analysis.status === "running") {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (!analysisBox.isConnected) return;  // the page was left
      analysis = await api("GET", `/games/${gameId}/analysis`);
      drawAnalysis();
    }
    document.getElementById("marked-note")?.remove();
    document.getElementById("account")?.after(markedNote(game, analysis, current) ?? "");
  }
  async function ask() {
    try { await follow(await api("POST", `/games/${gameId}/analysis`)); } catch (error) { analysisBox.append(failure(error)); }
  }
  async function go(step) {
    step = Math.max(0, Math.min(last, step));
    if (step === current) return;
    current = step;
    slider.value = step;
    label.textContent = `step ${step} of ${last}`;
    previous.disabled = step === 0;
    next.disabled = step === last;
    showStep(analysisBox, step, last);
    try {
      const shown = await api("GET", `/games/${gameId}/replay/${step}`);
      if (+slider.value !== step) return;  // moved on meanwhile
      const view = shown.view;
      body.replaceChildren(...[panel("This step", h("ul", { id: "account" }, shown.account.map((line) => h("li", {}, readable(line, view)))), markedNote(game, analysis, step)),
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
  show(h("h1", {}, `Replay of game ${gameId.slice(0, 8)}`),
    h("p", {}, game.status === "running" ? "The game goes on: this is what the public has seen up to now."
      : `The game is ${game.status}${over ? ": every hand is shown face up" : ""}.`), proofLine,
    h("div", { class: "replay-controls", role: "group", "aria-label": "replay controls" }, previous, slider, next, label),
    h("p", { class: "muted" }, "Arrow keys step back and forth."), body, analysisBox, proofBox);
  await go(last);
  if (!over) return;
  api("GET", `/games/${gameId}/analysis`).then(follow, (error) => {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    drawAnalysis();  // never asked for: the button
  }).catch((error) => analysisBox.append(failure(error)));
  const [line, details] = await replayProof(gameId, game);
  proofLine.replaceChildren(line ?? "");
  proofBox.replaceChildren(details);
}
