// Your hand, and the choices you have now: only what the server lists as legal can be
// pressed; every other card says why not (the server's reason) on hover, focus or tap,
// and pressing it tells the reason instead of moving. Reports a decision through
// `onDecision`; knows nothing of HTTP.
import { faceButton, faces, powerText, withTip } from "./cards.js";
import { h, say } from "./dom.js";
import { cardLabel } from "./factions.js";
import { seatName } from "./words.js";

// The server's reason ("must follow Goblins (or play a Doppelganger)") as a sentence.
function sentence(reason) {
  return reason.startsWith("must ") ? `You ${reason}.` : `${reason[0].toUpperCase()}${reason.slice(1)}.`;
}

function whyNot(view, code, mine) {
  const reason = view.you.unplayable?.[code];
  if (reason) return sentence(reason);
  if (view.status !== "running") return view.status === "open" ? "The game has not started." : "The game is over.";
  if (view.seats[view.you.seat].takeover) return "An AI plays your seat now: take it back first.";
  if (!mine && view.table.to_act === view.you.seat) return "Your move is on its way.";
  if (!mine) return `Not your turn: ${seatName(view, view.table.to_act)} plays now.`;
  return "Not now: choose what to take first.";
}

function choices(view, onDecision) {
  const legal = view.you.legal.filter((decision) => !decision.startsWith("play "));
  if (!legal.length) return null;
  const peek = view.you.peek;
  const buttons = legal.map((decision) => {
    if (decision === "take deck") {
      const label = `Take the top card of the draw pile${peek ? `: ${cardLabel(peek)}` : ""}`;
      return peek ? faceButton(peek, { label, onclick: () => onDecision(decision), cls: "choice" })
        : h("button", { type: "button", class: "primary choice", onclick: () => onDecision(decision) }, label);
    }
    const code = decision.slice(5);
    return faceButton(code, { label: `Take the prize ${cardLabel(code)}`, onclick: () => onDecision(decision), cls: "choice" });
  });
  const prompt = peek
    ? `You won with a Seer: take a prize, or the top card of the draw pile (${cardLabel(peek)}, which only you have seen).`
    : "Choose a prize for your followers.";
  return h("div", { class: "choices", role: "group", "aria-label": "your choice" }, h("p", { class: "prompt" }, prompt), h("div", { class: "row" }, buttons));
}

// Your piles, beside your hand: followers (face up: only you see them), score pile and
// Gnomes in front (everybody sees those).
function yourPiles(view) {
  const seat = view.you.seat;
  const table = view.table;
  const pile = (title, codes, label) => h("div", { class: "your-pile" }, h("span", { class: "label" }, `${title} (${codes.length})`), faces(codes, label, "mini"));
  return h("div", { class: "your-piles" }, pile("Your followers", view.you.follower_pile, "your followers"),
    pile("Your score pile", table.score_piles[seat], "your score pile"),
    table.gnomes_in_front[seat].length ? pile("Gnomes in front of you", table.gnomes_in_front[seat], "Gnomes in front of you") : null);
}

export function handElement(view, onDecision) {
  const you = view.you;
  const mine = onDecision != null && view.table?.to_act === you.seat;
  const legal = new Set(mine ? you.legal : []);
  const cards = you.hand.map((code) => {
    const decision = `play ${code}`;
    const reason = legal.has(decision) ? null : whyNot(view, code, mine);
    const button = faceButton(code, {
      label: `Play ${cardLabel(code)}`,
      disabledReason: reason,
      idle: !mine,
      onclick: () => (reason ? say(reason) : onDecision(decision)),
    });
    return h("li", {}, withTip(button, reason ? `${reason} ${powerText(code.slice(0, 2), view.players)}` : powerText(code.slice(0, 2), view.players)));
  });
  const anyPlayable = you.hand.some((code) => legal.has(`play ${code}`));
  const firstReason = you.hand.map((code) => you.unplayable?.[code]).find(Boolean);
  const choosing = mine ? choices(view, onDecision) : null;
  return h("section", { class: `hand-area${choosing ? " choosing" : ""}`, "aria-labelledby": "hand-title" },
    h("div", { class: "hand-head" }, h("h2", { id: "hand-title" }, "Your hand", h("span", { class: "muted" }, ` · ${you.hand.length} cards`)), yourPiles(view)),
    choosing,
    h("ul", { class: "cards hand", "aria-label": "your hand", tabindex: "-1" }, cards),
    h("p", { class: "hint muted", id: "hand-hint" }, firstReason ? `Greyed cards: ${sentence(firstReason)}` : mine && anyPlayable ? "Press a card to play it." : ""));
}
