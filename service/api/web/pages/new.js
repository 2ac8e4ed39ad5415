// /new: a game of 2-4 players, the deck, each seat a person or an AI, the time per
// move; it answers an invite link per person's seat (the code after `#`).
import { api } from "../api.js";
import { failure, h, show } from "../dom.js";
import { factionName } from "../factions.js";
import { copyField } from "../account.js";
import { player } from "../store.js";

const LEVELS = ["random", "greedy", "expert"];

function option(value, text, selected = false) { return h("option", { value, selected }, text); }

export default async function newGamePage() {
  const decks = await api("GET", "/decks");
  const me = player();
  const form = h("form", { "aria-label": "new game", class: "new-game" });
  const players = h("select", { name: "players", id: "players" }, [2, 3, 4].map((n) => option(n, `${n} players${n === 4 ? " (two teams)" : ""}`)));
  const deck = h("select", { name: "deck", id: "deck" });
  const seatsBox = h("fieldset", {}, h("legend", {}, "Seats"));
  const limit = h("select", { id: "limit" }, [["", "no time limit"], ["300", "5 minutes"], ["3600", "1 hour"], ["86400", "1 day"], ["259200", "3 days"]]
    .map(([value, text]) => option(value, text)));
  const policy = h("select", { id: "policy" }, [["ai:greedy", "an AI (greedy) makes that move"], ["takeover:greedy", "an AI plays the seat until its player returns"], ["forfeit", "the seat loses"]]
    .map(([value, text]) => option(value, text)));
  const rated = h("input", { type: "checkbox", id: "rated", disabled: !me });
  const open = h("input", { type: "checkbox", id: "public" });
  const result = h("div", { "aria-live": "polite" });
  function redraw() {
    const n = +players.value;
    deck.replaceChildren(option("random", "a random legal deck"),
      ...(n === 2 ? Object.entries(decks.presets).map(([name, codes]) => option(name, `${name === "claim" ? "Claim" : "Claim 2"}: ${codes.map(factionName).join(", ")}`)) : []),
      ...decks.legal[n].map((codes) => option(codes.join(","), codes.map(factionName).join(", "))));
    seatsBox.replaceChildren(h("legend", {}, "Seats"), ...Array.from({ length: n }, (_, seat) => h("label", {},
      `Seat ${seat}${n === 4 ? ` (team ${seat % 2}${seat === 2 ? ", partner of seat 0" : seat === 3 ? ", partner of seat 1" : ""})` : ""}: `,
      h("select", { id: `seat-${seat}` }, option("human", "a person"),
        LEVELS.map((level) => option(`ai:${level}`, `AI: ${level}`, seat > 0 && n === 2 && level === "greedy"))))));
  }
  players.addEventListener("change", redraw);
  rated.addEventListener("change", () => {  // no AI plays a rated seat: its time runs out by forfeit
    if (rated.checked) policy.value = "forfeit";
    policy.disabled = rated.checked;
  });
  redraw();
  form.append(h("label", {}, "Players: ", players), h("label", {}, "Deck (the rules' legal sets of factions): ", deck), seatsBox,
    h("label", {}, "Time per move: ", limit), h("label", {}, "When it runs out: ", policy),
    h("label", {}, open, " open to anybody: the lobby offers its seats, no invite needed"),
    h("label", {}, rated, " rated: every person's seat is for a registered player"),
    me ? null : h("p", { class: "muted", id: "rated-note" }, "Rated games are for registered players: ", h("a", { href: "/inbox" }, "register in the inbox"), " first."),
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
      const short = game.game_id.slice(0, 8);
      if (open.checked) {
        const people = body.seats.map((seat, k) => (seat.kind === "human" ? k : null)).filter((k) => k != null);
        result.replaceChildren(h("section", { class: "notice", "aria-labelledby": "invites" }, h("h2", { id: "invites" }, `Game ${short} created`),
          h("p", {}, "It is open to anybody: the lobby offers its seats until they are taken."),
          h("ul", {}, people.map((seat) => h("li", {}, h("a", { href: `/play/${game.game_id}?seat=${seat}`, class: "take-seat" }, `Take seat ${seat} here`))))));
        result.querySelector("a")?.focus();
        return;
      }
      const links = game.invites.map(({ seat, invite }) => ({ seat, url: `${location.origin}/play/${game.game_id}?seat=${seat}#invite=${encodeURIComponent(invite)}` }));
      result.replaceChildren(h("section", { class: "notice", "aria-labelledby": "invites" }, h("h2", { id: "invites" }, `Game ${short} created`),
        h("p", {}, "Each link below takes one seat. Take yours, and send each other one to its person (the code after # never reaches a server log); they are shown only now."),
        h("ul", { class: "invites" }, links.map(({ seat, url }) => h("li", {}, h("span", {}, `Seat ${seat}: `),
          copyField(url, `invite link of seat ${seat}`), h("a", { href: url, class: "take-seat" }, `Take seat ${seat} here`)))),
        links.length === 0 ? h("p", {}, h("a", { href: `/play/${game.game_id}` }, "Watch it")) : null));
      result.querySelector("a")?.focus();
    } catch (error) {
      result.replaceChildren(failure(error));
      submit.disabled = false;
    }
  });
  show(h("h1", {}, "New game"), form, result);
}
