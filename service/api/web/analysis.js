// The expert's analysis of a finished game, drawn from the API's answer
// (GET /games/{id}/analysis): a button to ask for it (or a link to it) by the step
// controls, its progress, then a graph of each side's chance of winning before and
// after every decision (an inline SVG, with a title, a description and a table as its
// text alternative), the marked decisions at their steps, and the verdict on the
// decision of the step shown, next to the graph and announced. It knows nothing of
// HTTP: the replay page asks, polls and says which step it shows.
import { h, plural } from "./dom.js";
import { cardLabel } from "./factions.js";
import { decisionText, seatName, sideShort } from "./words.js";

const MARK_NAMES = { inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };
const percent = (chance) => `${Math.round(chance * 100)}%`;
const marks = (count, mark) => plural(count, mark, mark === "inaccuracy" ? "inaccuracies" : `${mark}s`);
const asked = (analysis) => ["queued", "running", "done"].includes(analysis?.status);

// By the step controls: the button that asks for the analysis (`analysis` null while
// unknown: nothing), or a link down to it once asked for; `onAsk` null (nobody signed
// in: an analysis is asked for with a player key), a link to sign in.
export function analysisControl(analysis, onAsk) {
  if (!analysis) return null;
  if (asked(analysis)) return h("a", { href: "#analysis" }, analysis.status === "done" ? "The expert's analysis ↓" : "The expert's analysis under way ↓");
  if (!onAsk) return h("p", { class: "muted", id: "ask-analysis-signed-out" }, h("a", { href: "/inbox" }, "Register or sign in"), " to ask the expert to analyse this game.");
  return h("button", { type: "button", class: "primary", id: "ask-analysis", onclick: onAsk }, "Analyse this game");
}

// The panel: `analysis` the API's answer (null or status none: nothing to show); `step`
// the replay's step shown; `onStep(step)` goes to a step.
export function analysisPanel(view, analysis, last, step, { onStep }) {
  if (!analysis || analysis.status === "none") return null;
  const content = [];
  if (analysis.status === "failed") {
    content.push(h("p", { class: "notice error", role: "alert" }, "The analysis failed: ask for it again with the button by the step controls."));
  } else if (analysis.status !== "done") {
    content.push(h("p", { id: "analysis-progress-label" }, `The expert is analysing the game: ${analysis.done} of ${plural(analysis.total, "decision")} judged.`),
      h("progress", { id: "analysis-progress", max: Math.max(1, analysis.total), value: analysis.done, "aria-labelledby": "analysis-progress-label" }));
  } else {
    content.push(graph(view, analysis, last, step, onStep), howSure(analysis),
      h("div", { id: "verdict", "aria-live": "polite" }, verdict(view, analysis, step)),
      marksList(view, analysis, onStep), thresholdsNote(analysis), decisionsTable(view, analysis));
  }
  return h("section", { class: "panel analysis", id: "analysis", "aria-labelledby": "p-analysis" },
    h("h2", { id: "p-analysis" }, "The expert's analysis"), content);
}

const judgedAt = (analysis, step) => analysis?.status === "done" ? analysis.decisions.find((decision) => decision.step === step) : null;

// A paragraph on the decision of `step` if it is marked (for the step's account).
export function markedNote(view, analysis, step, hand = null) {
  const judged = judgedAt(analysis, step);
  return judged?.mark ? h("div", { id: "marked-note" }, verdict(view, analysis, step, hand)) : null;
}

const HOW = {
  exact: "solved exactly: nothing was hidden",
  deals: "estimated over 40 deals of the cards the player could not see",
  playouts: "a rough estimate from randomized playouts, as the position was too big to solve: never marked",
};

// The verdict on the decision of `step`, from its player's point of view: what it
// changed in the side's chance, the expert's choice, the hand chosen from (if known).
export function verdict(view, analysis, step, hand = null) {
  const judged = judgedAt(analysis, step);
  if (!judged) return h("p", { class: "muted verdict" }, `Step ${step} is no decision: choose a step, a mark or a point of the graph for the expert's verdict.`);
  const who = seatName(view, judged.seat);
  const chance = view.players === 4 ? `${sideShort(view, judged.side)}'s chance` : `${who}'s chance`;
  const how = `(${HOW[judged.method]})`;
  const same = judged.best === judged.move;
  return h("div", { class: `notice verdict ${judged.mark ?? "unmarked"}` },
    h("p", {}, judged.mark ? h("strong", {}, `${MARK_NAMES[judged.mark]} by ${who}. `) : h("strong", {}, `Step ${step}: `),
      `From what ${who} held and had seen, ${who} ${decisionText(judged.move)}: ${chance} of winning went from ${percent(judged.before)} to ${percent(judged.after)} ${how}. `,
      same ? "The expert's choice too." : `Better: ${imperative(judged.best)} (${percent(judged.before)}).`),
    hand ? h("p", { class: "hand-chosen" }, `${who} chose from: ${hand.map(cardLabel).join(", ")}.`) : null);
}

