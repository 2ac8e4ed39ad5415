// /play/<game>: a seat at the table (or a spectator's view of it). The state is the
// newest view; every change redraws the page from it. Live: the browser's shared
// connection says when the game changed, and this tab then reads its own view.
import { keyNotice, registerForm } from "../account.js";
import { ApiError, api, randomId, persisting, problemText, problemsOnly } from "../api.js";
import { attentionControls, showTurns, yourTurnNow } from "../attention.js";
import { clockFace, copyField, dateTime, failure, focusKey, h, panel, plural, refocus, say, shortId, show, timeoutRule } from "../dom.js";
import { cardLabel, factionName } from "../factions.js";
import { handElement } from "../hand.js";
import { historyElement } from "../history.js";
import { watch } from "../live.js";
import { checkGame, headsNote } from "../proof.js";
import { factionsPanel, resultPanel } from "../scoreboard.js";
import { roundsOfPhase, shownTrick, tableElement } from "../table.js";
import { decisionText, relation, seatName, seatNumber, teamName } from "../words.js";
import { credentialFor, forgetPlayer, forgetSeat, invitesOf, keepHead, keepInvites, keepName, keepSeat, keepVisit, keptHeads, lastName, lastVisit, player, seats } from "../store.js";

const REDUCED_MOTION = matchMedia("(prefers-reduced-motion: reduce)");
const over = (view) => view.status === "finished" || view.status === "aborted";

function phaseLine(view) {
  const table = view.table;
  const of = roundsOfPhase(view);
  const what = table.phase === 1
    ? "Win a round to take the prize for your followers; the others draw."
    : "Your followers are your hand now: win rounds to put their cards on your score pile.";
  return h("p", { class: "phase-line" }, h("strong", {}, `Phase ${table.phase} of 2 · round ${Math.min(table.round + 1, of)} of ${of}. `),
    h("span", { class: "phase-what" }, what, " ", h("a", { href: "/rules" }, "How to play")));
}

// How often the person's time ran out and what an AI did or does for them; while an AI
// plays the seat (a takeover), the button that takes it back, at any turn.
function standInNotice(view, me, comeBack) {
  if (me == null) return null;
  const seat = view.seats[me];
  const decisions = seat.ai_decisions ?? 0;
  const timeouts = seat.timeouts ?? 0;
  if (!seat.takeover && !timeouts && !decisions) return null;
  const ran = `Your time ran out ${plural(timeouts, "time")}`;
  const made = `an AI made ${plural(decisions, "decision")} for you`;
  if (over(view)) return h("p", { class: "notice" }, `${ran}: ${made}.`);
  if (seat.takeover) {
    return h("div", { class: "notice", role: "group", "aria-label": "your seat is played by an AI" },
      h("p", {}, `${ran}${seat.timeouts_in_a_row > 1 ? `, ${seat.timeouts_in_a_row} in a row` : ""}: an AI (${seat.takeover}) plays your seat until you take it back${decisions ? `; it has made ${plural(decisions, "decision")} for you` : ""}.`),
      h("button", { class: "primary", type: "button", onclick: comeBack }, "Play my seat again"));
  }
  return h("p", { class: "notice" }, `${ran}${seat.timeouts_in_a_row ? ` (${seat.timeouts_in_a_row} in a row)` : ""}: ${made}. `, nextTimeout(view, seat) ?? "");
}

// The seats whose person is on a break: their clock stands still until its end.
function breakNotices(view, me) {
  if (over(view)) return null;
  return view.seats.filter((s) => s.break_until && Date.parse(s.break_until) > Date.now()).map((s) =>
    h("p", { class: "notice break" }, `${s.seat === me ? "You are" : `${seatName(view, s.seat)} is`} on a break until ${dateTime(s.break_until)}`,
      ` (${s.break_days_used} of ${s.break_days_allowed} days this year): ${s.seat === me ? "your" : "their"} clock stands still.`));
}

// Under a takeover policy, what the person's next timeouts in a row come to.
function nextTimeout(view, seat) {
  const [mode, level] = view.timeout_policy.split(":");
  if (mode !== "takeover" || !seat.timeouts_in_a_row) return null;
  const left = view.timeout_limit - seat.timeouts_in_a_row;
  const last = view.final_timeout_policy === "forfeit" ? "you lose the game" : `an AI (${level}) plays your seat until you take it back`;
  return left <= 1 ? `If your time runs out once more, ${last}.` : `At ${plural(left, "more timeout")} in a row, ${last}.`;
}

