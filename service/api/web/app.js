// The Claim web client: plain modules, no build, no framework, nothing from another host.
// Every page is drawn from the JSON API with what this browser holds: the tokens of its
// seats and the key of its registered player, in localStorage (kept across visits, as a
// play-by-mail game lasts days; never put in a URL; "Forget" removes them). The page only
// ever receives what the API gives that seat or the public.
import { sha256Hex } from "./sha256.js";

const main = document.getElementById("main");
const statusLine = document.getElementById("status");
const SYMBOLS = { GO: "♣", KN: "♞", UN: "☠", DO: "◐", DW: "⚒", GN: "✿", GI: "▲", DR: "✦", TR: "♜", SE: "◉" };
const NAMES = { GO: "Goblins", KN: "Knights", UN: "Undead", DO: "Doppelgangers", DW: "Dwarves",
  GN: "Gnomes", GI: "Giants", DR: "Dragons", TR: "Trolls", SE: "Seers" };
const LEVELS = ["random", "greedy", "expert"];

// --- storage ------------------------------------------------------------------------
function load(key, fallback) {
  try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch { return fallback; }
}
function save(key, value) {
  if (value == null) localStorage.removeItem(key); else localStorage.setItem(key, JSON.stringify(value));
}
const seats = () => load("claim.seats", {});  // game id -> {seat, token}
const player = () => load("claim.player", null);  // {id, key, name}
function keepSeat(gameId, seat, token) { save("claim.seats", { ...seats(), [gameId]: { seat, token } }); }
function forgetSeat(gameId) { const all = seats(); delete all[gameId]; save("claim.seats", all); }

// --- the API --------------------------------------------------------------------------
class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}
async function api(method, path, { body, credential, headers = {} } = {}) {
  const sent = { Accept: "application/json", ...headers };
  if (body !== undefined) sent["Content-Type"] = "application/json";
  if (credential) sent.Authorization = `Bearer ${credential}`;
  const response = await fetch(path, { method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}
function problemText(error) {
  const fields = error.problem?.errors ? Object.entries(error.problem.errors).map(([k, v]) => `${k}: ${[].concat(v).join(", ")}`) : [];
  return [error.message, ...fields].join(" — ");
}

// --- drawing --------------------------------------------------------------------------
function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "class") element.className = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child != null && child !== false) element.append(child instanceof Node ? child : String(child));
  }
  return element;
}
function show(...nodes) { main.replaceChildren(...nodes.flat(Infinity).filter((node) => node != null)); }
let sayTimer;
function say(text) {
  statusLine.textContent = text;
  clearTimeout(sayTimer);
  sayTimer = setTimeout(() => { statusLine.textContent = ""; }, 5000);
}
function failure(error) { return h("p", { class: "notice error", role: "alert" }, problemText(error)); }
const factionName = (code) => NAMES[code] || code;
// The server's account of a step ("seat 1 played UN3") with names and card names.
function readable(text, view) {
  return text.replace(/\bseat (\d)\b/g, (_, seat) => seatName(view, +seat)).replace(/\b([A-Z]{2})(\d)\b/g, (code) => cardLabel(code));
}
function decisionText(decision) {
  if (decision === "take deck") return "took the top card of the deck";
  const [verb, code] = decision.split(" ");
  return `${verb === "play" ? "played" : "took"} ${cardLabel(code)}`;
}
function cardLabel(code) { return code == null ? "hidden card" : `${factionName(code.slice(0, 2))} ${code.slice(2)}`; }
function cardFace(code) {
  return [h("span", { class: "symbol", "aria-hidden": "true" }, SYMBOLS[code.slice(0, 2)] || "?"),
    h("span", { class: "value" }, code.slice(2)), h("span", { class: "fname" }, code.slice(0, 2))];
}
function card(code) {
  if (code == null) return h("li", { class: "card hidden", "aria-label": "hidden card" }, "?");
  return h("li", { class: `card f-${code.slice(0, 2)}`, "aria-label": cardLabel(code), title: cardLabel(code) }, cardFace(code));
}
function cards(codes, label) {
  if (!codes || codes.length === 0) return h("p", { class: "muted" }, "none");
  return h("ul", { class: "cards", "aria-label": label }, codes.map(card));
}
function seatName(view, seat) {
  const s = view.seats[seat];
  if (s.kind === "ai") return `AI (${s.level})`;
  return s.name ?? `seat ${seat} (open)`;
}
function sideName(view, side) {
  if (view.players !== 4) return seatName(view, side);
  return `team ${side} (${seatName(view, side)} & ${seatName(view, side + 2)})`;
}
function duration(seconds) {
  if (seconds <= 0) return "0 s";
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ${minutes % 60} min` : `${Math.floor(hours / 24)} days`;
}
function plural(count, word) { return `${count} ${word}${count === 1 ? "" : "s"}`; }
function panel(title, ...content) {
  const id = `p-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return h("section", { class: "panel", "aria-labelledby": id }, h("h2", { id }, title), content);
}

