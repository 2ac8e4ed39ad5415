"""Cards (RULES.md 1) and decisions (RULES.md 2) in their text forms."""

import pickle

import pytest

from service.domain import FACTION_CARDS, Card, Decision, Faction, MalformedDecision, UnknownCard


@pytest.mark.parametrize(
    ("code", "count"),
    [("GO", 14), ("KN", 8), ("UN", 10), ("DO", 10), ("DW", 10)]
    + [("GN", 13), ("GI", 9), ("DR", 10), ("TR", 10), ("SE", 10)],
)
def test_each_faction_has_its_number_of_cards(code, count):
    assert len(FACTION_CARDS[Faction(code)]) == count


def test_the_uneven_factions_have_their_own_values():
    values = {f.code: [c.value for c in cards] for f, cards in FACTION_CARDS.items()}
    assert values["GO"] == [0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert values["KN"] == list(range(2, 10))
    assert values["GN"] == [1, 1, 1, 3, 3, 3, 5, 5, 5, 7, 7, 7, 9]
    assert values["GI"] == [1, 1, 3, 3, 5, 5, 7, 7, 9]


def test_a_card_code_parses_to_its_faction_and_value_and_prints_back():
    card = Card.parse("SE4")
    assert (card.faction, card.value, str(card)) == (Faction.SEERS, 4, "SE4")
    assert Card.parse("SE4") is card and pickle.loads(pickle.dumps(card)) is card


@pytest.mark.parametrize("code", ["KN1", "GN2", "XX3", "GO", "go3", "", "GO10"])
def test_an_unknown_card_code_is_refused(code):
    with pytest.raises(UnknownCard):
        Card.parse(code)


@pytest.mark.parametrize("text", ["play GO3", "take KN5", "take deck"])
def test_a_decision_prints_as_it_parses(text):
    assert str(Decision.parse(text)) == text


def test_a_decision_names_its_kind_and_card():
    assert (Decision.parse("play GO3").kind, Decision.parse("play GO3").card) == (
        "play",
        Card.parse("GO3"),
    )
    assert Decision.parse("take deck").card is None


@pytest.mark.parametrize("text", ["", "play", "discard GO3", "play deck", "play GO3 now", 17])
def test_a_malformed_decision_is_refused(text):
    with pytest.raises(MalformedDecision):
        Decision.parse(text)


def test_a_decision_naming_an_unknown_card_is_refused():
    with pytest.raises(UnknownCard):
        Decision.parse("play KN1")