// A game whose seats are not all taken yet: which, and the links that take them (kept
// in this browser by the page that made the game: the server shows invites once).
function waitingForSeats(view) {
  const open = view.seats.filter((s) => !s.taken).map((s) => s.seat);
  const links = invitesOf(view.game_id).filter((link) => open.includes(link.seat));
  const publicLinks = view.public ? open.map((seat) => ({ seat, url: `${location.origin}/play/${view.game_id}?seat=${seat}` })) : [];
  const shown = links.length ? links : publicLinks;
  return [h("p", {}, `Waiting for ${plural(open.length, "seat")} to be taken: `, open.map((seat) => `seat ${seatNumber(seat)}`).join(", "), ". The game starts when they are."),
    shown.length ? h("section", { class: "notice", "aria-labelledby": "invites" }, h("h2", { id: "invites" }, "Invite the other players"),
      h("p", {}, view.public ? "The game is open to anybody: the lobby offers its seats, or send these links."
        : "Send each person the link of their seat (the code after # reaches no server log); it opens their seat."),
      h("ul", { class: "invites" }, shown.map(({ seat, url }) => h("li", {}, h("span", {}, `Seat ${seatNumber(seat)}: `), copyField(url, `invite link of seat ${seatNumber(seat)}`)))))
      : h("p", { class: "muted" }, "Each of the others takes their seat by their own link (for a rematch: at the end of the game before, where it is offered to them).")];
}

async function joinPage(gameId, seat, invite, play, welcome = null) {
  const view = await api("GET", `/games/${gameId}`);
  const me = player();
  const team = view.players === 4 ? ` (${teamName(seat % 2)}, partner of ${view.seats[(seat + 2) % 4].kind === "ai" ? seatName(view, (seat + 2) % 4) : `seat ${seatNumber((seat + 2) % 4)}`})` : "";
  const intro = h("p", {}, `${view.players} players, ${view.factions.map(factionName).join(", ")}${view.rated ? ", rated" : ""}. ${invite ? "You are invited to" : "Take"} seat ${seatNumber(seat)}${team}.`);
  if (view.seats[seat]?.taken || view.status === "finished" || view.status === "aborted") {  // a link used already
    show(h("h1", {}, "This seat is taken"),
      h("p", {}, `Seat ${seatNumber(seat)} of this game is ${view.seats[seat]?.taken ? "taken" : "no longer open"}: the link was used already, or the game is over.`),
      h("p", {}, h("a", { href: `/play/${gameId}`, class: "button" }, view.status === "running" ? "Watch the game" : "Look at the game"),
        " ", view.status === "finished" ? h("a", { href: `/replay/${gameId}` }, "Step through the replay") : ""));
    history.replaceState(null, "", `/play/${gameId}`);
    return;
  }
  if (view.rated && !me) {  // a rated seat is for a registered player only
    const form = registerForm((made) => joinPage(gameId, seat, invite, play, keyNotice(made)),
      "This game is rated: its seats are for registered players. Register (it takes a name) and you take the seat as yourself.");
    show(h("h1", {}, "Join a rated game"), intro, form);
    form.querySelector("input").focus();
    return;
  }
  const name = h("input", { id: "name", required: !me, maxlength: 64, value: me?.name ?? lastName(), autocomplete: "nickname" });
  const asPlayer = me ? h("input", { type: "checkbox", id: "as-player", checked: true, disabled: view.rated }) : null;
  const note = h("div", { "aria-live": "polite" });
  const form = h("form", { "aria-label": "take the seat" }, intro,
    h("label", {}, "Your name: ", name),
    asPlayer ? h("label", {}, asPlayer, ` as my registered player ${me.name} (the game goes to my inbox, on every device)`) : null,
    h("button", { class: "primary", type: "submit" }, "Take the seat"), note);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const joined = await api("POST", `/games/${gameId}/seats/${seat}`, {
        body: { ...(invite ? { invite } : {}), ...(name.value ? { name: name.value } : {}) }, credential: asPlayer?.checked ? me.key : null });
      if (!asPlayer?.checked) keepSeat(gameId, seat, joined.token);  // else the player's keys open it
      if (name.value) keepName(name.value);
      history.replaceState(null, "", `/play/${gameId}`);
      play(gameId);
    } catch (error) { note.replaceChildren(failure(error)); }
  });
  show(h("h1", {}, "Join a game"), welcome, form);
  name.focus();
}

