"""Events told in words, public, for inboxes and notifications (`event_words`), and a
readable account of one step of a game, for replays (`describe`): who played or took
what, who won the round and what it gave whom, which power acted.

Told from a reader's seat: a card drawn from the draw pile, or seen after a Seer win,
is named only to the seat that drew or saw it, or to everybody once the game is over
(RULES.md 8).
"""

from __future__ import annotations

from collections import Counter

from service.domain import Faction, State
from service.events import (
    BreakEnded,
    BreakTaken,
    DecisionMade,
    Event,
    GameAborted,
    GameResigned,
    SeatJoined,
    SeatRegistered,
    SeatReturned,
    TurnTimedOut,
)

DRAWN = {"deck": "took the top card of the draw pile", "draw": "drew"}


def describe(before: State, after: State, event: Event, reader: int | None, reveal: bool) -> list:
    """Sentences telling what `event` did, turning `before` into `after`."""

    def sees(seat: int) -> bool:
        return reveal or seat == reader

    lines = [event_words(event)]
    if len(after.rounds) > len(before.rounds):
        lines += _round(before, after, sees)
    return lines


def _round(before: State, after: State, sees) -> list[str]:
    record = after.rounds[-1]
    lines = [f"seat {record.winner} won round {record.number + 1} of phase {record.phase}"]
    if record.peek is not None:
        seen = f" ({record.peek.card})" if sees(record.peek.seat) else ""
        lines.append(f"with a Seer, seat {record.peek.seat} saw the draw pile's top card{seen}")
    for acquisition in record.acquired:
        if acquisition.source == "prize":
            lines.append(f"seat {acquisition.seat} took the prize {acquisition.card}")
        else:
            card = f" {acquisition.card}" if sees(acquisition.seat) else " a card"
            lines.append(f"seat {acquisition.seat} {DRAWN[acquisition.source]}{card}")
    for seat in range(after.players):
        scored = _added(before.score_piles[seat], after.score_piles[seat])
        if scored:
            lines.append(f"seat {seat} scored {scored}")
        gnomes = _added(before.gnomes_in_front[seat], after.gnomes_in_front[seat])
        if gnomes:
            lines.append(f"Gnomes placed in front of seat {seat}: {gnomes}")
    for play in record.removed:
        lines.append(f"Giants removed seat {play.seat}'s Gnome {play.card}")
    if after.trolls_aside != before.trolls_aside:
        aside = " ".join(c.code for c in after.trolls_aside) or "none"
        lines.append(f"Trolls set aside: {aside}")
    dragons = [play for play in record.plays if play.card.faction is Faction.DRAGONS]
    if after.to_act is None:
        lines.append("the game is over")
    else:
        if dragons:
            lines.append(f"seat {dragons[-1].seat} played the round's last Dragon and leads next")
        if after.phase != before.phase:
            lines.append("phase 2 begins: each seat takes its follower pile as its hand")
        lines.append(f"seat {after.leader} leads round {after.round + 1} of phase {after.phase}")
    return lines


def _added(old, new) -> str:
    """The cards of `new` that `old` did not have, as codes."""
    return " ".join(card.code for card in (Counter(new) - Counter(old)).elements())


# What a timeout came to, by the mode of the policy that applied.
TIMED_OUT = {
    "ai": "an AI moves for them",
    "takeover": "an AI plays the seat until they take it back",
    "forfeit": "their side loses",
}


def event_words(event: Event) -> str:
    """One sentence for an event, public: it names no hidden card."""
    if isinstance(event, DecisionMade):
        decision = event.decision
        if decision.kind == "play":
            words = f"seat {event.seat} played {decision.card}"
        elif decision.card is None:
            words = f"seat {event.seat} chose the top card of the draw pile over a prize"
        else:
            words = f"seat {event.seat} took the prize {decision.card}"
        if event.timeout_policy:  # the seat's time ran out
            words += " (an AI for them: their time ran out)"
        return words
    if isinstance(event, GameResigned):
        return f"seat {event.seat} resigned: the game is over"
    if isinstance(event, TurnTimedOut):
        mode = event.policy.split(":")[0]
        return f"seat {event.seat}'s time ran out: {TIMED_OUT[mode]}"
    if isinstance(event, SeatReturned):
        return f"seat {event.seat} took the seat back from the AI"
    if isinstance(event, BreakTaken):
        return (
            f"seat {event.seat}'s break runs until {event.until:%Y-%m-%d %H:%M} UTC"
            f" ({event.days_used} of {event.days_allowed} days this year)"
        )
    if isinstance(event, BreakEnded):
        return f"seat {event.seat}'s break ended"
    if isinstance(event, SeatJoined):
        return f"{event.name} took seat {event.seat}"
    if isinstance(event, SeatRegistered):
        return f"seat {event.seat} became a registered player's"
    if isinstance(event, GameAborted):
        return f"the game was aborted: {event.reason}"
    return "the game was created"
