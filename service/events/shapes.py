"""The shape of a JSON object read from outside (a seal, a line of an export or a
backup): its fields by name and type, and no other, what is wrong said in words."""

from __future__ import annotations

TYPE_NAMES = {str: "a string", int: "an integer", bool: "true or false", dict: "an object"}
TYPE_NAMES |= {list: "a list", type(None): "null"}


def check_fields(value, fields: dict[str, type | tuple]) -> dict:
    """`value` if it is an object with the `fields`, each of its type (a type or a
    tuple of them), and no other; ValueError saying what is not so."""
    if not isinstance(value, dict):
        raise ValueError(f"not an object but {_kind(value)}")
    missing = next((name for name in fields if name not in value), None)
    if missing is not None:
        raise ValueError(f"no {missing!r}")
    unknown = next((name for name in value if name not in fields), None)
    if unknown is not None:
        raise ValueError(f"an unknown field {unknown!r}")
    for name, kinds in fields.items():
        if not _is(value[name], kinds):
            wanted = " or ".join(TYPE_NAMES[kind] for kind in _tuple(kinds))
            raise ValueError(f"{name!r} is {_kind(value[name])}, not {wanted}")
    return value


def _is(value, kinds: type | tuple) -> bool:
    # JSON's true and false are not integers, though Python's bool is an int.
    return any(type(value) is kind for kind in _tuple(kinds))


def _tuple(kinds: type | tuple) -> tuple:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _kind(value) -> str:
    return TYPE_NAMES.get(type(value), "a number")