const imperative = (decision) => decisionText(decision).replace(/^(played|took)/, (verb) => (verb === "played" ? "play" : "take"));

function sidesOf(view) { return view.players === 4 ? [0, 1] : [...Array(view.players).keys()]; }

// The graph's size in its own units, chosen when drawn: narrow screens get a taller
// one with fewer units across, so that its labels stay readable once scaled down.
function frame() {
  const narrow = window.matchMedia("(max-width: 600px)").matches;
  return narrow ? { width: 340, height: 300, narrow, pad: { left: 40, right: 8, top: 10, bottom: 40 } }
    : { width: 640, height: 240, narrow, pad: { left: 40, right: 10, top: 10, bottom: 40 } };
}

const xOf = (f, step, last) => f.pad.left + (step / Math.max(1, last)) * (f.width - f.pad.left - f.pad.right);

// Move the graph's line of the step shown to `step`.
export function showStep(panel, step, last) {
  const cursor = panel.querySelector(".cursor");
  const svg = panel.querySelector("#chances");
  if (!cursor || !svg) return;
  const x = xOf(JSON.parse(svg.dataset.frame), step, last);
  cursor.setAttribute("x1", x);
  cursor.setAttribute("x2", x);
}

// Say the verdict on the decision of `step` (once: a live region announces each change).
export function showVerdict(panel, view, analysis, step, hand = null) {
  panel.querySelector("#verdict")?.replaceChildren(verdict(view, analysis, step, hand));
}

// The decisions in runs of one method each: a run is drawn as one line per side.
function runs(decisions) {
  const found = [];
  for (const decision of decisions) {
    if (found.at(-1)?.[0].method === decision.method) found.at(-1).push(decision);
    else found.push([decision]);
  }
  return found;
}

function graph(view, analysis, last, step, onStep) {
  const f = frame();
  const x = (s) => xOf(f, s, last);
  const y = (chance) => f.pad.top + (1 - chance) * (f.height - f.pad.top - f.pad.bottom);
  const bottom = f.height - f.pad.bottom;
  const sides = sidesOf(view);
  // Each side's chance as its players saw it: each of its decisions from the chance
  // before it (with the expert's choice) to after it, the very figures of its verdict.
  const lines = sides.flatMap((side) => runs(analysis.decisions.filter((d) => d.side === side)).map((run) => {
    const points = run.flatMap((d) => [[d.step - 1, d.before], [d.step, d.after]]);
    return h("svg:polyline", { class: `chance side-${side} ${run[0].method}`, points: points.map(([s, c]) => `${x(s).toFixed(1)},${y(c).toFixed(1)}`).join(" ") });
  }));
  const grid = [0, 0.5, 1].map((level) => [
    h("svg:line", { class: "grid", x1: f.pad.left, x2: f.width - f.pad.right, y1: y(level), y2: y(level) }),
    h("svg:text", { class: "axis", x: f.pad.left - 4, y: y(level) + 4, "text-anchor": "end" }, percent(level)),
  ]);
  const every = last <= 30 ? 5 : f.narrow && last > 40 ? 20 : 10;
  const ticks = Array.from({ length: Math.floor(last / every) + 1 }, (_, i) => i * every).map((s) => [
    h("svg:line", { class: "tick", x1: x(s), x2: x(s), y1: bottom, y2: bottom + 4 }),
    h("svg:text", { class: "axis", x: x(s), y: bottom + 16, "text-anchor": "middle" }, s),
  ]);
  const phase2 = analysis.decisions.find((d) => d.phase === 2);
  const phaseLine = phase2 ? [
    h("svg:line", { class: "phase", x1: x(phase2.step - 1), x2: x(phase2.step - 1), y1: f.pad.top, y2: bottom }),
    h("svg:text", { class: "axis", x: x(phase2.step - 1) + 4, y: f.pad.top + 12 }, "phase 2"),
  ] : [];
  const radius = (d) => (f.narrow ? 8 : 5.5) + (d.mark === "blunder" ? 1.5 : 0);
  const dots = analysis.decisions.filter((d) => d.mark).map((d) =>
    h("svg:circle", { class: `mark ${d.mark}`, cx: x(d.step), cy: y(d.after), r: radius(d), "data-step": d.step,
      onclick: (event) => { event.stopPropagation(); onStep(d.step, true); } },
    h("svg:title", {}, `step ${d.step}: ${d.mark}`)));
  const counts = Object.keys(MARK_NAMES).map((mark) => marks(analysis.decisions.filter((d) => d.mark === mark).length, mark)).join(", ");
  const names = sides.map((side) => sideShort(view, side)).join(" and ");
  const svg = h("svg:svg", { viewBox: `0 0 ${f.width} ${f.height}`, role: "img", id: "chances", class: f.narrow ? "narrow" : null,
    "aria-labelledby": "chances-title", "aria-describedby": "chances-desc", "data-frame": JSON.stringify(f),
    onclick: (event) => {  // the nearest step to the point clicked
      const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
      onStep(Math.round(((point.x - f.pad.left) / (f.width - f.pad.left - f.pad.right)) * last), true);
    } },
  h("svg:title", { id: "chances-title" }, "Chances of winning across the game"),
  h("svg:desc", { id: "chances-desc" }, `The chance of winning of ${names} across the game's ${plural(analysis.decisions.length, "decision")}, each side's line from its player's estimate before each of its decisions (with the expert's choice) to after it; marked: ${counts}.`),
  grid, ticks, h("svg:text", { class: "axis", x: f.width - f.pad.right, y: f.height - 4, "text-anchor": "end" }, "step"), phaseLine,
  h("svg:line", { class: "cursor", x1: x(step), x2: x(step), y1: f.pad.top, y2: bottom }),
  lines, dots);
  const methods = new Set(analysis.decisions.map((d) => d.method));
  return h("figure", { class: "chances", "aria-label": "Chances of winning across the game" }, svg,
    h("div", { class: "legend" }, sides.map((side) => h("span", { class: `key side-${side}` }, sideShort(view, side))),
      h("span", { class: "key cursor" }, "step shown"), phase2 ? h("span", { class: "key phase" }, "phase 2 starts") : null,
      methods.has("playouts") ? h("span", { class: "key rough" }, "rough estimate") : null));
}

