"""The API's own field types, for what marshmallow's do not say or check."""

from __future__ import annotations

import re

from marshmallow import ValidationError, fields

UNFIT = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")  # control characters, lone surrogates
MAX_VERSION = 2**31 - 1  # far above any game's last version, and below what Redis refuses


class Text(fields.String):
    """A string fit to store, hash and show in a message or an email: no control
    characters (no line breaks) and no lone surrogates."""

    def __init__(self, **kwargs):
        metadata = {"pattern": "^[^\\u0000-\\u001f\\u007f]*$", **kwargs.pop("metadata", {})}
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        if UNFIT.search(text):
            raise ValidationError("control characters and lone surrogates are not allowed")
        return text


class WholeNumber(fields.Integer):
    """An integer as JSON Schema counts one: `17` or `17.0`, not `17.5`, `"17"` or
    `true`."""

    def __init__(self, **kwargs):
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return super()._deserialize(value, attr, data, **kwargs)


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
