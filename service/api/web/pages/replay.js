// /replay/<game>: any finished game, or a running one as far as the public has seen
// it, step by step (a slider, previous/next, the arrow keys): the account of the step
// and the table then, every hand face up once the game is over. For a finished game,
// its whole log checked in this page: chain, seal, deck and rules (proof.js); and the
// expert's analysis, asked for with a button and polled while the workers compute it
// (analysis.js draws it).
import { analysisControl, analysisPanel, markedNote, showStep, showVerdict } from "../analysis.js";
import { api } from "../api.js";
import { failure, h, panel, show } from "../dom.js";
import { replayProof } from "../proof.js";
import { player } from "../store.js";
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
  const analysisTop = h("div", { class: "analysis-control" });
  let analysis = null;  // the API's answer, once known
  const key = player()?.key;  // an analysis is asked for by a registered player
  const drawAnalysis = () => {
    if (!over) return;
    analysisTop.replaceChildren(analysisControl(analysis, key ? ask : null) ?? "");
    analysisBox.replaceChildren(analysisPanel(game, analysis, last, Math.max(0, current), { onStep: go }) ?? "");
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
    if (analysis.status === "done") await go(current, false, true);  // its verdict on the step shown
  }
  async function ask() {
    try { await follow(await api("POST", `/games/${gameId}/analysis`, { credential: key })); } catch (error) { analysisBox.append(failure(error)); }
  }
  // Go to `step`; `reveal`: bring the verdict on it into view (a mark or the graph
  // was chosen); `again`: draw it even if it is the step shown (the analysis came).
  async function go(step, reveal = false, again = false) {
    step = Math.max(0, Math.min(last, step));
    if (step === current && !again) return;
    current = step;
    slider.value = step;
    label.textContent = `step ${step} of ${last}`;
    previous.disabled = step === 0;
    next.disabled = step === last;
    const judged = analysis?.status === "done" && analysis.decisions.find((d) => d.step === step);
    showStep(analysisBox, step, last);
    try {
      // The hand its player chose from: the step before, every hand face up.
      const [shownStep, before] = await Promise.all([api("GET", `/games/${gameId}/replay/${step}`),
        judged ? api("GET", `/games/${gameId}/replay/${step - 1}`) : null]);
      if (+slider.value !== step) return;  // moved on meanwhile
      const view = shownStep.view;
      const hand = before?.view.revealed?.hands[judged.seat] ?? null;
      showVerdict(analysisBox, game, analysis, step, hand);
      body.replaceChildren(...[panel("This step", h("ul", { id: "account" }, shownStep.account.map((line) => h("li", {}, readable(line, view)))), markedNote(game, analysis, step, hand)),
        view.table ? tableElement(view, null, view.table.trick.length) : null, resultPanel(view, null),
        view.table ? factionsPanel(view, null) : null].filter(Boolean));
      if (reveal) document.getElementById("verdict")?.scrollIntoView({ block: "nearest" });
    } catch (error) {
      body.replaceChildren(failure(error));
      showVerdict(analysisBox, game, analysis, step);
    }
  }
  slider.addEventListener("input", () => go(+slider.value));
  document.addEventListener("keydown", (event) => {
    // The slider steps itself; a text field keeps its keys.
    if (!body.isConnected || event.altKey || event.ctrlKey || event.metaKey || event.target.matches?.("input, select, textarea, [contenteditable]")) return;
    if (event.key === "ArrowLeft") { go(current - 1); event.preventDefault(); }
    if (event.key === "ArrowRight") { go(current + 1); event.preventDefault(); }
  });
  show(h("h1", {}, `Replay of game ${gameId.slice(0, 8)}`),
    h("p", {}, game.status === "running" ? "The game goes on: this is what the public has seen up to now."
      : `The game is ${game.status}${over ? ": every hand is shown face up" : ""}.`), proofLine,
    h("div", { class: "replay-controls", role: "group", "aria-label": "replay controls" }, previous, slider, next, label),
    analysisTop, h("p", { class: "muted keys-hint" }, "Arrow keys step back and forth."), body, analysisBox, proofBox);
  await go(last);
  if (!over) return;
  api("GET", `/games/${gameId}/analysis`).then(follow).catch((error) => analysisBox.append(failure(error)));
  const [line, details] = await replayProof(gameId, game);
  proofLine.replaceChildren(line ?? "");
  proofBox.replaceChildren(details);
}