// Who leads each faction now, by the rules' count (RULES.md 7): most cards, then the
// higher values from the top, Gnomes in front counted as they will be at the end;
// shown only, the server scores the game.
function leaders(view) {
  const sides = view.players === 4 ? [[0, 2], [1, 3]] : view.seats.map((_, seat) => [seat]);
  const won = (seat) => [...view.table.score_piles[seat], ...view.table.gnomes_in_front[seat]];
  const piles = sides.map((side) => side.flatMap(won));
  return view.factions.map((faction) => {
    const keys = piles.map((pile) => pile.filter((c) => c.startsWith(faction)).map((c) => +c.slice(2)).sort((a, b) => b - a));
    const compare = (a, b) => a.length - b.length || a.reduce((d, v, i) => d || v - b[i], 0);
    const best = keys.reduce((top, key, side) => (top == null || compare(key, keys[top]) > 0 ? side : top), null);
    const tied = keys.filter((key) => compare(key, keys[best]) === 0).length > 1;
    return { faction, side: keys[best].length === 0 || tied ? null : best, counts: keys.map((k) => k.length) };
  });
}

function tableView(view, { onDecision = null } = {}) {
  const table = view.table;
  if (!table) return [h("p", {}, "Waiting for every seat to be taken: ", view.seats.filter((s) => !s.taken).map((s) => `seat ${s.seat}`).join(", "), ".")];
  const you = view.you;
  const legal = new Set(you?.legal || []);
  const rows = view.seats.map((s) => h("tr", { class: table.to_act === s.seat ? "to-act" : null },
    h("td", {}, s.seat, view.players === 4 ? ` (team ${s.seat % 2})` : ""),
    h("td", {}, seatName(view, s.seat), you?.seat === s.seat ? " — you" : "", s.takeover ? ` (AI ${s.takeover} plays it)` : "",
      table.to_act === s.seat ? h("span", { class: "muted" }, " ← to act") : ""),
    h("td", {}, table.hand_sizes[s.seat]), h("td", {}, table.follower_pile_sizes[s.seat]),
    h("td", {}, table.score_piles[s.seat].length)));
  const seatsPanel = panel("Players", h("table", {},
    h("thead", {}, h("tr", {}, ["Seat", "Player", "Hand", "Followers", "Score pile"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows)));
  const factionsPanel = panel("Factions", h("table", {},
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Faction"), h("th", { scope: "col" }, "Leads now"), h("th", { scope: "col" }, "Cards won"))),
    h("tbody", {}, leaders(view).map(({ faction, side, counts }) => h("tr", {},
      h("td", {}, h("span", { "aria-hidden": "true" }, `${SYMBOLS[faction]} `), factionName(faction)),
      h("td", {}, side == null ? "nobody" : sideName(view, side)),
      h("td", {}, counts.join(" / ")))))));
  const trick = table.trick.map((play) => h("li", {}, `${seatName(view, play.seat)}: `, h("ul", { class: "cards" }, card(play.card))));
  const roundPanel = panel(`Phase ${table.phase} · round ${table.round + 1}`,
    table.phase === 1 ? [h("p", {}, "Prize: "), cards(table.prizes, "prize")] : h("p", {}, "Phase 2: the cards won go to the score piles."),
    h("p", {}, "Played this round:"), trick.length ? h("ul", { class: "plays" }, trick) : h("p", { class: "muted" }, "nothing yet"),
    h("p", {}, `Draw pile: ${plural(table.draw_pile_size, "card")} · discard: ${plural(table.discard.length, "card")}`));
  let handPanel = null;
  if (you) {
    const handButtons = you.hand.map((code) => {
      const decision = `play ${code}`;
      const playable = onDecision && legal.has(decision);
      return h("li", {}, h("button", { class: `card f-${code.slice(0, 2)}`, disabled: !playable, "aria-label": `Play ${cardLabel(code)}`,
        title: cardLabel(code), onclick: () => onDecision(decision) }, cardFace(code)));
    });
    const others = [...legal].filter((d) => !d.startsWith("play ")).map((decision) => h("button", { class: "primary",
      onclick: () => onDecision(decision) }, decision === "take deck" ? "Take the top card of the deck" : `Take ${cardLabel(decision.slice(5))}`));
    handPanel = panel("Your hand", h("ul", { class: "cards", "aria-label": "your hand", tabindex: "-1" }, handButtons),
      others.length ? h("div", { class: "row" }, others) : null,
      h("h3", {}, "Your followers"), cards(you.follower_pile, "your followers"),
      you.peek ? h("p", {}, `You saw the top of the draw pile: ${cardLabel(you.peek.card)}`) : null);
  }
  // Your hand first after the round (on a phone: without scrolling), then the others;
  // once the game is over, no round and no hand.
  const over = view.status === "finished" || view.status === "aborted";
  const parts = [over ? null : h("div", { class: "table-grid" }, roundPanel, handPanel), h("div", { class: "table-grid" }, seatsPanel, factionsPanel)];
  parts.push(panel("Score piles", view.seats.map((s) => [h("h3", {}, seatName(view, s.seat)), cards(table.score_piles[s.seat], `score pile of seat ${s.seat}`),
    table.gnomes_in_front[s.seat].length ? [h("p", {}, "Gnomes in front:"), cards(table.gnomes_in_front[s.seat], `gnomes in front of seat ${s.seat}`)] : null]),
  table.trolls_aside.length ? [h("h3", {}, "Trolls set aside"), cards(table.trolls_aside, "trolls set aside")] : null));
  const recent = table.rounds.slice(-3).reverse().map((round) => h("li", {},
    `Phase ${round.phase} round ${round.number + 1}: `, round.plays.map((p) => `${seatName(view, p.seat)} ${cardLabel(p.card)}`).join(", "),
    ` — won by ${seatName(view, round.winner)}`));
  if (recent.length) parts.push(panel("Last rounds", h("ul", {}, recent)));
  return parts;
}

function endView(view) {
  if (!view.ending) return null;
  const ending = view.ending;
  const won = ending.winners.length ? ending.winners.map((side) => sideName(view, side)).join(" and ") : "nobody (a draw)";
  const lines = [h("p", { class: "turn" }, ending.reason === "aborted" ? "The game was called off." : `Winner: ${won}.`),
    ending.seat != null ? h("p", {}, `${seatName(view, ending.seat)} ${ending.reason}.`) : null];
  if (view.result) {
    lines.push(h("table", {}, h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Faction"), h("th", { scope: "col" }, "Won by"))),
      h("tbody", {}, Object.entries(view.result.faction_winners).map(([f, side]) => h("tr", {},
        h("td", {}, factionName(f)), h("td", {}, side == null ? "nobody" : sideName(view, side)))))));
    lines.push(h("table", { "aria-label": "scoring by side" }, h("thead", {}, h("tr", {}, ["Side", "Factions won", "Their cards", "Their values"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, view.result.side_keys.map((key, side) => h("tr", {}, h("td", {}, sideName(view, side)), key.map((n) => h("td", {}, n)))))));
  }
  if (view.ratings) {
    lines.push(h("ul", { "aria-label": "rating changes" }, view.ratings.map((r) => h("li", {},
      `${seatName(view, r.seat)}: ${r.rating_before.toFixed(2)} → ${r.rating_after.toFixed(2)} (${r.change >= 0 ? "+" : ""}${r.change.toFixed(2)})`))));
  }
  return panel("Result", lines);
}

// --- pages ----------------------------------------------------------------------------
async function lobbyPage() {
  const mine = Object.keys(seats());
  const sections = [h("h1", {}, "Lobby"), h("p", {}, h("a", { href: "/new" }, "Start a new game"),
    " — against the AI or with friends, who join by the invite links you send them.")];
  if (mine.length) {
    sections.push(h("section", { "aria-labelledby": "yours" }, h("h2", { id: "yours" }, "Your seats in this browser"),
      h("ul", {}, mine.map((id) => h("li", {}, h("a", { href: `/play/${id}` }, `Game ${id}`), ` (seat ${seats()[id].seat}) `,
        h("button", { onclick: () => { forgetSeat(id); lobbyPage(); }, "aria-label": `Forget seat of game ${id}` }, "Forget this seat"))))));
  }
  show(...sections);
  for (const [status, title] of [["open", "Waiting for players"], ["running", "Being played"], ["finished", "Finished"]]) {
    const id = `lobby-${status}`;
    const section = h("section", { "aria-labelledby": id }, h("h2", { id }, title));
    main.append(section);
    try {
      const page = await api("GET", `/games?status=${status}&limit=20`);
      if (!page.games.length) { section.append(h("p", { class: "muted" }, "none")); continue; }
      section.append(h("table", {}, h("thead", {}, h("tr", {}, ["Game", "Players", "Factions", "Seats", ""].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, page.games.map((g) => h("tr", {},
          h("td", {}, h("span", { class: "mono" }, g.game_id), g.rated ? " · rated" : ""), h("td", {}, g.players),
          h("td", {}, g.factions.map(factionName).join(", ")),
          h("td", {}, g.seats.map((s) => (s.kind === "ai" ? `AI ${s.level}` : s.name ?? "open seat")).join(", ")),
          h("td", {}, status === "finished" ? h("a", { href: `/replay/${g.game_id}` }, "Replay")
            : status === "open" && g.public ? g.open_seats.map((seat) => [h("a", { href: `/play/${g.game_id}?seat=${seat}` }, `Join seat ${seat}`), " "])
              : h("a", { href: `/play/${g.game_id}` }, status === "open" ? "Look" : "Watch")))))));
    } catch (error) { section.append(failure(error)); }
  }
}

async function newGamePage() {
  const decks = await api("GET", "/decks");
  const form = h("form", { "aria-label": "new game" });
  const players = h("select", { name: "players", id: "players" }, [2, 3, 4].map((n) => h("option", { value: n }, `${n} players${n === 4 ? " (two teams)" : ""}`)));
  const deck = h("select", { name: "deck", id: "deck" });
  const seatsBox = h("fieldset", {}, h("legend", {}, "Seats"));
  const limit = h("select", { id: "limit" }, [["", "no time limit"], ["300", "5 minutes"], ["3600", "1 hour"], ["86400", "1 day"], ["259200", "3 days"]]
    .map(([value, text]) => h("option", { value }, text)));
  const policy = h("select", { id: "policy" }, [["ai:greedy", "an AI (greedy) makes that move"], ["takeover:greedy", "an AI plays the seat until its player returns"], ["forfeit", "the seat loses"]]
    .map(([value, text]) => h("option", { value }, text)));
  const rated = h("input", { type: "checkbox", id: "rated" });
  const open = h("input", { type: "checkbox", id: "public" });
  const result = h("div", { "aria-live": "polite" });
  function redraw() {
    const n = +players.value;
    deck.replaceChildren(h("option", { value: "random" }, "a random legal deck"),
      ...(n === 2 ? Object.entries(decks.presets).map(([name, codes]) => h("option", { value: name }, `${name === "claim" ? "Claim" : "Claim 2"}: ${codes.map(factionName).join(", ")}`)) : []),
      ...decks.legal[n].map((codes) => h("option", { value: codes.join(",") }, codes.map(factionName).join(", "))));
    seatsBox.replaceChildren(h("legend", {}, "Seats"), ...Array.from({ length: n }, (_, seat) => h("label", {},
      `Seat ${seat}${n === 4 ? ` (team ${seat % 2})` : ""}: `,
      h("select", { id: `seat-${seat}`, "aria-label": `seat ${seat}` }, h("option", { value: "human" }, "a person"),
        LEVELS.map((level) => h("option", { value: `ai:${level}`, selected: seat > 0 && n === 2 && level === "greedy" }, `AI: ${level}`))))));
  }
  players.addEventListener("change", redraw);
  rated.addEventListener("change", () => {  // no AI plays a rated seat: its time runs out by forfeit
    if (rated.checked) policy.value = "forfeit";
    policy.disabled = rated.checked;
  });
  redraw();
  form.append(h("label", {}, "Players: ", players), h("label", {}, `Deck (the rules' legal sets of factions): `, deck), seatsBox,
    h("label", {}, "Time per move: ", limit), h("label", {}, "When it runs out: ", policy),
    h("label", {}, open, " open to anybody: the lobby offers its seats, no invite needed"),
    h("label", {}, rated, " rated (every person's seat is for a registered player: see Inbox)"),
    h("button", { class: "primary", type: "submit" }, "Create the game"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const n = +players.value;
    const body = { players: n, rated: rated.checked, public: open.checked,
      seats: Array.from({ length: n }, (_, seat) => { const v = form.querySelector(`#seat-${seat}`).value; return v === "human" ? { kind: "human" } : { kind: "ai", level: v.slice(3) }; }),
      factions: deck.value.includes(",") ? deck.value.split(",") : deck.value, timeout_policy: policy.value };
    if (limit.value) body.move_time_limit = +limit.value;
    const submit = form.querySelector("button[type=submit]");
    submit.disabled = true;  // one game per press
    try {
      const game = await api("POST", "/games", { body });
      const links = game.invites.map(({ seat, invite }) => ({ seat, url: `${location.origin}/play/${game.game_id}?seat=${seat}#invite=${encodeURIComponent(invite)}` }));
      if (open.checked) {
        const people = body.seats.map((seat, n) => (seat.kind === "human" ? n : null)).filter((n) => n != null);
        result.replaceChildren(h("section", { class: "notice", "aria-labelledby": "invites" }, h("h2", { id: "invites" }, `Game ${game.game_id} created`),
          h("p", {}, "It is open to anybody: the lobby offers its seats until they are taken."),
          h("ul", {}, people.map((seat) => h("li", {}, h("a", { href: `/play/${game.game_id}?seat=${seat}`, class: "take-seat" }, `Take seat ${seat} here`))))));
        result.querySelector("a")?.focus();
        return;
      }
      result.replaceChildren(h("section", { class: "notice", "aria-labelledby": "invites" }, h("h2", { id: "invites" }, `Game ${game.game_id} created`),
        h("p", {}, "Each link below takes one seat. Send it to that person (the code after # never reaches a server log); it is shown only now."),
        h("ul", {}, links.map(({ seat, url }) => h("li", {}, `Seat ${seat}: `,
          h("input", { readonly: true, value: url, size: 40, "aria-label": `invite link of seat ${seat}`, onfocus: (e) => e.target.select() }), " ",
          h("a", { href: url, class: "take-seat" }, `Take seat ${seat} here`)))),
        links.length === 0 ? h("p", {}, h("a", { href: `/play/${game.game_id}` }, "Watch it")) : null));
      result.querySelector("input, a")?.focus();
    } catch (error) {
      result.replaceChildren(failure(error));
      submit.disabled = false;
    }
  });
  show(h("h1", {}, "New game"), form, result);
}

async function joinPage(gameId, seat, invite) {
  const view = await api("GET", `/games/${gameId}`);
  const me = player();
  const name = h("input", { id: "name", required: !me, maxlength: 64, value: me?.name ?? "", autocomplete: "nickname" });
  const asPlayer = me ? h("input", { type: "checkbox", id: "as-player", checked: true }) : null;
  const note = h("div", { "aria-live": "polite" });
  const form = h("form", { "aria-label": "take the seat" },
    h("p", {}, `Game ${gameId}: ${view.players} players, factions ${view.factions.map(factionName).join(", ")}${view.rated ? ", rated" : ""}. ${invite ? "You are invited to" : "Take"} seat ${seat}.`),
    h("label", {}, "Your name: ", name),
    asPlayer ? h("label", {}, asPlayer, ` as my registered player ${me.name} (the game goes to my inbox)`) : null,
    h("button", { class: "primary", type: "submit" }, "Take the seat"), note);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const joined = await api("POST", `/games/${gameId}/seats/${seat}`, {
        body: { ...(invite ? { invite } : {}), ...(name.value ? { name: name.value } : {}) }, credential: asPlayer?.checked ? me.key : null });
      keepSeat(gameId, seat, joined.token);
      history.replaceState(null, "", `/play/${gameId}`);
      playPage(gameId);
    } catch (error) { note.replaceChildren(failure(error)); }
  });
  show(h("h1", {}, "Join a game"), form);
  name.focus();
}

// A move the store could not take (503: a failover of its Redis takes seconds) is sent
// again, the same with the same Idempotency-Key, after 1, 2, 4 and 8 s: it counts once.
async function persisting(send) {
  for (const pause of [1, 2, 4, 8]) {
    try { return await send(); } catch (error) {
      if (error.status !== 503) throw error;
      say(`${problemText(error)} Sending it again in ${pause} s…`);
      await new Promise((resolve) => setTimeout(resolve, pause * 1000));
    }
  }
  return send();
}
function idempotencyKey() {
  return crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

async function playPage(gameId) {
  const params = new URLSearchParams(location.search);
  const invite = new URLSearchParams(location.hash.slice(1)).get("invite");
  if (params.has("seat") && !seats()[gameId]) return joinPage(gameId, +params.get("seat"), invite);
  if (invite || params.has("seat")) history.replaceState(null, "", `/play/${gameId}`);
  let credential = seats()[gameId]?.token ?? player()?.key ?? null;
  let view = null;
  let busy = false;
  let source = null;
  const countdown = h("span", { id: "countdown" });

  async function refresh() {
    try {
      view = await api("GET", `/games/${gameId}`, { credential });
    } catch (error) {
      if (error.status !== 401 || !credential) throw error;
      credential = null;  // a player key that opens no seat here: watch as the public
      view = await api("GET", `/games/${gameId}`);
    }
    draw();
  }
  async function decide(decision) {
    if (busy) return;
    busy = true;
    try {
      const sent = { body: { move: decision, expected_version: view.version }, credential,
        headers: { "Idempotency-Key": idempotencyKey() } };
      const moved = await persisting(() => api("POST", `/games/${gameId}/moves`, sent));
      view = moved.view;
      say(`You ${decisionText(decision)}.`);
      draw();
    } catch (error) {
      say(problemText(error));
      await refresh();
    } finally { busy = false; }
  }
  async function act(path, message) {
    try { await api("POST", `/games/${gameId}/${path}`, { credential }); say(message); await refresh(); } catch (error) { say(problemText(error)); }
  }
  function tick() {
    if (!view?.deadline_at || view.status === "finished" || view.status === "aborted") { countdown.textContent = ""; return; }
    const left = duration((Date.parse(view.deadline_at) - Date.now()) / 1000);
    countdown.textContent = view.status === "open" ? ` · its seats stay open ${left} more` : ` · ${left} left`;
  }
  function draw() {
    const focused = document.activeElement?.getAttribute("aria-label");
    const you = view.you;
    const over = view.status === "finished" || view.status === "aborted";
    const toAct = view.table?.to_act;
    const turn = over ? "The game is over." : view.status === "open" ? "Waiting for players." :
      toAct === you?.seat ? "Your turn." : `${seatName(view, toAct)} to act.`;
    const actions = [];
    if (you && !over && view.status === "running") actions.push(h("button", { class: "danger", onclick: () => confirm("Resign this game?") && act("resign", "You resigned.") }, "Resign"));
    if (you && view.seats[you.seat].takeover) actions.push(h("button", { onclick: () => act(`seats/${you.seat}/return`, "Your seat is yours again.") }, "Play my seat again"));
    if (you && view.status === "finished") actions.push(h("button", { onclick: rematch }, view.rematch ? "Go to the rematch" : "Rematch"));
    if (over) actions.push(h("a", { href: `/replay/${gameId}` }, "Step through the replay"));
    if (seats()[gameId]) actions.push(h("button", { onclick: () => { forgetSeat(gameId); credential = player()?.key ?? null; refresh(); } }, "Forget this seat"));
    show(h("h1", {}, `Game ${gameId}`, view.rated ? " (rated)" : ""),
      h("p", { class: "turn", "aria-live": "polite" }, turn, countdown, you ? h("span", { class: "muted" }, ` You are seat ${you.seat}.`) : h("span", { class: "muted" }, " You are watching.")),
      endView(view), tableView(view, { onDecision: !over && toAct === you?.seat ? decide : null }),
      h("div", { class: "row" }, actions));
    tick();
    const again = focused && main.querySelector(`[aria-label="${CSS.escape(focused)}"]:not(:disabled)`);
    if (again) again.focus();
    else if (focused?.startsWith("Play ")) {  // the card played is gone: stay in the hand
      (main.querySelector("ul[aria-label='your hand'] button:not(:disabled)") ?? main.querySelector("ul[aria-label='your hand']"))?.focus();
    }
    if (over && source) { source.close(); source = null; }
  }
  async function rematch() {
    if (view.rematch && seats()[view.rematch]) { location.href = `/play/${view.rematch}`; return; }
    try {
      const offer = await api("POST", `/games/${gameId}/rematch`, { credential });
      location.href = `/play/${offer.game_id}?seat=${offer.seat}#invite=${encodeURIComponent(offer.invite)}`;
    } catch (error) { say(problemText(error)); }
  }
  try { await refresh(); } catch (error) { show(h("h1", {}, `Game ${gameId}`), failure(error)); return; }
  setInterval(tick, 1000);
  if (view.status === "finished" || view.status === "aborted") return;
  // Live: the public stream says when the game changed (EventSource reconnects by itself,
  // resuming after the last id); a seat then reads its own view with its credential.
  source = new EventSource(`/games/${gameId}/stream?max_seconds=3600`);
  const changed = async (event) => {
    if (+event.lastEventId <= (view?.version ?? 0)) return;
    if (credential) await refresh(); else { view = JSON.parse(event.data); draw(); }
  };
  source.addEventListener("view", changed);
  source.addEventListener("snapshot", changed);
}

async function replayPage(gameId) {
  const game = await api("GET", `/games/${gameId}`);
  const last = game.decisions;
  const slider = h("input", { type: "range", min: 0, max: last, value: last, id: "step", "aria-label": "step" });
  const label = h("output", { for: "step", id: "step-label" });
  const body = h("div", { id: "replay-step" });
  const auditBox = h("div", { id: "audit" });
  const previous = h("button", { onclick: () => go(current - 1), "aria-label": "previous step" }, "◀ Previous");
  const next = h("button", { onclick: () => go(current + 1), "aria-label": "next step" }, "Next ▶");
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
      body.replaceChildren(...[panel("This step", h("ul", { id: "account" }, shown.account.map((line) => h("li", {}, readable(line, shown.view))))),
        endView(shown.view), ...tableView(shown.view)].filter(Boolean));
    } catch (error) { body.replaceChildren(failure(error)); }
  }
  slider.addEventListener("input", () => go(+slider.value));
  document.addEventListener("keydown", (event) => {
    if (event.target === slider || event.target.matches?.("input, select, textarea")) return;
    if (event.key === "ArrowLeft") { go(current - 1); event.preventDefault(); }
    if (event.key === "ArrowRight") { go(current + 1); event.preventDefault(); }
  });
  show(h("h1", {}, `Replay of game ${gameId}`),
    h("p", {}, game.status === "running" ? "The game goes on: this is what the public has seen up to now." : `The game is ${game.status}.`),
    h("div", { class: "replay-controls", role: "group", "aria-label": "replay controls" },
      previous, slider, next, label),
    h("p", { class: "muted" }, "Arrow keys step back and forth."), body, auditBox);
  await go(last);
  if (game.status === "finished" || game.status === "aborted") auditBox.replaceChildren(await auditPanel(gameId));
}

function hexBytes(hex) { return new Uint8Array(hex.match(/../g).map((pair) => parseInt(pair, 16))); }

async function auditPanel(gameId) {
  try {
    const [audit, start] = await Promise.all([api("GET", `/games/${gameId}/audit`), api("GET", `/games/${gameId}/replay/0`)]);
    const published = start.view.commitment;  // as the game showed it before the first card
    const text = new TextEncoder().encode(audit.deck.join(" "));
    const salt = hexBytes(audit.salt);
    const both = new Uint8Array(salt.length + text.length);
    both.set(salt);
    both.set(text, salt.length);
    const computed = sha256Hex(both);
    const ok = computed === published;
    return panel("Audit",
      h("p", { id: "audit-verdict", class: ok ? "good" : "bad" }, ok
        ? "✔ Verified in this browser: the deck was fixed before the first card was dealt (sha256 of salt and deck equals the commitment published at the start)."
        : "✘ Not verified: sha256 of the revealed salt and deck differs from the commitment published at the start."),
      h("p", {}, "Commitment published at the start: ", h("code", {}, published)),
      h("p", {}, "Computed here: ", h("code", { id: "audit-computed" }, computed)),
      h("p", {}, "Salt: ", h("code", {}, audit.salt)),
      h("p", {}, "The deck, from the top:"), cards(audit.deck, "the revealed deck"));
  } catch (error) { return failure(error); }
}

async function inboxPage() {
  const me = player();
  if (!me) {
    const name = h("input", { id: "reg-name", required: true, maxlength: 64, autocomplete: "nickname" });
    const email = h("input", { id: "reg-email", type: "email", autocomplete: "email" });
    const note = h("div", { "aria-live": "polite" });
    const form = h("form", { "aria-label": "register" }, h("p", {},
      "Register to keep your games in one inbox, be told when it is your turn, and play rated games. Your key stays in this browser."),
      h("label", {}, "Name: ", name), h("label", {}, "Email (optional, for notifications): ", email),
      h("button", { class: "primary", type: "submit" }, "Register"), note);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const made = await api("POST", "/players", { body: { name: name.value, ...(email.value ? { email: email.value } : {}) } });
        save("claim.player", { id: made.player_id, key: made.key, name: made.name });
        inboxPage();
      } catch (error) { note.replaceChildren(failure(error)); }
    });
    show(h("h1", {}, "Inbox"), form);
    name.focus();
    return;
  }
  show(h("h1", {}, `Inbox of ${me.name}`), h("p", { class: "muted" }, "Join a game with an invite link while registered, and it comes here."));
  try {
    const found = await api("GET", "/me/games?limit=100", { credential: me.key });
    const games = [...found.games].sort((a, b) => (b.your_turn - a.your_turn));
    main.append(games.length ? h("table", { "aria-label": "your games" },
      h("thead", {}, h("tr", {}, ["Game", "Status", "", "Last", ""].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, games.map((g) => h("tr", {}, h("td", {}, h("a", { href: `/play/${g.game_id}` }, g.game_id)), h("td", {}, g.status),
        h("td", {}, g.your_turn ? h("strong", {}, "your turn") : ""), h("td", {}, g.last),
        h("td", {}, g.seconds_left != null ? `${duration(g.seconds_left)} left` : ""))))) : h("p", {}, "No games yet."));
  } catch (error) { main.append(failure(error)); }
  main.append(h("p", {}, h("a", { href: "/leaderboard" }, "Ratings"), " · ",
    h("button", { onclick: () => { if (confirm("Forget your player key in this browser? Without it you cannot open this inbox again.")) { save("claim.player", null); inboxPage(); } } }, "Forget me in this browser")));
}

