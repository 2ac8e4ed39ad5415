// The rules of Claim and Claim 2 (docs/RULES.md) in the browser: a game dealt from its
// deck and settings, then taken through its decisions one by one, each checked, to its
// result. A second engine beside the server's (service/domain), written from the rules,
// so that a page can replay a finished game's log without taking the server's word
// for it (verify.js). Held to the server's engine by tests/web/test_rules.py: the 300
// conformance games and random games, every step's legal decisions, the reasons for
// illegal ones, and the scoring.
//
// Cards are their codes ("GO3"): a faction code and a value. Codes sort as the rules'
// engine keeps hands (by faction code, then value), so a plain sort orders them.
import { FACTIONS } from "./factions.js";

// RULES.md 1: every card of each faction, copies repeated.
const FACTION_VALUES = {
  GO: [0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], KN: [2, 3, 4, 5, 6, 7, 8, 9],
  UN: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], DO: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], DW: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  GN: [1, 1, 1, 3, 3, 3, 5, 5, 5, 7, 7, 7, 9], GI: [1, 1, 3, 3, 5, 5, 7, 7, 9],
  DR: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], TR: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], SE: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
};
const PAIRS = [["GO", "KN"], ["GN", "GI"]];
const SINGLES_PER_GAME = { 2: 3, 3: 5, 4: 5 };
const HAND_SIZE = { 2: 13, 3: 12, 4: 9 };

// Where a card that joins a follower pile in phase 1 came from (RULES.md 4, 6 Seers).
const PRIZE = "prize";
const DECK = "deck";  // the draw pile's top card, taken after a Seer win
const DRAW = "draw";

const factionOf = (card) => card.slice(0, 2);
const valueOf = (card) => card.charCodeAt(2) - 48;
const title = (faction) => FACTIONS[faction].name;

// Errors are types, worded as the server's engine words them.
export class InvalidGame extends Error {}  // settings or a deck that name no legal game
export class MalformedDecision extends Error {}
export class IllegalDecision extends Error {
  constructor(reason) { super(reason); this.reason = reason; }
}
export class NotYourTurn extends IllegalDecision {}
export class GameOver extends IllegalDecision {}

// Python's repr of a string or number, as the server's messages quote what they got.
const quoted = (value) => (typeof value === "string" ? `'${value}'` : String(value));

export function sideOf(players, seat) { return players === 4 ? seat % 2 : seat; }
export function sides(players) { return players === 4 ? [[0, 2], [1, 3]] : [...Array(players).keys()].map((seat) => [seat]); }

// RULES.md 2: 2, 3 or 4 players; one pair and 3 (or 5) singles; a first leader among them.
function checkSettings({ players, factions, firstLeader = 0 }) {
  if (![2, 3, 4].includes(players)) throw new InvalidGame(`a game has 2, 3 or 4 players, not ${quoted(players)}`);
  if (!Array.isArray(factions)) throw new InvalidGame("factions are a list of faction codes");
  const unknown = factions.find((code) => !Object.hasOwn(FACTION_VALUES, code));
  if (unknown !== undefined) throw new InvalidGame(`unknown faction ${quoted(unknown)}`);
  const repeated = [...new Set(factions.filter((code, at) => factions.indexOf(code) !== at))].sort();
  if (repeated.length) throw new InvalidGame(`a faction appears twice: ${repeated.join(", ")}`);
  const pairs = PAIRS.filter(([a, b]) => factions.includes(a) || factions.includes(b));
  if (pairs.length !== 1) {
    throw new InvalidGame(`a deck has exactly one pair, Goblins+Knights or Gnomes+Giants (got ${pairs.length ? "both" : "neither"})`);
  }
  const [a, b] = pairs[0];
  if (!(factions.includes(a) && factions.includes(b))) throw new InvalidGame(`half a pair: ${title(a)} and ${title(b)} go together`);
  const wanted = SINGLES_PER_GAME[players];
  if (factions.length - 2 !== wanted) {
    throw new InvalidGame(`${players} players use ${wanted + 2} factions (one pair and ${wanted} singles), not ${factions.length}`);
  }
  if (!Number.isInteger(firstLeader) || firstLeader < 0 || firstLeader >= players) {
    throw new InvalidGame(`the first leader is a seat from 0 to ${players - 1}, not ${quoted(firstLeader)}`);
  }
  return { players, factions: [...factions], firstLeader };
}