// Cards taken at the end of a round fly from the middle of the table to the pile of
// the seat that took them (not with reduced motion).
function flyTaken(round, me) {
  if (REDUCED_MOTION.matches || round.phase !== 1) return;
  const from = document.querySelector(".felt .trick")?.getBoundingClientRect();
  if (!from) return;
  for (const got of round.acquired) {
    const pile = got.seat === me ? ".your-piles .your-pile" : `.felt .seat[data-seat="${got.seat}"] .pile-followers`;
    const to = document.querySelector(pile)?.getBoundingClientRect();
    if (!to) continue;
    const card = h("div", { class: `card flying ${got.card ? `f-${got.card.slice(0, 2)}` : "back"}`, "aria-hidden": "true" }, got.card ? got.card.slice(2) : "");
    card.style.left = `${from.left + from.width / 2 - 24}px`;
    card.style.top = `${from.top + from.height / 2 - 34}px`;
    document.body.append(card);
    requestAnimationFrame(() => requestAnimationFrame(() => {
      card.style.transform = `translate(${to.left + to.width / 2 - (from.left + from.width / 2)}px, ${to.top + to.height / 2 - (from.top + from.height / 2)}px) scale(0.5)`;
      card.style.opacity = "0.2";
    }));
    setTimeout(() => card.remove(), 900);
  }
}

