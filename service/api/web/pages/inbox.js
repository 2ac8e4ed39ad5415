// /inbox: register (or sign in), then your games on every device, those waiting for
// you first, updated live; your email address; your other devices.
import { api, problemsOnly } from "../api.js";
import { emailPanel, guestSeatsOffer, keyNotice, otherDevice, registerForm } from "../account.js";
import { showTurns } from "../attention.js";
import { breakPanel, notificationsPanel } from "../push.js";
import { clockFace, copyField, duration, failure, h, redraw, show, timeoutRule } from "../dom.js";
import { gameItem, gameList } from "../games-list.js";
import { watch, watchPlayer } from "../live.js";
import { forgetPlayer, forgetSeat, player, seats } from "../store.js";
import { readable, seatName } from "../words.js";

function statusOf(entry) {
  if (entry.status === "running") {
    if (entry.your_turn) return h("strong", { class: "your-turn-mark" }, "Your turn");
    return `${seatName(entry, entry.to_act)} to play`;
  }
  if (entry.status === "open") return "Waiting for players";
  if (entry.status === "aborted") return "Called off";
  if (entry.you_won === true) return h("strong", { class: "good" }, "You won");
  if (entry.you_won === false) return "You lost";
  return entry.ending?.winners?.length === 0 ? "A draw" : "Finished";
}

// What your timeout comes to now, said beside the time left.
const OUT_OF_TIME = { ai: "an AI moves for you", takeover: "an AI plays your seat until you take it back", forfeit: "you lose the game" };

function entryItem(entry) {
  const last = entry.last ? readable(entry.last, entry, entry.seat) : "";
  const what = [statusOf(entry), last ? h("span", { class: "muted" }, ` · last: ${last}`) : null,
    entry.seconds_left != null && entry.status === "running" ? h("span", {}, ` · ${clockFace(entry.seconds_left)} left ${entry.your_turn ? "for you" : `for ${seatName(entry, entry.to_act)}`}`) : null,
    entry.your_turn && entry.on_timeout ? h("span", { class: "muted" }, ` · then ${OUT_OF_TIME[entry.on_timeout.split(":")[0]]}`) : null];
  const go = [h("a", { href: entry.status === "finished" || entry.status === "aborted" ? `/replay/${entry.game_id}` : `/play/${entry.game_id}` },
    entry.your_turn ? "Play" : entry.status === "running" || entry.status === "open" ? "Open" : "Replay"),
  entry.status === "finished" ? [" ", h("a", { href: `/play/${entry.game_id}` }, entry.rematch ? "Rematch offered" : "The table")] : null];
  return gameItem(entry, { what, go, mark: entry.your_turn ? "your-turn" : "" });
}

// A challenge in words: who asked whom, for what game.
function challengeText(c, me) {
  const s = c.settings;
  const who = (name, bot) => [name, bot ? h("span", { class: "badge bot" }, "bot") : null];
  const ask = c.from === me.id ? ["You challenged ", who(c.to.startsWith("ai:") ? `AI (${c.to_name})` : c.to_name, c.to_bot)]
    : [who(c.from_name, c.from_bot), " challenges you"];
  const game = [`${s.players} players`, s.players > 2 ? `other seats AI (${s.others.slice(3)})` : null, s.rated ? "rated" : null].filter(Boolean).join(", ");
  return [ask, h("span", { class: "muted" }, `: ${game}. ${timeoutRule(s)}`)];
}