// Every card of `factions`, in code order.
function fullDeck(factions) {
  return factions.flatMap((faction) => FACTION_VALUES[faction].map((value) => `${faction}${value}`)).sort();
}

// The deck if it holds exactly the cards of `factions` (RULES.md 2), else InvalidGame.
function checkDeck(factions, deck) {
  if (!Array.isArray(deck) || deck.some((card) => typeof card !== "string")) throw new InvalidGame("a deck is a list of card codes");
  const want = fullDeck(factions);
  const have = [...deck].sort();
  if (have.length === want.length && have.every((card, at) => card === want[at])) return [...deck];
  const extra = [...have];
  const missing = want.filter((card) => {
    const at = extra.indexOf(card);
    if (at < 0) return true;
    extra.splice(at, 1);
    return false;
  });
  const parts = [extra.length ? `not in these factions or too many: ${extra.join(" ")}` : null,
    missing.length ? `missing: ${missing.join(" ")}` : null].filter(Boolean);
  throw new InvalidGame(`the deck must be exactly the ${want.length} cards of its factions (${parts.join("; ")})`);
}

// "play GO3", "take KN5" or "take deck", as {kind, card} (card null for the deck).
export function parseDecision(text) {
  const words = typeof text === "string" ? text.trim().split(/\s+/) : [];
  const [kind, what] = words;
  if (words.length !== 2 || !["play", "take"].includes(kind) || (kind === "play" && what === "deck")) {
    throw new MalformedDecision(`${quoted(text)} is not a decision: write 'play <card>', 'take <card>' or 'take deck'`);
  }
  if (what === "deck") return { kind, card: null };
  if (!/^[A-Z]{2}\d$/.test(what) || !FACTION_VALUES[factionOf(what)]?.includes(valueOf(what))) {
    throw new MalformedDecision(`unknown card ${quoted(what)}`);
  }
  return { kind, card: what };
}

// RULES.md 3 step 2, the follow rule: the cards of `hand` that may be played after a
// lead of `led` (null: to lead, any). Holding the led faction, play it or a
// Doppelganger; when Doppelgangers are led, holding one, play one.
function playable(hand, led) {
  if (led == null || !hand.some((card) => factionOf(card) === led)) return hand;
  return hand.filter((card) => factionOf(card) === led || factionOf(card) === "DO");
}

function mustFollow(led, factions) {
  if (led === "DO") return "must follow Doppelgangers";
  return factions.includes("DO") ? `must follow ${title(led)} (or play a Doppelganger)` : `must follow ${title(led)}`;
}

// RULES.md 3 and 6 (Knights): the play that wins a complete round. Among the cards
// that follow (the led faction, or a Doppelganger), the highest; equal values go to
// the one played first. A Knight in a round Goblins led wins it (the highest Knight).
function winningPlay(plays) {
  let best = plays[0];
  const led = factionOf(best.card);
  if (led === "GO") {
    const knights = plays.filter((play) => factionOf(play.card) === "KN");
    if (knights.length) return knights.reduce((top, play) => (valueOf(play.card) > valueOf(top.card) ? play : top));
  }
  for (const play of plays) {
    const faction = factionOf(play.card);
    if (valueOf(play.card) > valueOf(best.card) && (faction === led || faction === "DO")) best = play;
  }
  return best;
}

// RULES.md 3 step 5: whoever played the round's last Dragon leads next, else its winner.
function nextLeader(plays, winner) {
  for (let at = plays.length - 1; at >= 0; at--) if (factionOf(plays[at].card) === "DR") return plays[at].seat;
  return winner;
}

// RULES.md 4, 3-4 players: who gets the prizes and draws, in order: the winner; then
// Knights in a Goblin-led round [decision]; then the others who followed; then those
// who did not; each group highest value first, ties to the card played earlier.
function ranking(plays, winner) {
  const led = factionOf(plays[0].card);
  const group = (faction) => (faction === led || faction === "DO" ? 1 : led === "GO" && faction === "KN" ? 0 : 2);
  const others = plays.map((play, order) => ({ ...play, order, group: group(factionOf(play.card)) }))
    .filter((play) => play.seat !== winner)
    .sort((a, b) => a.group - b.group || valueOf(b.card) - valueOf(a.card) || a.order - b.order);
  return [winner, ...others.map((play) => play.seat)];
}

