"""The API's own field types, for what marshmallow's do not say or check."""

from __future__ import annotations

import re

from marshmallow import ValidationError, fields, validate
from werkzeug.routing import IntegerConverter

# What no text may hold, as it would reach an email, a log line or another player's
# screen: controls (Cc: C0, DEL and C1, NEL among them), line and paragraph separators
# (Zl, Zp), format characters (Cf: bidi overrides and isolates, zero-width spaces, soft
# hyphen, tags...) but for the joiners that scripts need (ZWNJ U+200C, ZWJ U+200D), and
# lone surrogates (Cs). Unicode 14, Python 3.11's: tests/api/test_fields.py checks it
# against every code point.
UNFIT_BMP = (
    r"\u0000-\u001f\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    r"\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
)
UNFIT = re.compile(
    rf"[{UNFIT_BMP}\ud800-\udfff\U000110bd\U000110cd\U00013430-\U00013438"
    r"\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
# What shows as nothing: spaces of every width (Unicode White_Space; the same in Python's
# and in JSON Schema's `\s` but for characters `UNFIT` refuses anyway), the Hangul fillers
# and the blank Braille pattern. A name of these only is no name.
BLANK = r"\s\u115f\u1160\u2800\u3164\uffa0"
BLANK_ONLY = re.compile(rf"[{BLANK}]*")
MAX_VERSION = 2**31 - 1  # far above any game's last version, and below what Redis refuses
ASCII_INTEGER = re.compile(r"0|[1-9][0-9]*")
ASCII_DECIMAL = re.compile(r"(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")


class Text(fields.String):
    """A string fit to store, hash and show in a message or an email: no control,
    separator or invisible format character (`UNFIT`), no lone surrogate."""

    # The contract's pattern names the characters of the Basic Multilingual Plane only:
    # a JSON Schema pattern has no one way to write the others.
    def __init__(self, **kwargs):
        metadata = {"pattern": f"^[^{UNFIT_BMP}]*$", **kwargs.pop("metadata", {})}
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        unfit = UNFIT.search(text)
        if unfit:
            raise ValidationError(
                f"U+{ord(unfit.group()):04X} at {unfit.start()} is not allowed: no control"
                " characters, line or paragraph separators, invisible format characters"
                " (bidi overrides, zero-width spaces...) or lone surrogates"
            )
        return text


class Name(Text):
    """A name that people see (a player's, a seat's, a device's): 1 to 64 characters of
    `Text`, not all blank (`BLANK`); the contract says which are refused."""

    RULE = (
        "1 to 64 characters, not only spaces; no control characters, line or paragraph"
        " separators or invisible format characters (Unicode Cc, Zl, Zp, Cf: bidi overrides,"
        " zero-width spaces...) but the zero-width joiner and non-joiner"
    )

    def __init__(self, **kwargs):
        metadata = dict(kwargs.pop("metadata", {}))
        said = metadata.get("description")
        metadata["description"] = f"{said}. {self.RULE}" if said else self.RULE
        metadata["pattern"] = rf"^[^{UNFIT_BMP}]*[^{UNFIT_BMP}{BLANK}][^{UNFIT_BMP}]*$"
        super().__init__(validate=validate.Length(1, 64), metadata=metadata, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        name = super()._deserialize(value, attr, data, **kwargs)
        if BLANK_ONLY.fullmatch(name):
            raise ValidationError("a name of spaces only (or of nothing) shows nothing")
        return name


class Email(Text, fields.Email):
    """An email address, fit to be an email's `To:` as `Text` is."""


class WholeNumber(fields.Integer):
    """An integer as JSON Schema counts one: `17` or `17.0`, not `17.5`, `"17"` or
    `true`."""

    def __init__(self, **kwargs):
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return super()._deserialize(value, attr, data, **kwargs)


class QueryInteger(fields.Integer):
    """A whole number in a query string as a client writes one, in ASCII digits: `0`,
    `17`; not `+17`, `017`, `1_7`, ` 17` or Arabic-Indic or fullwidth digits, which
    Python's `int()` takes."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not (isinstance(value, str) and ASCII_INTEGER.fullmatch(value)):
            raise ValidationError("a whole number in ASCII digits, without sign or leading 0")
        return super()._deserialize(value, attr, data, **kwargs)


class QueryNumber(fields.Float):
    """A number in a query string in ASCII digits, with a decimal point or none: `0.5`,
    `12`; not `+1`, `01`, `1_0`, `1e3`, `.5` or other digits, which Python's `float()`
    takes."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not (isinstance(value, str) and ASCII_DECIMAL.fullmatch(value)):
            raise ValidationError("a number in ASCII digits, without sign or leading 0")
        return super()._deserialize(value, attr, data, **kwargs)


class PathInteger(IntegerConverter):
    """`<int:...>` in a route: ASCII digits only, as `QueryInteger` (werkzeug's takes
    `02` and Arabic-Indic digits too); any other segment names nothing (404)."""

    regex = rf"(?:{ASCII_INTEGER.pattern})"


class Flag(fields.Boolean):
    """`true` or `false` in JSON, nothing else (marshmallow also takes 1, "yes"...)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise ValidationError("not a boolean")
        return value


class QueryFlag(fields.Boolean):
    """`true` or `false` in a query string, nothing else (marshmallow also takes "1",
    "yes", "on"...)."""

    truthy = frozenset({"true"})
    falsy = frozenset({"false"})