export default async function playPage(gameId) {
  const params = new URLSearchParams(location.search);
  const invite = new URLSearchParams(location.hash.slice(1)).get("invite");
  if (params.has("seat") && !seats()[gameId]) return joinPage(gameId, +params.get("seat"), invite, playPage);
  if (invite || params.has("seat")) history.replaceState(null, "", `/play/${gameId}`);
  let credential = credentialFor(gameId);
  let view = null;
  let busy = false;
  let shown = null;  // what the page drew last: {version, rounds, trick}
  let myTurnBefore = false;
  let proof;  // the final log checked against the heads this seat kept (null: being checked)
  const visit = lastVisit(gameId);
  let sinceLastVisit = null;  // the rounds played since then: {from, to}, for this visit

  async function refresh() {
    let fresh;
    try {
      fresh = await api("GET", `/games/${gameId}`, { credential });
    } catch (error) {
      if (error.status !== 401 || !credential) throw error;
      if (credential === player()?.key) {  // no seat here, or this device was signed out?
        await api("GET", "/me", { credential }).catch(problemsOnly((again) => {
          if (again.status !== 401) return;
          forgetPlayer();
          say("This device was signed out of your player: you are watching. Sign in again in the inbox.");
        }));
      }
      credential = null;  // a key that opens no seat here: watch as the public
      fresh = await api("GET", `/games/${gameId}`);
    }
    if (view && fresh.version < view.version) return;  // an older answer, overtaken
    view = fresh;
    if (view.you) keepHead(gameId, view.you.seat, view.head);
    draw();
  }
  async function decide(decision) {
    if (busy) return;
    busy = true;
    document.querySelector(".hand-area")?.setAttribute("aria-busy", "true");
    const sent = { body: { move: decision, expected_version: view.version }, credential, headers: { "Idempotency-Key": randomId() } };
    let moved;
    try {
      moved = await persisting(() => api("POST", `/games/${gameId}/moves`, sent), say);
    } catch (error) {
      busy = false;
      if (!(error instanceof ApiError)) throw error;
      say(problemText(error));
      return refresh().catch(problemsOnly((again) => say(problemText(again))));
    }
    busy = false;  // before drawing: the next decision may be this seat's too
    keepHead(gameId, view.you.seat, moved.head, decision);
    say(`You ${decisionText(decision, view.you?.peek)}.`);
    if (moved.view.version >= view.version) view = moved.view;  // else a live read overtook it
    draw();  // either way: the hand drawn while sending could not be pressed
  }
  async function act(path, message) {
    try { await api("POST", `/games/${gameId}/${path}`, { credential }); say(message); await refresh(); } catch (error) { say(problemText(error)); }
  }
  // The rematch (made by the first to ask): this seat sits down in it at once, as it
  // sat here (as the registered player, or as a guest by the same name).
  async function rematch() {
    try {
      const offer = await api("POST", `/games/${gameId}/rematch`, { credential });
      const asPlayer = credential === player()?.key;
      const name = view.seats[view.you.seat].name ?? lastName();
      try {
        const joined = await api("POST", `/games/${offer.game_id}/seats/${offer.seat}`, {
          body: { invite: offer.invite, ...(asPlayer ? {} : { name }) }, credential: asPlayer ? credential : null });
        if (!asPlayer) keepSeat(offer.game_id, offer.seat, joined.token);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 409) throw error;  // taken: by this seat, before
      }
      location.href = `/play/${offer.game_id}`;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      say(problemText(error));
    }
  }
  function tick() {
    const clock = document.getElementById("countdown");
    if (!clock) return;
    if (!view?.deadline_at || over(view)) { clock.textContent = ""; return; }
    const left = (Date.parse(view.deadline_at) - Date.now()) / 1000;
    const whose = view.status === "open" ? "to take the seats" : view.table.to_act === view.you?.seat ? "for you" : `for ${seatName(view, view.table.to_act)}`;
    clock.textContent = `· ${clockFace(left)} left ${whose}`;
    clock.classList.toggle("urgent", left < 60);
  }

  function actions(me) {
    const list = [];
    if (me != null && view.status === "running") list.push(h("button", { class: "danger", type: "button", onclick: () => confirm("Resign this game?") && act("resign", "You resigned.") }, "Resign"));
    if (me != null && view.status === "finished") list.push(h("button", { type: "button", class: "primary", onclick: rematch }, view.rematch ? "Go to the rematch" : "Rematch"));
    if (over(view)) list.push(h("a", { href: `/replay/${gameId}` }, "Step through the replay"));
    if (seats()[gameId]) list.push(h("button", { type: "button", onclick: () => { forgetSeat(gameId); credential = player()?.key ?? null; refresh(); } }, "Forget this seat"));
    return h("div", { class: "row actions" }, list);
  }

  // Once the game is over, this seat's moves checked in the final log (proof.js).
  function proofNote(me) {
    const kept = me != null && over(view) ? keptHeads(gameId) : null;
    if (!kept || !Object.keys(kept.moves).length) return null;  // no move of this seat made here
    if (proof === undefined) {
      proof = null;
      checkGame(gameId).catch(problemsOnly((error) => error)).then((checked) => { proof = checked; draw(); });
    }
    return headsNote(proof, kept, gameId);
  }

  function draw() {
    const focused = focusKey();
    const movesBox = document.querySelector(".history .moves");
    const movesAtEnd = !movesBox || movesBox.scrollTop + movesBox.clientHeight >= movesBox.scrollHeight - 8;
    const me = view.you?.seat ?? null;
    const table = view.table;
    const toAct = table?.to_act;
    const myTurn = view.status === "running" && toAct === me && me != null && !view.seats[me].takeover;
    const title = `${view.players} players${view.rated ? " · rated" : ""}`;
    const turn = over(view) ? "The game is over." : view.status === "open" ? "Waiting for players to take their seats."
      : myTurn ? (view.you.legal.some((d) => d.startsWith("take")) ? "Your turn: choose what to take." : "Your turn: play a card.")
        : `${seatName(view, toAct)} ${table.trick.length === view.players ? "to take a prize" : "to play"}${relation(view, toAct, me) === "partner" ? " (your partner)" : ""}.`;
    if (table && !shown && visit && visit.rounds < table.rounds.length) sinceLastVisit = { from: visit.rounds, to: table.rounds.length };
    const since = sinceLastVisit
      ? h("p", { class: "notice since-banner" }, `Since your last visit: ${plural(sinceLastVisit.to - sinceLastVisit.from, "round")} played. `,
        h("a", { href: "#since-last-visit" }, "See the moves"))
      : null;
    const entering = !shown ? table?.trick.length : shown.rounds === table?.rounds.length ? shown.trick : 0;
    const left = table
      ? [tableElement(view, me, entering), me != null && !over(view) ? handElement(view, myTurn && !busy ? decide : null) : null]
      : waitingForSeats(view);
    show(
      h("h1", { class: "game-title" }, title, h("span", { class: "game-id", title: gameId }, ` · game ${shortId(gameId)}`),
        h("span", { class: "deck-line" }, ` · ${view.factions.map(factionName).join(", ")}`)),
      h("div", { class: `turn-bar${myTurn ? " mine" : ""}` },
        h("p", { class: "turn" }, turn, " ", h("span", { id: "countdown" })),
        h("p", { class: "muted who" }, me != null ? `You are seat ${seatNumber(me)}${view.players === 4 ? `, ${teamName(me % 2)} with ${seatName(view, (me + 2) % 4)}` : ""}.` : "You are watching.")),
      table && view.status === "running" ? phaseLine(view) : null,
      !over(view) && view.move_time_limit != null ? h("p", { class: "muted timeout-rule" }, timeoutRule(view)) : null,
      since, standInNotice(view, me, () => act(`seats/${me}/return`, "Your seat is yours again.")), breakNotices(view, me), resultPanel(view, me, proofNote(me)),
      h("div", { class: "play-layout" },
        h("div", { class: "play-main" }, left),
        h("div", { class: "play-side" }, table ? factionsPanel(view, me) : null, table ? historyElement(view, me, sinceLastVisit) : null,
          panel("At the table", actions(me), me != null && !over(view) ? attentionControls() : null))));
    tick();
    const moves = document.querySelector(".history .moves");
    if (moves && !shown && sinceLastVisit) moves.scrollTop = document.getElementById("since-last-visit").offsetTop - moves.offsetTop;
    else if (moves && movesAtEnd) moves.scrollTop = moves.scrollHeight;
    if (!refocus(focused) && (focused?.startsWith("Play ") || focused?.startsWith("Take "))) {  // the card is gone: on to what to do now
      (document.querySelector(".choices button") ?? document.querySelector(".hand .playable") ?? document.querySelector("ul[aria-label='your hand']"))?.focus();
    }
    if (shown && table && table.rounds.length > shown.rounds) flyTaken(table.rounds.at(-1), me);
    const hand = document.querySelector(".hand-area");
    if (hand) document.body.style.setProperty("--hand-room", `${hand.offsetHeight}px`);
    showTurns(myTurn ? 1 : 0, `Game ${shortId(gameId)}`);
    if (myTurn && !myTurnBefore && shown) {
      const last = table.trick.at(-1) ?? table.rounds.at(-1)?.plays.at(-1);
      const news = last && last.seat !== me ? `${seatName(view, last.seat)} played ${cardLabel(last.card)}. ` : "";
      yourTurnNow(`${news}Your turn in game ${shortId(gameId)}.`, gameId);
      say("Your turn.");
    }
    myTurnBefore = myTurn;
    shown = { version: view.version, rounds: table?.rounds.length ?? 0, trick: table ? shownTrick(view).done ? 0 : table.trick.length : 0 };
    if (table) keepInvites(gameId, []);  // every seat is taken: the links are spent
    if (table && !document.hidden) keepVisit(gameId, { version: view.version, rounds: table.rounds.length });
  }

  try { await refresh(); } catch (error) {
    show(h("h1", {}, error.status === 404 ? "No such game" : `Game ${shortId(gameId)}`), failure(error),
      h("p", {}, "The link may be mistyped, or the game gone. ", h("a", { href: "/" }, "Go to the lobby"), "."));
    return;
  }
  setInterval(tick, 1000);
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) return;
    if (view?.table) keepVisit(gameId, { version: view.version, rounds: view.table.rounds.length });
    refresh().catch(problemsOnly(() => {}));
  });
  // Live: the shared connection tells a new version (or, once the game is over, that
  // its rematch or ratings came: the same version again); this tab then reads its own
  // view with its credential. A second "ready" is a connection made again: a game over
  // may have had news meanwhile.
  let live = false;
  watch({ games: [gameId] }, (change) => {
    const news = change.type === "game" ? change.version > view.version || (over(view) && live) : live && over(view);
    if (change.type === "ready") live = true;
    if (news) refresh().catch(problemsOnly((error) => say(problemText(error))));
  });
}