// RULES.md 6, Dwarves: with 2 players to the round's loser; with 3-4 to whoever played
// its lowest card, on equal values the last of them.
export function dwarvesReceiver(plays, winner) {
  if (plays.length === 2) return plays[0].seat === winner ? plays[1].seat : plays[0].seat;
  let lowest = plays[0];
  for (const play of plays.slice(1)) if (valueOf(play.card) <= valueOf(lowest.card)) lowest = play;
  return lowest.seat;
}

// The prizes no acquisition took yet.
function untaken(prizes, acquired) {
  const remaining = [...prizes];
  for (const got of acquired) if (got.source === PRIZE) remaining.splice(remaining.indexOf(got.card), 1);
  return remaining;
}

// A game from its deal, taken through decisions: `apply` checks each as the rules say
// and changes this replay (its own copy of everything); `legalDecisions`, `toAct`,
// `isOver` and `result` ask it, as the server's engine is asked.
export class Replay {
  constructor(settings, deck) {
    this.settings = checkSettings(settings);
    const { players, firstLeader } = this.settings;
    this.deck = checkDeck(this.settings.factions, deck);
    const size = HAND_SIZE[players];
    const seats = [...Array(players).keys()];
    this.hands = seats.map((seat) => this.deck.slice(seat * size, (seat + 1) * size).sort());
    this.drawPile = this.deck.slice(players * size);  // top first
    this.followerPiles = seats.map(() => []);
    this.scorePiles = seats.map(() => []);
    this.gnomesInFront = seats.map(() => []);
    this.discard = [];
    this.trollsAside = [];
    this.removed = [];  // Gnomes that Giants took out of the game
    this.phase = 1;
    this.round = 0;  // within the phase, from 0
    this.rounds = [];  // every finished round: {phase, number, leader, plays, winner, prizes, acquired, peek, removed}
    this.prizes = [];
    this.trick = [];  // {seat, card} in the order played
    this.winner = null;
    this.takers = [];  // seats still to get a prize or draw this round, in rank order
    this.seerChoice = false;
    this.acquired = [];  // {seat, card, source} this round
    this.peek = null;
    this.#startRound(firstLeader);
  }

  get players() { return this.settings.players; }
  get isOver() { return this.toAct === null; }
  // The leader of every round so far, phase 1 then phase 2.
  get roundLeaders() { return [...this.rounds.map((round) => round.leader), ...(this.isOver ? [] : [this.leader])]; }

  // Every decision the seat to act may make now, sorted, without repeats.
  legalDecisions() {
    if (this.isOver) return [];
    if (this.takers.length) {
      const prizes = [...new Set(untaken(this.prizes, this.acquired))].sort();
      return [...prizes.map((card) => `take ${card}`), ...(this.seerChoice ? ["take deck"] : [])];
    }
    const led = this.trick.length ? factionOf(this.trick[0].card) : null;
    return [...new Set(playable(this.hands[this.toAct], led))].map((card) => `play ${card}`);
  }

