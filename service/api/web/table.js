// The card table: the seats around it (you at the bottom, your partner across with 4
// players), each with its hand and follower pile as card backs with counts and its
// score pile face up; in the middle the prize(s), the draw pile, and the trick, each
// card in front of the seat that played it. A round just finished stays on the table,
// its winner marked, until the next card is played. A function of the view it draws;
// it knows nothing of HTTP.
import { back, face, faces } from "./cards.js";
import { h, plural } from "./dom.js";
import { cardLabel, factionName } from "./factions.js";
import { Who, nextLeader, phase2Destinations, relation, seatName, teamName, teamOf, who } from "./words.js";

const PLACES = { 2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"] };

// Where `seat` sits for the reader `me` (a spectator sees the first seat at the bottom).
function placeOf(view, seat, me) {
  const n = view.players;
  return PLACES[n][(seat - (me ?? 0) + n) % n];
}

// The rounds of the phase being played: those played, and one for each card of the
// fullest hand (a seat that has not played yet this round still holds its card; a
// round whose prizes are being taken is still this one).
export function roundsOfPhase(view) {
  const table = view.table;
  return table.round + Math.max(...table.hand_sizes) + (table.trick.length === view.players ? 1 : 0);
}

// The trick to show now: the cards of the round being played, or, before its first
// card (and once the game is over), the round just finished, its winner marked.
export function shownTrick(view) {
  const table = view.table;
  const last = table.rounds.at(-1);
  if (table.trick.length || !last) return { plays: table.trick, winner: null, done: false };
  return { plays: last.plays, winner: last.winner, done: true };
}

function badges(view, seat, me) {
  const s = view.seats[seat];
  const rel = relation(view, seat, me);
  const list = [];
  if (rel === "you") list.push(["you", "You"]);
  else if (rel) list.push([rel, rel === "partner" ? "Partner" : "Opponent"]);
  if (view.players === 4) list.push([`team team-${teamOf(seat)}`, teamName(teamOf(seat)).replace("team", "Team")]);
  if (s.bot) list.push(["bot", "Bot"]);
  if (s.takeover) list.push(["ai", `AI (${s.takeover}) plays for ${seat === me ? "you" : "them"}`]);
  else if (s.ai_decisions) list.push(["ai", `An AI moved ${plural(s.ai_decisions, "time")} for ${seat === me ? "you" : "them"} (time ran out)`]);
  if (view.table.to_act === seat && view.status === "running") list.push(["acting", seat === me ? "Your turn" : "To play"]);
  return h("span", { class: "badges" }, list.map(([cls, text]) => h("span", { class: `badge ${cls}` }, text)));
}

function seatBox(view, seat, me) {
  const table = view.table;
  const hand = view.revealed?.hands[seat];
  const followers = view.revealed?.follower_piles[seat] ?? (seat === me ? view.you.follower_pile : null);
  const name = seatName(view, seat);
  const acting = table.to_act === seat && view.status === "running";
  const team = view.players === 4 ? ` team-${teamOf(seat)}` : "";
  const place = placeOf(view, seat, me);
  return h("div", { class: `seat place-${place}${team}${acting ? " acting" : ""}`, role: "group", "aria-label": seat === me ? `you (${name})` : name, "data-seat": seat },
    h("div", { class: "seat-head" }, h("span", { class: "seat-name" }, name), badges(view, seat, me)),
    h("div", { class: "piles" },
      seat === me && !hand ? null : hand
        ? h("div", { class: "open-hand" }, h("span", { class: "label" }, "Hand"), faces(hand, `hand of ${name}`, "mini"))
        : back(table.hand_sizes[seat], `${plural(table.hand_sizes[seat], "card")} in ${name}'s hand`, "in hand", "pile-hand"),
      followers
        ? h("div", { class: "open-hand pile-followers" }, h("span", { class: "label" }, `Followers (${followers.length})`),
          faces(followers, seat === me ? "your followers" : `followers of ${name}`, "mini"))
        : back(table.follower_pile_sizes[seat], `${plural(table.follower_pile_sizes[seat], "follower")} of ${name}`,
          table.follower_pile_sizes[seat] === 1 ? "follower" : "followers", "pile-followers")),
    h("div", { class: "score" }, h("span", { class: "label" }, `Score pile (${table.score_piles[seat].length})`),
      faces(table.score_piles[seat], `score pile of ${name}`, "mini"),
      table.gnomes_in_front[seat].length
        ? [h("span", { class: "label" }, "Gnomes in front"), faces(table.gnomes_in_front[seat], `Gnomes in front of ${name}`, "mini")] : null));
}

function trickCards(view, me, trick, entering) {
  return trick.plays.map((play, n) => {
    const won = trick.done && play.seat === trick.winner;
    const label = `${cardLabel(play.card)}, ${n === 0 ? "led" : "played"} by ${who(view, play.seat, me)}${won ? ": won the round" : ""}`;
    const cls = ["played", `at-${placeOf(view, play.seat, me)}`, trick.done ? "done" : "", won ? "winner" : "",
      !trick.done && n >= entering ? "enter" : ""].filter(Boolean).join(" ");
    return face(play.card, { tag: "div", label, cls, "data-seat": play.seat });
  });
}

function trickCaption(view, me, trick) {
  if (trick.done) return `${Who(view, trick.winner, me)} won`;
  const led = trick.plays[0]?.card.slice(0, 2);
  if (led) return `${factionName(led)} led`;
  if (view.table.to_act == null) return "";
  return view.table.to_act === me ? "Your lead" : `${seatName(view, view.table.to_act)} leads`;
}

// The middle of the table: the draw pile, the prize(s) turned up beside it (and the
// top card a Seer showed you), the trick in front of the seats, the Trolls set aside.
function middle(view, me, trick, entering) {
  const table = view.table;
  const peek = view.you?.peek;
  const prizes = table.phase === 1
    ? h("div", { class: "prizes" }, h("span", { class: "label" }, table.prizes.length > 1 ? "Prizes" : "Prize"),
      h("div", { class: "row" }, table.prizes.map((code) => face(code, { tag: "div", label: `prize: ${cardLabel(code)}`, cls: "prize", "data-card": code }))))
    : h("p", { class: "phase2" }, "Phase 2: winning the factions");
  return h("div", { class: "middle" },
    h("div", { class: "stock" },
      h("div", { class: "draw" }, back(table.draw_pile_size, `${plural(table.draw_pile_size, "card")} in the draw pile`, "left", "pile-draw"),
        h("span", { class: "label" }, `discard ${table.discard.length}`)),
      prizes,
      peek ? h("div", { class: "peek" }, h("span", { class: "label" }, "Top card, seen only by you"),
        face(peek, { tag: "div", label: `top of the draw pile, seen only by you: ${cardLabel(peek)}`, cls: "seen" })) : null),
    h("div", { class: `trick${trick.done ? " finished" : ""}`, role: "group", "aria-label": trick.done ? "the round just finished" : "cards played this round" },
      trickCards(view, me, trick, entering), h("p", { class: "trick-caption" }, trickCaption(view, me, trick))),
    table.trolls_aside.length ? h("div", { class: "aside" }, h("span", { class: "label" }, "Trolls set aside"), faces(table.trolls_aside, "Trolls set aside", "mini")) : null);
}

// A short account of the round just finished, under the trick: who won with what,
// where each card taken went.
function lastRoundLine(view, me) {
  const last = view.table.rounds.at(-1);
  if (!last) return h("div", { class: "last-round muted", id: "last-round" }, "The first round: the leader plays any card.");
  const winning = last.plays.find((play) => play.seat === last.winner);
  const cards = h("ul", { class: "cards mini", "aria-hidden": "true" }, last.plays.map((play) =>
    face(play.card, { cls: play.seat === last.winner ? "winner" : "", title: `${cardLabel(play.card)}: ${who(view, play.seat, me)}` })));
  const parts = [`${Who(view, last.winner, me)} won round ${last.number + 1}${winning ? ` with ${cardLabel(winning.card)}` : ""}`];
  for (const got of last.acquired) {
    const taker = who(view, got.seat, me);
    if (got.source === "prize") parts.push(`prize ${cardLabel(got.card)} → ${taker}`);
    else if (got.source === "deck") parts.push(`top card${got.card ? ` ${cardLabel(got.card)}` : ""} → ${taker}`);
    else parts.push(`${taker} drew ${got.card ? cardLabel(got.card) : "a card"}`);
  }
  if (last.phase === 2) parts.push(...phase2Destinations(view, last, me));
  const leads = nextLeader(view, last);
  if (leads != null && leads !== last.winner) parts.push(`${Who(view, leads, me)} ${leads === me ? "lead" : "leads"} next (the round's last Dragon)`);
  return h("div", { class: "last-round", id: "last-round" }, cards, h("p", {}, h("span", { class: "label" }, "Last round: "), parts.join(" · ")));
}

// The table for the reader `me`; `entering`: how many cards of the trick were shown
// before (the others come in with a short move). A seat playing sees its own piles
// with its hand (hand.js), not at the table: the table stays short enough to be seen
// whole above the hand.
export function tableElement(view, me, entering = 0) {
  const trick = shownTrick(view);
  const playing = me != null && view.status === "running";
  const seats = view.seats.map((_, seat) => (playing && seat === me ? null : seatBox(view, seat, me)));
  return h("section", { class: `felt players-${view.players}`, "aria-label": "the table", "data-version": view.version },
    seats, middle(view, me, trick, entering), lastRoundLine(view, me));
}