async function ratingsPage() {
  const n = +(new URLSearchParams(location.search).get("players") || 2);
  show(h("h1", {}, `Ratings, ${n} players`), h("nav", { "aria-label": "player counts", class: "row" },
    [2, 3, 4].map((k) => h("a", { href: `/leaderboard?players=${k}`, "aria-current": k === n ? "page" : null }, `${k} players`))));
  try {
    const board = await api("GET", `/ratings?players=${n}&limit=100`);
    main.append(board.standings.length ? h("table", {}, h("thead", {}, h("tr", {}, ["#", "Who", "Rating", "±", "Games"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, board.standings.map((s) => h("tr", {}, h("td", {}, s.rank), h("td", {}, s.kind === "ai" ? `AI ${s.name}` : s.name, s.provisional ? " (provisional)" : ""),
        h("td", {}, s.rating.toFixed(2)), h("td", {}, s.uncertainty.toFixed(2)), h("td", {}, s.games))))) : h("p", {}, "No rated game yet."));
  } catch (error) { main.append(failure(error)); }
}

const ROUTES = [
  [/^\/$/, lobbyPage], [/^\/new$/, newGamePage], [/^\/play\/([^/]+)$/, playPage],
  [/^\/replay\/([^/]+)$/, replayPage], [/^\/inbox$/, inboxPage], [/^\/leaderboard$/, ratingsPage],
];
for (const [pattern, page] of ROUTES) {
  const match = location.pathname.match(pattern);
  if (match) {
    page(...match.slice(1).map(decodeURIComponent)).catch((error) => show(failure(error)));
    break;
  }
}