  // The seat to act (checked to be `seat`, if given) makes `decision` (its text);
  // IllegalDecision (NotYourTurn, GameOver) with the reason, or MalformedDecision, and
  // nothing changed, if it may not.
  apply(decision, seat = null) {
    const { kind, card } = parseDecision(decision);
    const acting = this.toAct;
    if (acting === null) throw new GameOver("the game is over");
    if (seat !== null && seat !== acting) throw new NotYourTurn(`it is seat ${acting}'s turn, not seat ${seat}'s`);
    if (kind === "play") {
      const hand = this.hands[acting];
      if (this.takers.length || !hand.includes(card) || !this.#followsRule(hand, card)) throw new IllegalDecision(this.#whyIllegal(kind, card));
      this.#play(acting, card);
    } else {
      const allowed = card === null ? this.seerChoice : untaken(this.prizes, this.acquired).includes(card);
      if (!this.takers.length || !allowed) throw new IllegalDecision(this.#whyIllegal(kind, card));
      this.#take(card);
    }
  }

  // RULES.md 7: who wins each faction (by side; null: nobody), each side's figures
  // (factions won, their cards, the sum of their values) and the winning side (null:
  // a draw). Sides are seats, or teams 0+2 and 1+3 with 4 players.
  result() {
    if (!this.isOver) throw new Error("the game is not over");
    const piles = sides(this.players).map((side) => side.flatMap((seat) => this.scorePiles[seat]));
    const factionWinners = Object.fromEntries(this.settings.factions.map((faction) => [faction, factionWinner(piles, faction)]));
    const sideKeys = piles.map((pile, side) => {
      const cards = pile.filter((card) => factionWinners[factionOf(card)] === side);
      const won = Object.values(factionWinners).filter((winner) => winner === side).length;
      return [won, cards.length, cards.reduce((sum, card) => sum + valueOf(card), 0)];
    });
    return { factionWinners, sideKeys, winner: best(sideKeys) };
  }

  #followsRule(hand, card) {
    if (!this.trick.length) return true;
    const led = factionOf(this.trick[0].card);
    const faction = factionOf(card);
    if (faction === led) return true;
    const holds = (f) => hand.some((c) => factionOf(c) === f);
    if (led === "DO") return !holds("DO");
    return faction === "DO" || !holds(led);
  }

  #whyIllegal(kind, card) {
    const seat = this.toAct;
    if (this.takers.length) {
      if (kind === "play") return `seat ${seat} must take a prize now, not play a card`;
      if (card === null) return `seat ${seat} did not win with a Seer: no Seer choice pending`;
      return `${card} is not a prize now; take ${untaken(this.prizes, this.acquired).join(" or ")}`;
    }
    if (kind !== "play") return `seat ${seat} must play a card now; there is nothing to take`;
    if (!this.hands[seat].includes(card)) return `${card} is not in seat ${seat}'s hand`;
    return `${mustFollow(factionOf(this.trick[0].card), this.settings.factions)}: seat ${seat} holds one`;
  }

