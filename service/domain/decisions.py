"""Decisions, written as in RULES.md 2: `play GO3`, `take KN5`, `take deck`.

There is one `Decision` object per distinct decision, so they compare by identity,
like cards.
"""

from __future__ import annotations

from .cards import Card
from .errors import MalformedDecision

PLAY = "play"
TAKE = "take"
DECK = "deck"


class Decision:
    """Play a card from hand, take a prize, or take the draw pile's top card.

    `card` is None only for `take deck`.
    """

    __slots__ = ("card", "kind", "text")

    kind: str
    card: Card | None
    text: str

    @classmethod
    def _make(cls, kind: str, card: Card | None) -> Decision:
        decision = object.__new__(cls)
        decision.kind = kind
        decision.card = card
        decision.text = f"{kind} {card.code if card else DECK}"
        return decision

    @classmethod
    def parse(cls, text: str) -> Decision:
        """The decision written `text`, or `MalformedDecision` / `UnknownCard`."""
        if not isinstance(text, str):
            raise MalformedDecision(f"a decision is text, not {type(text).__name__}")
        words = text.split()
        if len(words) != 2 or words[0] not in (PLAY, TAKE) or words == [PLAY, DECK]:
            raise MalformedDecision(
                f"{text!r} is not a decision: write 'play <card>', 'take <card>' or 'take deck'"
            )
        if words[1] == DECK:
            return TAKE_DECK
        card = Card.parse(words[1])
        return PLAY_DECISION[card] if words[0] == PLAY else TAKE_DECISION[card]

    @classmethod
    def play(cls, card: Card) -> Decision:
        return PLAY_DECISION[card]

    @classmethod
    def take(cls, card: Card | None) -> Decision:
        """Take this prize, or the draw pile's top card when `card` is None."""
        return TAKE_DECK if card is None else TAKE_DECISION[card]

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Decision({self.text!r})"

    def __lt__(self, other: Decision) -> bool:
        return self.text < other.text

    def __reduce__(self):
        return (Decision.parse, (self.text,))


PLAY_DECISION: dict[Card, Decision] = {
    card: Decision._make(PLAY, card) for card in Card._by_code.values()
}
TAKE_DECISION: dict[Card, Decision] = {
    card: Decision._make(TAKE, card) for card in Card._by_code.values()
}
TAKE_DECK: Decision = Decision._make(TAKE, None)
