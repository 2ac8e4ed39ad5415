// /rules: how to play, in a few paragraphs (docs/RULES.md is the whole of it), and
// every faction's power from the one table of factions.
import { h, show } from "../dom.js";
import { FACTIONS } from "../factions.js";

const p = (...text) => h("p", {}, ...text);

export default function rulesPage() {
  const factions = Object.entries(FACTIONS).map(([code, faction]) => h("li", { id: `faction-${code}` },
    h("strong", {}, `${faction.symbol} ${faction.name}`), h("span", { class: "muted" }, ` (${faction.edition}; ${faction.cards})`), " ",
    faction.power(2), code === "DW" || code === "GI" ? [" ", h("em", {}, `With 3 or 4 players: ${faction.power(3)}`)] : null));
  show(h("h1", {}, "How to play Claim"),
    h("section", { "aria-labelledby": "r-goal" }, h("h2", { id: "r-goal" }, "What wins"),
      p("Each deck holds five factions (seven with 3 or 4 players). At the end, a faction goes to whoever has the most of its cards in their score pile (on equal counts, the higher cards). ",
        h("strong", {}, "The game goes to whoever wins the most factions"), "; then the most cards in the factions won; then the higher sum of their values. With 4 players, partners (seats 1 and 3: team A; seats 2 and 4: team B) count together.")),
    h("section", { "aria-labelledby": "r-round" }, h("h2", { id: "r-round" }, "A round"),
      p("The leader plays any card; its faction is led. Each other player in turn plays one card, and ", h("strong", {}, "must follow"),
        ": play the led faction if they hold it (a Doppelganger may always be played instead). Whoever holds none plays anything."),
      p("The highest card of the led faction wins (a Doppelganger after another lead counts as that faction); on equal values, the card played first. The winner leads the next round, unless a Dragon was played.")),
    h("section", { "aria-labelledby": "r-phase1" }, h("h2", { id: "r-phase1" }, "Phase 1: recruit followers"),
      p("Each round is played for a face-up prize from the draw pile (two prizes with 3 or 4 players). The winner puts the prize on their face-down follower pile; the loser draws the top card of the draw pile, which only they see. With 3 or 4 players, players choose prizes or draw in their order in the round. The cards played are discarded (the Undead go to the winner's score pile).")),
    h("section", { "aria-labelledby": "r-phase2" }, h("h2", { id: "r-phase2" }, "Phase 2: win the factions"),
      p("Your followers become your new hand. Play the same number of rounds: the winner of a round puts its cards face up on their score pile, unless a faction's power says otherwise.")),
    h("section", { "aria-labelledby": "r-factions" }, h("h2", { id: "r-factions" }, "The factions and their powers"),
      p("Claim has Goblins, Knights, Undead, Doppelgangers and Dwarves; Claim 2 has Gnomes, Giants, Dragons, Trolls and Seers; a deck may mix them."),
      h("ul", { class: "faction-list" }, factions)),
    h("section", { "aria-labelledby": "r-table" }, h("h2", { id: "r-table" }, "At this table"),
      p("Only the cards you may play can be pressed; a greyed card tells why not when you point at it, focus it or tap it. Press a faction's name for its power. The move list tells every round; the tab's title says when it is your turn."),
      p(h("a", { href: "/new" }, "Start a game"), ". The whole rules, with every case settled, are docs/RULES.md in this server's source.")));
}