// Open challenges, each with what may be done to it: accept or decline one sent to
// you, cancel one you sent. `changed(game id?)` after an answer, `refused(error)` after
// a refusal.
function challengeList(challenges, total, me, changed, refused) {
  const act = (c, action, label) => h("button", { type: "button", "aria-label": `${label} the challenge of ${c.from === me.id ? "yours to " + c.to_name : c.from_name}`, onclick: async () => {
    try {
      const done = await api("POST", `/challenges/${c.id}/${action}`, { credential: me.key });
      changed(done.game_id);
    } catch (error) { changed(); problemsOnly(refused)(error); }
  } }, label);
  const items = challenges.map((c) => h("li", { class: "challenge", "data-challenge": c.id }, h("div", {}, challengeText(c, me)),
    h("div", { class: "game-go" }, c.to === me.id ? [act(c, "accept", "Accept"), " ", act(c, "decline", "Decline")] : act(c, "cancel", "Cancel"))));
  if (!items.length) return h("p", { class: "muted" }, "No open challenge.");
  const more = total > items.length ? h("p", { class: "muted", id: "more-challenges" },
    `The oldest ${items.length} of ${total} open challenges: answer them, and the next come.`) : null;
  return [h("ul", { class: "games", "aria-label": "open challenges" }, items), more];
}

// Challenge a player (by the id they gave you) or an AI level, live or by mail; what a
// timeout does is said before the challenge goes (a rated game: the seat loses).
function challengeForm(me, changed, refused) {
  const to = h("input", { id: "challenge-to", required: true, autocomplete: "off", placeholder: "a player id, or ai:greedy" });
  const players = h("select", { id: "challenge-players", "aria-label": "players" }, [2, 3, 4].map((n) => h("option", { value: n }, `${n} players`)));
  const limit = h("select", { id: "challenge-time", "aria-label": "time per move" }, [["", "no time limit"], ["300", "5 minutes a move"],
    ["3600", "1 hour a move"], ...[1, 2, 3, 5, 7, 10, 14].map((days) => [String(days * 86400), `${duration(days * 86400)} a move`])]
    .map(([value, text]) => h("option", { value }, text)));
  const rated = h("input", { id: "challenge-rated", type: "checkbox" });
  const rule = h("p", { class: "muted", id: "challenge-rule", "aria-live": "polite" });
  // Unrated: an AI makes a late move, and plays the seat after three in a row.
  const settings = () => ({ move_time_limit: limit.value ? +limit.value : null, rated: rated.checked,
    timeout_policy: rated.checked ? "forfeit" : "takeover:greedy", timeout_limit: 3, final_timeout_policy: "takeover" });
  const ruleFits = () => { rule.textContent = `Your challenge: ${timeoutRule(settings())}`; };
  limit.addEventListener("change", ruleFits);
  rated.addEventListener("change", ruleFits);
  ruleFits();
  const form = h("form", { class: "row", "aria-label": "challenge a player", onsubmit: async (event) => {
    event.preventDefault();
    try {
      const made = await api("POST", "/challenges", { credential: me.key, body: { to: to.value.trim(), players: +players.value, ...settings() } });
      to.value = "";
      changed(made.game_id);
    } catch (error) { problemsOnly(refused)(error); }
  } }, h("label", { class: "inline", for: "challenge-to" }, "Challenge"), to, players, limit,
  h("label", { class: "inline", for: "challenge-rated" }, rated, " rated"), h("button", { type: "submit" }, "Send"));
  return [form, rule];
}

const PAGE = 50;  // games a look asks for: the most /me/games answers at once

// What the page listens to, to let go of when it is drawn anew (registered, signed out).
let listening = null;

