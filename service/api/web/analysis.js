// The expert's analysis of a finished game, drawn from the API's answer
// (GET /games/{id}/analysis): a button to ask for it, its progress, then a graph of
// each side's chance of winning after every decision (an inline SVG, with a title, a
// description and a table as its text alternative), the marked decisions at their
// steps, and the better decision in words at a marked step. It knows nothing of HTTP:
// the replay page asks, polls and says which step it shows.
import { h, plural } from "./dom.js";
import { decisionText, seatName, sideShort } from "./words.js";

const WIDTH = 640, HEIGHT = 220, PAD = { left: 38, right: 10, top: 10, bottom: 26 };
const MARK_NAMES = { inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };
const percent = (chance) => `${Math.round(chance * 100)}%`;

// The panel: `analysis` null (never asked), or the API's answer; `step` the replay's
// step shown; `onAsk()` asks for it; `onStep(step)` goes to a step.
export function analysisPanel(view, analysis, last, step, { onAsk, onStep }) {
  const content = [];
  if (!analysis || analysis.status === "failed") {
    if (analysis) content.push(h("p", { class: "notice error", role: "alert" }, "The analysis failed: ask for it again."));
    content.push(h("p", {}, "The expert can go through the game and judge every decision from what its player could see at the time."),
      h("button", { type: "button", class: "primary", id: "ask-analysis", onclick: onAsk }, "Analyse this game"));
  } else if (analysis.status !== "done") {
    content.push(h("p", { id: "analysis-progress-label" }, `The expert is analysing the game: ${analysis.done} of ${plural(analysis.total, "decision")} judged.`),
      h("progress", { id: "analysis-progress", max: Math.max(1, analysis.total), value: analysis.done, "aria-labelledby": "analysis-progress-label" }));
  } else {
    content.push(graph(view, analysis, last, step, onStep), marksList(view, analysis, onStep), thresholdsNote(analysis), decisionsTable(view, analysis));
  }
  return h("section", { class: "panel analysis", id: "analysis", "aria-labelledby": "p-analysis" },
    h("h2", { id: "p-analysis" }, "The expert's analysis"), content);
}

// A paragraph on the decision of `step` if it is marked: what it cost, and the better one.
export function markedNote(view, analysis, step) {
  const judged = analysis?.status === "done" && analysis.decisions.find((decision) => decision.step === step);
  if (!judged?.mark) return null;
  const who = seatName(view, judged.seat);
  return h("p", { class: `notice mark-note ${judged.mark}`, id: "marked-note" },
    h("strong", {}, `${MARK_NAMES[judged.mark]}. `),
    `${who} ${decisionText(judged.move)}: ${sideWord(view, judged.side)} chance of winning went from ${percent(judged.before)} to ${percent(judged.after)}, as ${who} could see the game. `,
    `Better: ${decisionText(judged.best).replace(/^(played|took)/, (verb) => (verb === "played" ? "play" : "take"))} (${percent(judged.before)}).`);
}

function sideWord(view, side) {
  return view.players === 4 ? `${sideShort(view, side)}'s` : "their";
}

function sidesOf(view) { return view.players === 4 ? [0, 1] : [...Array(view.players).keys()]; }

const xOf = (step, last) => PAD.left + (step / Math.max(1, last)) * (WIDTH - PAD.left - PAD.right);

// Move the graph's line of the step shown to `step` (the rest stays as drawn).
export function showStep(panel, step, last) {
  const cursor = panel.querySelector(".cursor");
  cursor?.setAttribute("x1", xOf(step, last));
  cursor?.setAttribute("x2", xOf(step, last));
}

