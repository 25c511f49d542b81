"""A small JSON Schema validator: the keywords the case format uses, nothing more.

The case schemas (ome_asp/cases.py, written out as fixtures/cases/*.schema.json)
are plain JSON Schema (draft 2020-12), so any validator reads them; this one
lets `ome-asp check` validate cases without a dependency. Supported keywords:
`type` (a name or a list; `integer` excludes booleans), `enum`, `const`,
`required`, `properties`, `additionalProperties` (false or a schema),
`minProperties`, `items`, `minItems`, `uniqueItems`, `contains`, `minLength`,
`pattern`, `oneOf`, `anyOf`, and `$ref` to `#/$defs/<name>`. Other keywords
(`$schema`, `$id`, `title`, `description`, ...) are annotations and ignored.
"""

from __future__ import annotations

import json
import re

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def validate(instance, schema: dict, root: dict | None = None, path: str = "") -> list[str]:
    """Every violation of `schema` by `instance`, as `<path>: <why>` lines (empty: valid)."""
    root = schema if root is None else root
    where = path or "(top)"
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return validate(instance, root["$defs"][name], root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[t](instance) for t in types):
            return [f"{where}: expected {' or '.join(types)}, got {json.dumps(instance)[:60]}"]
    errors: list[str] = []
    if "enum" in schema and instance not in schema["enum"]:
        errors.append(f"{where}: {json.dumps(instance)[:60]} is not one of {json.dumps(schema['enum'])}")
    if "const" in schema and instance != schema["const"]:
        errors.append(f"{where}: must be {json.dumps(schema['const'])}")
    if isinstance(instance, dict):
        errors += _object(instance, schema, root, path)
    if isinstance(instance, list):
        errors += _array(instance, schema, root, path)
    if isinstance(instance, str):
        if len(instance) < schema.get("minLength", 0):
            errors.append(f"{where}: shorter than {schema['minLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], instance):
            errors.append(f"{where}: {json.dumps(instance)} does not match {schema['pattern']}")
    if "oneOf" in schema:
        results = [validate(instance, s, root, path) for s in schema["oneOf"]]
        matching = sum(1 for r in results if not r)
        if matching != 1:
            closest = min(results, key=len) if matching == 0 else []
            errors += closest or [f"{where}: matches {matching} alternatives, expected exactly one"]
    if "anyOf" in schema:
        results = [validate(instance, s, root, path) for s in schema["anyOf"]]
        if all(results):
            errors += min(results, key=len)
    return errors


def _object(instance: dict, schema: dict, root: dict, path: str) -> list[str]:
    errors = [f"{path or '(top)'}: missing {key!r}" for key in schema.get("required", []) if key not in instance]
    if len(instance) < schema.get("minProperties", 0):
        errors.append(f"{path or '(top)'}: needs at least {schema['minProperties']} key(s)")
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, value in instance.items():
        child = f"{path}.{key}" if path else str(key)
        if key in properties:
            errors += validate(value, properties[key], root, child)
        elif extra is False:
            errors.append(f"{child}: unknown key (expected one of {', '.join(properties)})")
        elif isinstance(extra, dict):
            errors += validate(value, extra, root, child)
    return errors


def _array(instance: list, schema: dict, root: dict, path: str) -> list[str]:
    where = path or "(top)"
    errors = []
    if len(instance) < schema.get("minItems", 0):
        errors.append(f"{where}: needs at least {schema['minItems']} item(s)")
    if schema.get("uniqueItems") and len({json.dumps(v, sort_keys=True) for v in instance}) != len(instance):
        errors.append(f"{where}: items are not unique")
    if "contains" in schema and not any(not validate(v, schema["contains"], root) for v in instance):
        errors.append(f"{where}: contains no item matching {json.dumps(schema['contains'])}")
    if "items" in schema:
        for index, value in enumerate(instance):
            errors += validate(value, schema["items"], root, f"{path}[{index}]")
    return errors