export default async function inboxPage(welcome = null) {
  listening?.();
  listening = null;
  const me = player();
  if (!me) {
    const form = registerForm((made) => inboxPage((redraw) => keyNotice(made, redraw)),
      "Register to keep your games in one inbox on every device, to be told when it is your turn, and to play rated games.");
    show(h("h1", {}, "Inbox"), welcome, form, h("p", {}, "Registered already? ", h("a", { href: "/sign-in" }, "Sign in on this device"), "."));
    form.querySelector("input").focus();
    return;
  }
  const list = h("section", { "aria-labelledby": "inbox-games" }, h("h2", { id: "inbox-games" }, "Your games"), h("p", { class: "muted" }, "Loading…"));
  // After a challenge is answered: to its game if one started, else the list again. A
  // refusal is told under the form, where the eye is (and on a phone too).
  const trouble = h("div", {});
  const challenged = (gameId) => { trouble.replaceChildren(); if (gameId) location.assign(`/play/${gameId}`); else draw(); };
  const refused = (error) => trouble.replaceChildren(failure(error));
  const challengeBox = h("section", { "aria-labelledby": "inbox-challenges" }, h("h2", { id: "inbox-challenges" }, "Challenges"));
  const challengeArea = h("div", {});
  const [form, rule] = challengeForm(me, challenged, refused);
  challengeBox.append(challengeArea, form, trouble, rule,
    h("p", { class: "muted" }, "Others challenge you with your player id: ", copyField(me.id, "your player id")));
  // `welcome`: a notice above the inbox, or one made with a way to draw the list again.
  const notice = typeof welcome === "function" ? welcome(() => draw()) : welcome;
  show(h("h1", {}, `Inbox of ${me.name}`), notice, notice ? null : guestSeatsOffer(me, () => draw()), challengeBox, list, notificationsPanel(me), breakPanel(me), emailPanel(me), otherDevice(me),
    h("p", {}, h("a", { href: "/leaderboard" }, "Ratings"), " · ",
      h("button", { type: "button", onclick: () => {
        if (!confirm("Sign out of this browser? It forgets your key and every seat it holds; sign in again with a sign-in link or your key.")) return;
        forgetPlayer();
        for (const gameId of Object.keys(seats())) forgetSeat(gameId);
        inboxPage();
      } }, "Sign out of this browser")));
  let live = null;
  let versions = new Map();  // game id -> its entry, as shown
  let watched = [];
  let pages = 1;  // of the server's pages of games shown, the newest first
  async function draw() {
    try {
      const found = await api("GET", `/me/games?limit=${PAGE}`, { credential: me.key });
      for (let n = 1; n < pages && found.games.length < found.total; n += 1) {
        const older = await api("GET", `/me/games?limit=${PAGE}&offset=${n * PAGE}`, { credential: me.key });
        found.games.push(...older.games);
      }
      const games = [...found.games].sort((a, b) => (b.your_turn - a.your_turn));
      showTurns(games.filter((entry) => entry.your_turn).length, "Inbox");
      redraw(challengeArea, challengeList(found.challenges ?? [], found.challenges_total ?? 0, me, challenged, refused));
      const older = found.total > games.length ? h("button", { type: "button", id: "older-games", onclick: () => { pages += 1; draw(); } },
        `Older games (${found.total - games.length} more)`) : null;
      redraw(list, h("h2", { id: "inbox-games" }, "Your games"),
        gameList("your games", games.map(entryItem), "No games yet: join a game with an invite link while signed in, and it comes here."), older);
      versions = new Map(games.filter((entry) => entry.status === "running" || entry.status === "open").slice(0, 40).map((entry) => [entry.game_id, entry]));
      if (live && [...versions.keys()].join() !== watched.join()) live.update({ games: watched = [...versions.keys()] });
    } catch (error) {
      if (error.status === 401) {  // this device's key was signed out (from another device)
        forgetPlayer();
        return inboxPage(h("p", { class: "notice", role: "alert" }, "This device was signed out of your player. Sign in again, or register."));
      }
      list.replaceChildren(h("h2", { id: "inbox-games" }, "Your games"), failure(error));
    }
  }
  await draw();
  // Live: a game being played moved on, or (a second "ready") the connection was made
  // again. A burst of news: one look.
  let pending = null;
  const look = () => { clearTimeout(pending); pending = setTimeout(draw, 100); };
  let connected = false;
  watched = [...versions.keys()];
  live = watch({ games: watched }, (change) => {
    const entry = versions.get(change.game_id);
    if (change.type === "game" ? !entry || change.version > entry.version : connected) look();
    if (change.type === "ready") connected = true;
  });
  // The player's own stream tells of challenges (and games joined elsewhere). Its
  // `state` opens each connection: what came before it was live is seen by a look.
  const own = watchPlayer(me.key, (event) => {
    if (event.type !== "your-turn") look();
  });
  const onVisible = () => { if (!document.hidden) draw(); };
  document.addEventListener("visibilitychange", onVisible);
  listening = () => { live.close(); own.close(); clearTimeout(pending); document.removeEventListener("visibilitychange", onVisible); };
}