function graph(view, analysis, last, step, onStep) {
  const x = (s) => xOf(s, last);
  const y = (chance) => PAD.top + (1 - chance) * (HEIGHT - PAD.top - PAD.bottom);
  const sides = sidesOf(view);
  const lines = sides.map((side) => {
    const points = analysis.decisions.map((d) => `${x(d.step).toFixed(1)},${y(d.chances[side]).toFixed(1)}`);
    return h("svg:polyline", { class: `chance side-${side}`, points: points.join(" ") });
  });
  const grid = [0, 0.5, 1].map((level) => [
    h("svg:line", { class: "grid", x1: PAD.left, x2: WIDTH - PAD.right, y1: y(level), y2: y(level) }),
    h("svg:text", { class: "axis", x: PAD.left - 4, y: y(level) + 4, "text-anchor": "end" }, percent(level)),
  ]);
  const marks = analysis.decisions.filter((d) => d.mark).map((d) =>
    h("svg:circle", { class: `mark ${d.mark}`, cx: x(d.step), cy: y(d.after), r: d.mark === "blunder" ? 6 : 4.5, "data-step": d.step, onclick: () => onStep(d.step) },
      h("svg:title", {}, `step ${d.step}: ${MARK_NAMES[d.mark].toLowerCase()}`)));
  const counts = Object.keys(MARK_NAMES).map((mark) => plural(analysis.decisions.filter((d) => d.mark === mark).length, mark)).join(", ");
  const names = sides.map((side) => sideShort(view, side)).join(" and ");
  return h("figure", { class: "chances" },
    h("svg:svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-labelledby": "chances-title chances-desc", id: "chances" },
      h("svg:title", { id: "chances-title" }, "Chances of winning across the game"),
      h("svg:desc", { id: "chances-desc" }, `The chance of winning of ${names} after each of the game's ${analysis.decisions.length} decisions, as the player who made it could estimate it; marked: ${counts}.`),
      grid,
      h("svg:line", { class: "cursor", x1: x(step), x2: x(step), y1: PAD.top, y2: HEIGHT - PAD.bottom }),
      h("svg:text", { class: "axis", x: PAD.left, y: HEIGHT - 6 }, "step 0"),
      h("svg:text", { class: "axis", x: WIDTH - PAD.right, y: HEIGHT - 6, "text-anchor": "end" }, `step ${last}`),
      lines, marks),
    h("figcaption", {}, sides.map((side) => h("span", { class: `key side-${side}` }, sideShort(view, side)))));
}

function marksList(view, analysis, onStep) {
  const marked = analysis.decisions.filter((d) => d.mark);
  if (!marked.length) return h("p", {}, "No decision lost the expert's estimate more than an inaccuracy's threshold.");
  return h("ul", { class: "marks", "aria-label": "marked decisions" }, marked.map((d) => h("li", {},
    h("button", { type: "button", class: `mark-step ${d.mark}`, onclick: () => onStep(d.step) },
      `Step ${d.step}: ${MARK_NAMES[d.mark].toLowerCase()} by ${seatName(view, d.seat)} (${percent(d.before)} → ${percent(d.after)})`))));
}

function thresholdsNote(analysis) {
  const { inaccuracy, mistake, blunder } = analysis.thresholds;
  return h("p", { class: "muted" }, `A decision is marked when it lost more than ${percent(inaccuracy)} of its side's chance of winning (an inaccuracy), ${percent(mistake)} (a mistake) or ${percent(blunder)} (a blunder), beyond the noise of the sampled deals, each estimate from what its player knew then.`);
}

function decisionsTable(view, analysis) {
  return h("details", {}, h("summary", {}, "Every decision's chances, as a table"),
    h("div", { class: "table-scroll" }, h("table", { class: "analysis-table" },
      h("thead", {}, h("tr", {}, ["Step", "Who", "Decision", "Before", "After", "Expert's choice", "Mark"].map((title) => h("th", { scope: "col" }, title)))),
      h("tbody", {}, analysis.decisions.map((d) => h("tr", {},
        h("td", {}, d.step), h("td", {}, seatName(view, d.seat)), h("td", {}, decisionText(d.move)),
        h("td", {}, percent(d.before)), h("td", {}, percent(d.after)), h("td", {}, decisionText(d.best)),
        h("td", {}, d.mark ?? "")))))));
}
