"""docs/bots.md is the contract's: its whole view has every field of openapi.yaml's
`GameView` and no other (nested objects and the items of lists too), and its field
table names each field of the view, of `you` and of `table`."""

from __future__ import annotations

import json
import re

import yaml

from tests.client.conftest import ROOT

BOTS = (ROOT / "docs" / "bots.md").read_text()


def documented_view() -> dict:
    (block,) = re.findall(r"```json\n(.*?)```", BOTS, re.S)
    return json.loads(block)


def schema_of(reference: dict, schemas: dict) -> dict | None:
    """The object schema a property refers to, directly, through `allOf` or `anyOf`
    (nullable), or as the items of a list."""
    for candidate in [reference, *reference.get("allOf", []), *reference.get("anyOf", [])]:
        if "items" in candidate:
            return schema_of(candidate["items"], schemas)
        if "$ref" in candidate:
            return schemas[candidate["$ref"].rsplit("/", 1)[-1]]
    return None


def differences(value, schema: dict, schemas: dict, where: str) -> list[str]:
    """Where `value` (a documented JSON value) and `schema` disagree on field names."""
    if isinstance(value, list):
        return [f for item in value for f in differences(item, schema, schemas, f"{where}[]")]
    if not isinstance(value, dict) or "properties" not in schema:
        return []
    fields = schema["properties"]
    found = [f"{where}.{name}: not in the contract" for name in value.keys() - fields.keys()]
    found += [f"{where}.{name}: not shown" for name in fields.keys() - value.keys()]
    for name in value.keys() & fields.keys():
        inner = schema_of(fields[name], schemas)
        if inner is not None:
            found += differences(value[name], inner, schemas, f"{where}.{name}")
    return found


def test_the_view_shown_has_every_field_of_the_contract_and_no_other():
    schemas = yaml.safe_load((ROOT / "openapi.yaml").read_text())["components"]["schemas"]
    view = documented_view()
    assert differences(view, schemas["GameView"], schemas, "view") == []
    assert all(view["you"][part] for part in ("peek", "legal", "hand")), "a view with a peek"
    assert view["table"]["rounds"], "a view with rounds"


def test_the_field_table_names_every_field_of_the_view_of_you_and_of_table():
    table = "\n".join(line for line in BOTS.splitlines() if line.startswith("| `"))
    named = set(re.findall(r"`([\w.]+)`", table))
    view = documented_view()
    fields = {name for name in view if name not in ("you", "table")}
    fields |= {f"{part}.{name}" for part in ("you", "table") for name in view[part]}
    assert sorted(fields - named) == []