// How sure the graph is, stretch by stretch, and how it is drawn.
function howSure(analysis) {
  const stretch = (method) => {
    const found = analysis.decisions.filter((d) => d.method === method);
    return found.length ? `steps ${found[0].step} to ${found.at(-1).step}` : null;
  };
  const [exact, rough] = [stretch("exact"), stretch("playouts")];
  return h("p", { class: "muted", id: "chances-how" },
    "Each side's line is its chance of winning as its players saw it, each of its decisions drawn from the chance before it (with the expert's choice) to after it: the figures of the verdict. ",
    "Phase 1 (and any hidden cards) is estimated over 40 deals of the cards the player could not see. ",
    exact ? `A 2-player phase 2 hides nothing: ${exact} are solved exactly. ` : "",
    rough ? `Its first tricks (${rough}, dashed) were too big to solve: a rough estimate from randomized playouts, which can be far from perfect play's value, so never marked.` : "");
}

function marksList(view, analysis, onStep) {
  const marked = analysis.decisions.filter((d) => d.mark);
  if (!marked.length) return h("p", {}, "No decision lost the expert's estimate more than an inaccuracy's threshold.");
  return h("ul", { class: "marks", "aria-label": "marked decisions" }, marked.map((d) => h("li", {},
    h("button", { type: "button", class: `mark-step ${d.mark}`, onclick: () => onStep(d.step, true) },
      `Step ${d.step}: ${d.mark} by ${seatName(view, d.seat)} (${percent(d.before)} → ${percent(d.after)})`))));
}

function thresholdsNote(analysis) {
  const { inaccuracy, mistake, blunder } = analysis.thresholds;
  return h("p", { class: "muted" }, `A decision is marked when it lost more than ${percent(inaccuracy)} of its side's chance of winning (an inaccuracy), ${percent(mistake)} (a mistake) or ${percent(blunder)} (a blunder), beyond the noise of the sampled deals (a rough estimate is never marked), each estimate from what its player knew then.`);
}

function decisionsTable(view, analysis) {
  return h("details", {}, h("summary", {}, "Every decision's chances, as a table"),
    h("table", { class: "analysis-table" },
      h("thead", {}, h("tr", {}, ["Step", "Decision", "Chance", "Expert's choice"].map((title) => h("th", { scope: "col" }, title)))),
      h("tbody", {}, analysis.decisions.map((d) => h("tr", {},
        h("td", {}, d.step), h("td", {}, `${seatName(view, d.seat)} ${decisionText(d.move)}`),
        h("td", {}, `${percent(d.before)} → ${percent(d.after)}`, d.mark ? h("strong", {}, ` ${d.mark}`) : "", d.method === "playouts" ? " (rough)" : ""),
        h("td", {}, d.best === d.move ? "the same" : decisionText(d.best)))))));
}