  #play(seat, card) {
    const hand = this.hands[seat];
    hand.splice(hand.indexOf(card), 1);
    this.trick.push({ seat, card });
    if (this.trick.length < this.players) this.toAct = (seat + 1) % this.players;
    else if (this.phase === 1) this.#finishPhase1Play();
    else this.#finishPhase2Round();
  }

  // RULES.md 4 and 6: every card of a phase-1 round is down: Undead to the winner's
  // score pile, the rest to the discard; then the prizes and draws, in rank order.
  #finishPhase1Play() {
    const win = winningPlay(this.trick);
    const winner = this.winner = win.seat;
    for (const { card } of this.trick) (factionOf(card) === "UN" ? this.scorePiles[winner] : this.discard).push(card);
    this.takers = this.players === 2 ? [winner, 1 - winner] : ranking(this.trick, winner);
    // RULES.md 6, Seers: a win with a Seer (not a Doppelganger) shows the winner the
    // draw pile's top card, which they may take instead of a prize.
    if (factionOf(win.card) === "SE") {
      this.seerChoice = true;
      this.peek = { seat: winner, card: this.drawPile[0] };
    }
    this.#handOut();
  }

  #take(prize) {
    if (prize === null) this.#acquire(this.drawPile[0], DECK); else this.#acquire(prize, PRIZE);
    this.seerChoice = false;
    this.#handOut();
  }

  // The next takers get their prize or draw until one has a choice to make.
  #handOut() {
    let remaining = untaken(this.prizes, this.acquired);
    while (this.takers.length) {
      if (this.seerChoice || remaining.length > 1) {
        this.toAct = this.takers[0];
        return;
      }
      if (remaining.length) {
        this.#acquire(remaining[0], PRIZE);
        remaining = [];
      } else {
        this.#acquire(this.drawPile[0], DRAW);
      }
    }
    this.#nextRound();
  }

  #acquire(card, source) {
    const seat = this.takers.shift();
    this.followerPiles[seat].push(card);
    if (source !== PRIZE) this.drawPile.shift();
    this.acquired.push({ seat, card, source });
  }

  // RULES.md 5 and 6: the winner scores a phase-2 round, as the powers allow.
  #finishPhase2Round() {
    const plays = this.trick;
    const winner = this.winner = winningPlay(plays).seat;
    const score = this.scorePiles;
    const trolls = [];
    for (const { card } of plays) {
      const faction = factionOf(card);
      if (faction === "DW") score[dwarvesReceiver(plays, winner)].push(card);
      else if (faction === "TR") trolls.push(card);
      else if (faction === "GN") this.gnomesInFront[winner].push(card);
      else score[winner].push(card);
    }
    // Trolls: the winner keeps the highest of this round's and those set aside; the
    // last round's winner takes every one left.
    const aside = this.trollsAside;
    aside.push(...trolls);
    if (aside.length) {
      const highest = aside.reduce((top, troll) => (valueOf(troll) > valueOf(top) ? troll : top));
      aside.splice(aside.indexOf(highest), 1);
      score[winner].push(highest);
    }
    const last = this.round === HAND_SIZE[this.players] - 1;
    if (last) score[winner].push(...aside.splice(0));
    // Giants: each removes a Gnome of its value from in front of each opponent (with 4
    // players, never from the winner's partner).
    const removed = [];
    const opponents = [...Array(this.players).keys()].filter((seat) => sideOf(this.players, seat) !== sideOf(this.players, winner));
    for (const { card } of plays) {
      if (factionOf(card) !== "GI") continue;
      for (const seat of opponents) {
        const gnomes = this.gnomesInFront[seat];
        const at = gnomes.findIndex((gnome) => valueOf(gnome) === valueOf(card));
        if (at < 0) continue;
        const [gnome] = gnomes.splice(at, 1);
        this.removed.push(gnome);
        removed.push({ seat, card: gnome });
      }
    }
    if (last) {  // RULES.md 7: the Gnomes still in front are scored
      this.gnomesInFront.forEach((gnomes, seat) => score[seat].push(...gnomes.splice(0)));
    }
    this.#nextRound(removed);
  }

  // Record the finished round; start the next one, or phase 2, or end the game.
  #nextRound(removed = []) {
    const { phase, round, leader, trick, winner, prizes, acquired, peek } = this;
    this.rounds.push({ phase, number: round, leader, plays: trick, winner, prizes, acquired, peek, removed });
    const next = nextLeader(trick, winner);
    this.trick = [];
    this.prizes = [];
    this.acquired = [];
    this.winner = this.peek = null;
    this.round += 1;
    if (this.round < HAND_SIZE[this.players]) {
      this.#startRound(next);
    } else if (this.phase === 1) {
      // RULES.md 5: the follower piles become the hands; the leader rule carries over.
      this.phase = 2;
      this.round = 0;
      this.hands = this.followerPiles.map((pile) => [...pile].sort());
      this.followerPiles = this.followerPiles.map(() => []);
      this.#startRound(next);
    } else {
      this.leader = next;
      this.toAct = null;
    }
  }

  // The leader, and in phase 1 the prizes turned up (RULES.md 4).
  #startRound(leader) {
    this.leader = this.toAct = leader;
    if (this.phase === 1) this.prizes = this.drawPile.splice(0, this.players === 2 ? 1 : 2);
  }
}

// RULES.md 7: the side with most cards of `faction`; on equal counts the higher
// values compared from the top; still equal, or nobody has any: null.
function factionWinner(piles, faction) {
  const keys = piles.map((pile) => {
    const values = pile.filter((card) => factionOf(card) === faction).map(valueOf).sort((a, b) => b - a);
    return [values.length, ...values];
  });
  return keys.every((key) => key[0] === 0) ? null : best(keys);
}

// The index of the greatest of `keys` (compared element by element), null when two
// share it.
function best(keys) {
  const compare = (a, b) => {
    for (let at = 0; at < Math.max(a.length, b.length); at++) {
      if ((a[at] ?? -1) !== (b[at] ?? -1)) return (a[at] ?? -1) - (b[at] ?? -1);
    }
    return 0;
  };
  const top = keys.reduce((found, key, at) => (found === null || compare(key, keys[found]) > 0 ? at : found), null);
  return keys.filter((key) => compare(key, keys[top]) === 0).length > 1 ? null : top;
}
