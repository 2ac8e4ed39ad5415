"""The API's own field types: what names and other text may hold, and how numbers in a
query string or a path are written."""

from __future__ import annotations

import re
import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from marshmallow import ValidationError

from service.api.fields import BLANK_ONLY, UNFIT, Name, QueryInteger, QueryNumber, Text

REFUSED_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs"}
JOINERS = "\u200c\u200d"  # ZWNJ and ZWJ: Persian, Indic scripts and emoji sequences need them


def refused(character: str) -> bool:
    return unicodedata.category(character) in REFUSED_CATEGORIES and character not in JOINERS


def test_unfit_is_every_control_separator_and_format_character_but_the_joiners():
    assert unicodedata.unidata_version == "14.0.0"  # another Unicode: see UNFIT again
    wrong = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if bool(UNFIT.match(chr(code))) != refused(chr(code))
    ]
    assert wrong == []


def test_the_contract_names_the_same_characters_of_the_basic_plane():
    pattern = re.compile(Text().metadata["pattern"])
    wrong = [
        f"U+{code:04X}"
        for code in range(0x10000)
        if not 0xD800 <= code <= 0xDFFF and bool(pattern.fullmatch(chr(code))) == refused(chr(code))
    ]
    assert wrong == []


fit = st.characters(exclude_categories=tuple(REFUSED_CATEGORIES)) | st.sampled_from(JOINERS)
unfit = st.characters(categories=tuple(REFUSED_CATEGORIES)).filter(lambda c: c not in JOINERS)


@given(st.text(fit, min_size=1, max_size=64).filter(lambda name: not BLANK_ONLY.fullmatch(name)))
def test_a_name_of_any_script_is_taken_as_it_is(name):
    assert Name().deserialize(name) == name


blank = st.characters(categories=("Zs",)) | st.sampled_from("\t\u115f\u1160\u2800\u3164\uffa0")


@given(st.text(blank, max_size=64))
def test_a_name_that_shows_nothing_is_refused(name):
    with pytest.raises(ValidationError):
        Name().deserialize(name)


def test_the_contract_refuses_the_same_names_of_one_character_of_the_basic_plane():
    pattern = re.compile(Name().metadata["pattern"])
    wrong = [
        f"U+{code:04X}"
        for code in range(0x10000)
        if not 0xD800 <= code <= 0xDFFF and bool(pattern.fullmatch(chr(code))) != _taken(chr(code))
    ]
    assert wrong == []


def _taken(name: str) -> bool:
    try:
        Name().deserialize(name)
    except ValidationError:
        return False
    return True


@given(st.text(fit, max_size=30), unfit, st.text(fit, max_size=30))
def test_a_name_with_a_control_separator_or_format_character_anywhere_is_refused(
    before, character, after
):
    with pytest.raises(ValidationError, match=f"U\\+{ord(character):04X} at {len(before)}"):
        Name().deserialize(before + character + after)


@pytest.mark.parametrize(
    "name",
    [
        "Eve\u2028\u2028The game: http://evil.example/login",  # line separators
        "Eve\u2029",  # paragraph separator
        "Eve\x85took seat 1",  # NEL, a C1 control
        "\u202eevE",  # right-to-left override
        "Eve\u2066x\u2069",  # an isolate
        "E\u200bve",  # zero-width space
        "Eve\U000e0041",  # a tag character
    ],
)
def test_names_that_would_break_or_turn_a_line_of_an_email_are_refused(name):
    with pytest.raises(ValidationError):
        Name().deserialize(name)


def test_the_contract_says_what_a_name_may_not_hold():
    described = Name(metadata={"description": "the seat's"}).metadata["description"]
    assert described.startswith("the seat's. 1 to 64 characters")
    assert "bidi" in described and "line or paragraph separators" in described


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=6))
def test_a_query_integer_is_a_number_written_in_ascii_digits_the_one_way(text):
    try:
        number = QueryInteger().deserialize(text)
    except ValidationError:
        number = None
    canonical = text.isascii() and text.isdigit() and str(int(text)) == text
    assert number == (int(text) if canonical else None)


ARABIC_INDIC_TWO, FULLWIDTH_TWO = "\u0662", "\uff12"


@pytest.mark.parametrize(
    "text", [ARABIC_INDIC_TWO, FULLWIDTH_TWO, "+2", "-0", "02", "1_0", " 2", "2 ", "", "2.0"]
)
def test_what_python_or_a_lax_parser_would_read_as_an_integer_is_refused(text):
    with pytest.raises(ValidationError, match="ASCII digits"):
        QueryInteger().deserialize(text)


@pytest.mark.parametrize(("text", "number"), [("0", 0), ("0.5", 0.5), ("12", 12), ("12.25", 12.25)])
def test_a_query_number_is_written_in_ascii_digits(text, number):
    assert QueryNumber().deserialize(text) == number


@pytest.mark.parametrize(
    "text", [ARABIC_INDIC_TWO, "+1", "01", "1_0", "1e3", ".5", "1.", "nan", "inf", " 1"]
)
def test_what_python_would_read_as_a_float_is_refused(text):
    with pytest.raises(ValidationError, match="ASCII digits"):
        QueryNumber().deserialize(text)
