// /new: a game of 2-4 players, the deck, each seat a person or an AI, the time per
// move. The first seat is the creator's when it is a person's: they sit down at once
// (with their name, or as their registered player); the invite links of the other
// people's seats (the code after `#`) are kept in this browser and shown at the table
// until those seats are taken, as the server shows them once only.
import { api } from "../api.js";
import { duration, failure, h, plural, show, timeoutRule } from "../dom.js";
import { factionName } from "../factions.js";
import { keepInvites, keepName, keepSeat, lastName, player } from "../store.js";
import { seatNumber, teamName } from "../words.js";

const LEVELS = ["random", "greedy", "expert"];

function option(value, text, selected = false) { return h("option", { value, selected }, text); }

function seatLabel(seat, players) {
  if (players !== 4) return `Seat ${seatNumber(seat)}`;
  const partner = (seat + 2) % 4;
  return `Seat ${seatNumber(seat)} (${teamName(seat % 2)}, partner of seat ${seatNumber(partner)})`;
}

export default async function newGamePage() {
  const decks = await api("GET", "/decks");
  const me = player();
  const form = h("form", { "aria-label": "new game", class: "new-game" });
  const players = h("select", { name: "players", id: "players" }, [2, 3, 4].map((n) => option(n, `${n} players${n === 4 ? " (two teams)" : ""}`)));
  const deck = h("select", { name: "deck", id: "deck" });
  const seatsBox = h("fieldset", {}, h("legend", {}, "Seats"));
  const name = h("input", { id: "your-name", maxlength: 64, value: me?.name ?? lastName(), autocomplete: "nickname", disabled: Boolean(me) });
  // Minutes for a live game; days for one by mail (the steps long play-by-mail sites use).
  const limit = h("select", { id: "limit" }, [["", "no time limit"], ["300", "5 minutes"], ["900", "15 minutes"], ["3600", "1 hour"],
    ...[1, 2, 3, 5, 7, 10, 14].map((days) => [String(days * 86400), duration(days * 86400)])].map(([value, text]) => option(value, text)));
  const policy = h("select", { id: "policy" }, [["ai:greedy", "an AI (greedy) makes that move"], ["takeover:greedy", "an AI makes that move, up to a number of times in a row"], ["forfeit", "the seat loses"]]
    .map(([value, text]) => option(value, text)));
  const inARow = h("select", { id: "timeout-limit", "aria-label": "timeouts in a row" }, [1, 2, 3, 4, 5, 7, 10].map((n) => option(n, plural(n, "timeout"), n === 3)));
  const final = h("select", { id: "final-policy", "aria-label": "what happens then" }, [["takeover", "an AI plays the seat until its player takes it back"], ["forfeit", "the seat loses"]]
    .map(([value, text]) => option(value, text)));
  const takeoverBox = h("p", { class: "takeover" }, "After ", inARow, " in a row: ", final);
  const rule = h("p", { id: "timeout-rule", class: "notice", "aria-live": "polite" });
  const rated = h("input", { type: "checkbox", id: "rated", disabled: !me });
  const open = h("input", { type: "checkbox", id: "public" });
  const result = h("div", { "aria-live": "polite" });
  function redraw() {
    const n = +players.value;
    deck.replaceChildren(option("random", "a random legal deck"),
      ...(n === 2 ? Object.entries(decks.presets).map(([preset, codes]) => option(preset, `${preset === "claim" ? "Claim" : "Claim 2"}: ${codes.map(factionName).join(", ")}`)) : []),
      ...decks.legal[n].map((codes) => option(codes.join(","), codes.map(factionName).join(", "))));
    seatsBox.replaceChildren(h("legend", {}, "Seats"), ...Array.from({ length: n }, (_, seat) => h("label", {}, `${seatLabel(seat, n)}: `,
      h("select", { id: `seat-${seat}` }, option("human", seat === 0 ? "you" : "a person (invited by a link)"),
        LEVELS.map((level) => option(`ai:${level}`, `AI: ${level}`, seat > 0 && level === "greedy"))))));
  }
  players.addEventListener("change", redraw);
  // No AI plays a rated seat: its time runs out by forfeit (the rule line says so);
  // without a limit, it never does.
  const policyFits = () => {
    if (rated.checked) policy.value = "forfeit";
    policy.disabled = rated.checked || !limit.value;
    takeoverBox.hidden = policy.disabled || !policy.value.startsWith("takeover");
    rule.textContent = timeoutRule(settings());
  };
  const settings = () => ({ move_time_limit: limit.value ? +limit.value : null, timeout_policy: policy.value, rated: rated.checked,
    ...(policy.value.startsWith("takeover") ? { timeout_limit: +inARow.value, final_timeout_policy: final.value } : {}) });
  for (const input of [policy, inARow, final]) input.addEventListener("change", policyFits);
  rated.addEventListener("change", policyFits);
  limit.addEventListener("change", policyFits);
  policyFits();
  redraw();
  form.append(h("label", {}, "Players: ", players), h("label", {}, "Deck (the rules' legal sets of factions): ", deck), seatsBox,
    h("label", {}, me ? `Your name: ${me.name} (your registered player) ` : "Your name: ", me ? "" : name),
    h("label", {}, "Time per move: ", limit), h("label", {}, "When it runs out: ", policy), takeoverBox, rule,
    h("label", {}, open, " open to anybody: the lobby offers its seats, no invite needed"),
    h("label", {}, rated, " rated: every person's seat is for a registered player"),
    me ? "" : h("p", { class: "muted", id: "rated-note" }, "Rated games are for registered players: ", h("a", { href: "/inbox" }, "register in the inbox"), " first."),
    h("button", { class: "primary", type: "submit" }, "Create the game"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const n = +players.value;
    const body = { players: n, rated: rated.checked, public: open.checked,
      seats: Array.from({ length: n }, (_, seat) => { const v = form.querySelector(`#seat-${seat}`).value; return v === "human" ? { kind: "human" } : { kind: "ai", level: v.slice(3) }; }),
      factions: deck.value.includes(",") ? deck.value.split(",") : deck.value, ...settings() };
    if (!limit.value) delete body.move_time_limit;
    const submit = form.querySelector("button[type=submit]");
    submit.disabled = true;  // one game per press
    try {
      const game = await api("POST", "/games", { body });
      const invites = game.invites ?? [];
      const mine = body.seats[0].kind === "human";
      const link = (seat, invite) => `${location.origin}/play/${game.game_id}?seat=${seat}${invite ? `#invite=${encodeURIComponent(invite)}` : ""}`;
      if (mine) {  // the creator sits down at once
        const code = invites.find((invite) => invite.seat === 0)?.invite;
        const joined = await api("POST", `/games/${game.game_id}/seats/0`, { body: { ...(code ? { invite: code } : {}), ...(me ? {} : { name: name.value || "Player 1" }) }, credential: me?.key });
        if (!me) { keepSeat(game.game_id, 0, joined.token); keepName(name.value); }
      }
      keepInvites(game.game_id, invites.filter((invite) => invite.seat !== 0 || !mine).map(({ seat, invite }) => ({ seat, url: link(seat, invite) })));
      location.assign(`/play/${game.game_id}`);
    } catch (error) {
      result.replaceChildren(failure(error));
      submit.disabled = false;
    }
  });
  show(h("h1", {}, "New game"), form, result);
  if (!me) name.focus();
}
