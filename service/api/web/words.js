// Who and what, in words: seat names, sides, decisions and finished rounds as a person
// reads them ("Bo won: the prize Goblins 3 went to Bo's followers"). `me` is the seat
// of the person reading (null: a spectator), who is "you". People count seats from
// one ("seat 1" is the API's seat 0) and call the teams A and B.
import { cardLabel } from "./factions.js";
import { dwarvesReceiver } from "./rules.js";

export const seatNumber = (seat) => seat + 1;

function baseName(seat) {
  if (seat.kind === "ai") return `AI (${seat.level})`;
  return seat.name ?? "an open seat";
}

// A seat's name; where two seats would read the same ("AI (greedy)" twice), with its
// number: "AI 2 (greedy)", "Ann (seat 3)".
export function seatName(view, seat) {
  const spec = view.seats[seat];
  const base = baseName(spec);
  if (view.seats.filter((other) => baseName(other) === base).length < 2) return base;
  return spec.kind === "ai" ? `AI ${seatNumber(seat)} (${spec.level})` : `${base} (seat ${seatNumber(seat)})`;
}

export function who(view, seat, me) { return seat === me ? "you" : seatName(view, seat); }
export function Who(view, seat, me) { return seat === me ? "You" : seatName(view, seat); }
export function whose(view, seat, me) { return seat === me ? "your" : `${seatName(view, seat)}'s`; }

export const teamOf = (seat) => seat % 2;
export const teamName = (team) => `team ${"AB"[team]}`;
export function sideName(view, side, me = null) {
  if (view.players !== 4) return Who(view, side, me);
  const mine = me != null && teamOf(me) === side;
  return `${mine ? "your team" : teamName(side)} (${[side, side + 2].map((seat) => who(view, seat, me)).join(" & ")})`;
}

// A side in a few words, for tables: "you", "Bo", "your team", "team B".
export function sideShort(view, side, me = null) {
  if (view.players !== 4) return Who(view, side, me);
  return me != null && teamOf(me) === side ? "your team" : teamName(side);
}

// How `seat` stands to the reader: "you", "partner", "opponent" (4 players), or null.
export function relation(view, seat, me) {
  if (seat === me) return "you";
  if (view.players !== 4 || me == null) return null;
  return teamOf(seat) === teamOf(me) ? "partner" : "opponent";
}

export function decisionText(decision, peek = null) {
  if (decision === "take deck") return `took the top card of the draw pile${peek ? ` (${cardLabel(peek)})` : ""}`;
  const [verb, code] = decision.split(" ");
  return `${verb === "play" ? "played" : "took the prize"} ${cardLabel(code)}`;
}

// The server's account of a step ("seat 1 played UN3"), with names and card names.
export function readable(text, view, me = null) {
  const whoseSeat = (_, seat, at) => { const words = whose(view, +seat, me); return at === 0 ? words[0].toUpperCase() + words.slice(1) : words; };
  return text.replace(/ took seat \d$/, " joined the game").replace(/\bseat (\d)'s\b/g, whoseSeat)
    .replace(/\bseat (\d)\b/g, (_, seat) => Who(view, +seat, me)).replace(/\b([A-Z]{2})(\d)\b/g, (code) => cardLabel(code));
}

// A finished round (the view's `table.rounds` entry) in sentences: the plays, who won,
// where each card taken went, a Seer's peek (seen only by its seat), Gnomes removed.
export function roundSentences(view, round, me) {
  const plays = round.plays.map((play, n) => `${Who(view, play.seat, me)} ${n === 0 ? "led" : "played"} ${cardLabel(play.card)}`);
  const lines = [`${plays.join(", ")}.`];
  const winning = round.plays.find((play) => play.seat === round.winner);
  lines.push(`${Who(view, round.winner, me)} won${winning ? ` with ${cardLabel(winning.card)}` : ""}.`);
  if (round.phase === 2) {
    const went = phase2Destinations(view, round, me).join("; ");
    lines.push(`${went[0].toUpperCase()}${went.slice(1)}.`);
  }
  if (round.peek) lines.push(`${Who(view, round.peek.seat, me)} saw ${cardLabel(round.peek.card)} on top of the draw pile.`);
  for (const got of round.acquired) {  // all to the follower piles
    const taker = Who(view, got.seat, me);
    if (got.source === "prize") lines.push(`${taker} took the prize ${cardLabel(got.card)}.`);
    else if (got.source === "deck") lines.push(`${taker} took the top card of the draw pile${got.card ? `, ${cardLabel(got.card)}` : ""}.`);
    else lines.push(`${taker} drew ${got.card ? cardLabel(got.card) : "a card"}.`);
  }
  for (const gone of round.removed) lines.push(`Giants removed ${cardLabel(gone.card)} from in front of ${who(view, gone.seat, me)}.`);
  const leads = nextLeader(view, round);
  if (leads != null && leads !== round.winner) lines.push(`${Who(view, leads, me)} ${leads === me ? "lead" : "leads"} next: the round's last Dragon was ${leads === me ? "yours" : "theirs"}.`);
  return lines;
}

// Where the cards of a phase-2 round went (RULES.md 5 and 6), in short phrases: the
// winner's score pile, but the Dwarves to the one the power gives them, the Gnomes in
// front of the winner, the Trolls kept one at a time.
export function phase2Destinations(view, round, me) {
  const of = (faction) => round.plays.filter((play) => play.card.startsWith(faction)).map((play) => cardLabel(play.card));
  const [dwarves, gnomes, trolls] = [of("DW"), of("GN"), of("TR")];
  const others = round.plays.length - dwarves.length - gnomes.length - trolls.length;
  const phrases = [];
  if (others) phrases.push(`${others < round.plays.length ? "the other cards" : "the cards"} → ${whose(view, round.winner, me)} score pile`);
  if (dwarves.length) phrases.push(`${dwarves.join(", ")} → ${whose(view, dwarvesReceiver(round.plays, round.winner), me)} score pile`);
  if (gnomes.length) phrases.push(`${gnomes.join(", ")} laid in front of ${who(view, round.winner, me)}`);
  if (trolls.length) phrases.push(`${trolls.join(", ")}: the highest Troll of the round and those set aside → ${whose(view, round.winner, me)} score pile, the others set aside`);
  return phrases;
}

// Who led the round after `round` (the round being played, for the last one), or null.
export function nextLeader(view, round) {
  const rounds = view.table.rounds;
  const next = rounds[rounds.indexOf(round) + 1];
  if (next) return next.leader;
  return view.status === "running" ? view.table.leader : null;
}
