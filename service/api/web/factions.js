// The ten factions as every page names and explains them: one table, worded from
// docs/RULES.md sections 1 and 6 (the server decides what is legal; this only tells).
export const FACTIONS = {
  GO: { name: "Goblins", one: "Goblin", symbol: "♣", edition: "Claim", cards: "14 cards: five 0s, then 1 to 9",
    power: () => "No power. When Goblins are led, Knights beat them (see Knights)." },
  KN: { name: "Knights", one: "Knight", symbol: "♞", edition: "Claim", cards: "8 cards: 2 to 9",
    power: () => "A Knight played in a round that Goblins led wins it, whatever the values (of several, the highest). You still must follow Goblins if you hold one." },
  UN: { name: "Undead", one: "Undead", symbol: "☠", edition: "Claim", cards: "10 cards: 0 to 9",
    power: () => "Phase 1: the Undead played in a round go to its winner's score pile, not to the discard." },
  DO: { name: "Doppelgangers", one: "Doppel", symbol: "◐", edition: "Claim", cards: "10 cards: 0 to 9",
    power: () => "May always be played, even when you could follow. After another faction's lead it counts as that faction (its value competes) but never has its power. When Doppelgangers are led, a player holding one must play one." },
  DW: { name: "Dwarves", one: "Dwarf", symbol: "⚒", edition: "Claim", cards: "10 cards: 0 to 9",
    power: (players) => (players === 2
      ? "Phase 2: the Dwarves played in a round go to its loser's score pile; the winner takes the other cards."
      : "Phase 2: the Dwarves played in a round go to whoever played its lowest card (on equal values, the last of them to play).") },
  GN: { name: "Gnomes", one: "Gnome", symbol: "✿", edition: "Claim 2", cards: "13 cards: 1, 3, 5, 7 three times each, and 9",
    power: () => "Phase 2: a Gnome won is laid face up in front of its winner; Giants may remove it; the Gnomes left go to the score pile at the end." },
  GI: { name: "Giants", one: "Giant", symbol: "▲", edition: "Claim 2", cards: "9 cards: 1, 3, 5, 7 twice each, and 9",
    power: (players) => `Phase 2: the winner of a round with Giants in it removes, for each Giant, one Gnome of the same value lying in front of ${
      players === 3 ? "each opponent" : players === 4 ? "an opponent (never the partner)" : "the opponent"}.` },
  DR: { name: "Dragons", one: "Dragon", symbol: "✦", edition: "Claim 2", cards: "10 cards: 0 to 9",
    power: () => "Whoever played the last Dragon of a round leads the next one, whatever its value and whoever won." },
  TR: { name: "Trolls", one: "Troll", symbol: "♜", edition: "Claim 2", cards: "10 cards: 0 to 9",
    power: () => "Phase 2: a round's winner takes one Troll only, the highest of those played and those set aside; the others are set aside face up. The last round's winner takes every Troll left." },
  SE: { name: "Seers", one: "Seer", symbol: "◉", edition: "Claim 2", cards: "10 cards: 0 to 9",
    power: () => "Phase 1: who wins a round with a Seer looks at the top card of the draw pile and takes either a prize or that card." },
};

export const factionName = (code) => FACTIONS[code]?.name ?? code;
export const shortName = (code) => FACTIONS[code]?.one ?? code;  // on a card's face
export const symbolOf = (code) => FACTIONS[code]?.symbol ?? "?";
export const cardLabel = (code) => (code == null ? "a hidden card" : `${factionName(code.slice(0, 2))} ${code.slice(2)}`);
